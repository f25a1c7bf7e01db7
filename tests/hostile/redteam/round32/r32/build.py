"""Build an honest learner: python attacks/build.py SUBS NAME stage1,stage2,..  (references as the learner's files)."""
import sys
from pathlib import Path
sys.path.insert(0, "/work/redteam32")
from grader.course import load
from grader.instructor.references import files

subs, name, stages = Path(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
course = load.load_course(Path("/work/redteam32")) if hasattr(load, "load_course") else load.load(Path("/work/redteam32"))
for rel, text in files(course, *[course.stage(s) for s in stages]).items():
    p = subs / name / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
print("built", subs / name, sorted(files(course, *[course.stage(s) for s in stages])))
