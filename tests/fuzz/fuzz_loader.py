"""atheris target: any bytes as a stage.yaml (and, on odd inputs, as course.yaml) of the mini course.

The grader must load the course or refuse it with a GraderError naming the file; anything else is a crash.
Run: python tests/fuzz/fuzz_loader.py -runs=20000   (bench/security.py runs it with a bounded count)
"""

import shutil
import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from grader.course import load_course
    from grader.errors import GraderError

MINI = Path(__file__).resolve().parent.parent / "minicourse"
ROOT = Path(tempfile.mkdtemp(prefix="fuzz-loader-"))
shutil.copytree(MINI, ROOT, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
SEEDS = {p: p.read_bytes() for p in [ROOT / "course.yaml", *sorted(ROOT.glob("stages/*/stage.yaml"))]}
TARGETS = list(SEEDS)


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    path = TARGETS[data[0] % len(TARGETS)]
    body = data[1:]
    if data[0] & 0x80:  # half the time: a seed file with the input spliced in, to get past the first keys
        seed = SEEDS[path]
        at = (data[0] * 7919) % (len(seed) + 1)
        body = seed[:at] + body + seed[at:]
    path.write_bytes(body)
    try:
        load_course(ROOT)
    except GraderError as e:
        if str(path) not in str(e) and str(ROOT / "course.yaml") not in str(e):
            raise AssertionError(f"an error that does not name its file: {e}")
    finally:
        path.write_bytes(SEEDS[path])


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    try:
        atheris.Fuzz()
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)
