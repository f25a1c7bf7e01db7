"""Write an honest full submission (every stage's reference, as references.files writes them) into DEST/student."""
import sys
from pathlib import Path
sys.path.insert(0, "/work/redteam33")
from grader.course import load_course
from grader.instructor.references import files

course = load_course(Path("/work/redteam33"))
dest = Path(sys.argv[1])
skip = set(sys.argv[2:])
for rel, text in files(course, *[s for s in course.stages if s.id not in skip]).items():
    (dest / rel).parent.mkdir(parents=True, exist_ok=True)
    (dest / rel).write_text(text, encoding="utf-8")
print(sorted(p.name for p in (dest / "student").iterdir()))
