"""Build round 3's submission folders. usage: python build.py OUT   (run from anywhere; needs /work/redteam3)

OUT/.honest   a correct learner: each stage's reference.py under the learner's names, common/<x>.py flattened
              into student/common_<x>.py (a submission's student/ keeps only top-level .py files)
OUT/inject/   alice, bob (honest), mallory (kvcache.py = inject_kvcache.py)
OUT/recur/    alice (honest), carol (recursive_kvcache.py), dave (default_arg_kvcache.py): correct, cached
OUT/lazy/     alice (honest), lazy (the handout's stubs + lazy_{mlp,attention,block,gpt2}.py)
"""
import re, shutil, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = Path("/work/redteam3")
OUT = Path(sys.argv[1])
sys.path.insert(0, str(ROOT))
from grader.course.load import load_course  # noqa: E402

course = load_course(ROOT)
H = OUT / ".honest" / "student"
H.mkdir(parents=True, exist_ok=True)
(H / "__init__.py").write_text("")
fix = lambda s: re.sub(r"(from|import) common\.([a-z_]+)", r"\1 student.common_\2", s)
for st in course.stages:
    names = "".join(f"{f.name} = {f.reference}\n" for f in st.functions if f.name != f.reference)
    (OUT / ".honest" / st.student_file).write_text(fix((st.dir / "reference.py").read_text()) + "\n" + names)
for c in (ROOT / "common").glob("*.py"):
    (H / f"common_{c.name}").write_text(fix(c.read_text()))


def learner(group, name, files=None, stubs=False):
    dest = OUT / group / name
    if stubs:
        subprocess.run([sys.executable, "-m", "grader", "handout", str(OUT / ".handout")], cwd=ROOT, check=True,
                       capture_output=True) if not (OUT / ".handout").exists() else None
        shutil.copytree(OUT / ".handout" / "student", dest / "student")
    else:
        shutil.copytree(OUT / ".honest", dest)
    for target, src in (files or {}).items():
        shutil.copy(HERE / src, dest / "student" / target)


learner("inject", "alice"); learner("inject", "bob"); learner("inject", "mallory", {"kvcache.py": "inject_kvcache.py"})
learner("recur", "alice"); learner("recur", "carol", {"kvcache.py": "recursive_kvcache.py"})
learner("recur", "dave", {"kvcache.py": "default_arg_kvcache.py"})
learner("lazy", "alice")
learner("lazy", "lazy", {f"{s}.py": f"lazy_{s}.py" for s in ("mlp", "attention", "block", "gpt2")}, stubs=True)
