"""Build round 4's submission folders. usage: python build.py OUT [group:name:target=src,...]
OUT/.honest: every stage's reference.py under the learner's names (common/<x>.py as student/common_<x>.py).
learner(group, name, {target: src}) copies .honest (or the handout's stubs) and drops hostile files in."""
import re, shutil, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
OUT = Path(sys.argv[1])
sys.path.insert(0, str(ROOT))
from grader.course.load import load_course  # noqa: E402

course = load_course(ROOT)
H = OUT / ".honest" / "student"
if not H.exists():
    H.mkdir(parents=True)
    (H / "__init__.py").write_text("")
    fix = lambda s: re.sub(r"(from|import) common\.([a-z_]+)", r"\1 student.common_\2", s)
    for st in course.stages:
        names = "".join(f"{f.name} = {f.reference}\n" for f in st.functions if f.name != f.reference)
        (OUT / ".honest" / st.student_file).write_text(fix((st.dir / "reference.py").read_text()) + "\n" + names)
    for c in (ROOT / "common").glob("*.py"):
        (H / f"common_{c.name}").write_text(fix(c.read_text()))


def learner(group, name, files=None, stubs=False):
    dest = OUT / group / name
    shutil.rmtree(dest, ignore_errors=True)
    if stubs:
        if not (OUT / ".handout").exists():
            subprocess.run([sys.executable, "-m", "grader", "handout", str(OUT / ".handout")], cwd=ROOT, check=True,
                           capture_output=True)
        shutil.copytree(OUT / ".handout" / "student", dest / "student")
    else:
        shutil.copytree(OUT / ".honest", dest)
    for target, src in (files or {}).items():
        shutil.copy(HERE / src, dest / "student" / target)


for spec in sys.argv[2:]:
    group, name, *rest = spec.split(":")
    files = dict(kv.split("=") for kv in rest[0].split(",")) if rest and rest[0] else {}
    learner(group, name, files, stubs=name.startswith("stub"))
