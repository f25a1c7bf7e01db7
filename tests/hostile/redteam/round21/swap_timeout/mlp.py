"""Round 21: a stage graded with references whose first call times out (the jail is killed mid-swap, the next jail
is the warm spare, filled from the references' copy). Does the learner's own student/ come back for what follows?"""
import time
from pathlib import Path

from student.conv1d import run_conv1d
from student.gelu import run_gelu

_REFS = "ATTACKER_OWN" not in (Path(__file__).resolve().parent / "conv1d.py").read_text()
_first = [True]


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    if _REFS and _first[0]:
        _first[0] = False
        time.sleep(30)  # past the 10 s timeout: the jail is killed
    return run_conv1d(run_gelu(run_conv1d(x, c_fc_weight, c_fc_bias)), c_proj_weight, c_proj_bias)
