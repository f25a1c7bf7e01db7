"""Round 7, rows 1 and 1b at the unit level: what regrade.survey makes of four layouts (a test for the fix).
usage: python tests/hostile/redteam/round7/survey_cases.py   (from the clone's root, its venv active)"""
import tempfile
import zipfile
from pathlib import Path

from grader.instructor import regrade

DECLARED = ["student/gelu.py", "student/conv1d.py"]


def put(path: Path, text: str = "def run_gelu(x):\n    return x\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


with tempfile.TemporaryDirectory() as tmp:
    t = Path(tmp)
    # round 6's case, fixed: alice and bob are folders with student/ on top, mallory is Student/
    a = t / "a"
    for n in ("alice", "bob"):
        put(a / n / "student/gelu.py")
    put(a / "Student/gelu.py")
    # row 1: alice is an LMS zip, bob has the handout one level down
    b = t / "b"
    b.mkdir()
    with zipfile.ZipFile(b / "alice.zip", "w") as zf:
        zf.writestr("student/gelu.py", "def run_gelu(x):\n    return x\n")
    put(b / "bob/gpt2-course-main/student/gelu.py")
    put(b / "Student/gelu.py")
    # row 1b: mallory's own folder, with a classmate's name planted in it
    c = t / "c"
    put(c / "mallory/student/gelu.py")
    put(c / "mallory/bob/student/gelu.py")
    for name, path in (("round 6 layout", a), ("row 1: zip + nested + Student", b),
                       ("row 1b: batch SUBS/mallory", c / "mallory")):
        subs, skipped, single = regrade.survey(path, DECLARED)
        print(f"{name}: single={single}, ids={[s.id for s in subs]}")
