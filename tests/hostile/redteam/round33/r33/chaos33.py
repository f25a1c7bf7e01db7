"""A cohort of host-side hostile entries beside honest learners (round 33). usage: python attacks/chaos33.py SUBS"""
import io, os, shutil, struct, subprocess, sys, zipfile
from pathlib import Path
sys.path.insert(0, "/work/redteam33")
from grader.course import load_course
from grader.instructor.references import files

subs = Path(sys.argv[1]); subs.mkdir(parents=True, exist_ok=True)
course = load_course(Path("/work/redteam33"))
honest = {rel: text for rel, text in files(course, *course.stages).items()}

def folder(name, content=honest, extra=()):
    d = subs / name
    for rel, text in content.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True); (d / rel).write_text(text)
    for rel, text in extra:
        (d / rel).parent.mkdir(parents=True, exist_ok=True); (d / rel).write_text(text)
    return d

def zipped(name, entries):
    with zipfile.ZipFile(subs / name, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in entries:
            z.writestr(n, data)

for h in ("h1", "h2", "h3"):
    folder(h)
gelu = honest["student/gelu.py"]
# 1: a 48-wide-character name (96 columns)
zipped("\u4e00" * 39 + "  alice  .zip", [(k, v) for k, v in honest.items()])
# 2: a tab and an ESC in a folder name
folder("tab\there\x1b[31m")
# 3: a folder named like a zip beside the zip: shared plain name
folder("dup.ZIP"); zipped("dup.zip", [("student/gelu.py", gelu)])
# 4: backslash entry names (Windows zip tools)
zipped("winzip.zip", [(k.replace("/", "\\"), v) for k, v in honest.items()])
# 5: a package shadowing the stage file
folder("shadow", extra=[("student/gelu/__init__.py", "def run_gelu(x):\n    return x\n")])
# 6: a formula id
zipped("=HYPERLINK(\"http-x\")+1.zip", [("student/gelu.py", gelu)])
# 7: a non-UTF-8 name
os.makedirs(os.path.join(os.fsencode(subs), b"latin\xe9/student"), exist_ok=True)
open(os.path.join(os.fsencode(subs), b"latin\xe9/student/gelu.py"), "w").write(gelu)
# 8: tab rows in printed output
folder("mallory", extra=[("student/gelu.py", open("/work/redteam33/attacks/tab_rows_gelu.py").read())])
# 9: a name that is a CLI option
folder("--force")
# 10: long entry names under venv/ (skipped, never extracted): 200 entries x 60,000 characters
zipped("longnames.zip", [("student/gelu.py", gelu)] + [(f"venv/{i:04d}" + "n" * 60000, b"") for i in range(200)])
print(sorted(os.listdir(subs)))
