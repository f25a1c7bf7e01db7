"""Round 28: build submissions from the grader's own reference tree (references.files) for chosen stages.
usage: python attacks/r28/build.py OUT_DIR NAME STAGE[,STAGE...] [rel=path ...]  (swap files: student/x.py=attack.py)"""
import sys
from pathlib import Path

from grader.course.load import load_course
from grader.instructor.references import files

out, name, stages = Path(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
course = load_course(".")
tree = files(course, *[course.stage(s) for s in stages])
for rel, text in tree.items():
    p = out / name / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
for arg in sys.argv[4:]:
    rel, src = arg.split("=", 1)
    p = out / name / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(Path(src).read_text())
print(sorted(str(p.relative_to(out)) for p in (out / name).rglob("*.py")))
