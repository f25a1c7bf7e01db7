"""Property fuzz of submissions.discover: ids unique, and no entry takes another entry's short (LMS) name."""
import itertools, os, random, shutil, sys, tempfile
from pathlib import Path
sys.path.insert(0, "/work/redteam28")
from grader.instructor import submissions
from grader.instructor.intake import printable

ATOMS = ["a~1~1.zip", "A~1", "A~1.zip", "a~2.zip", "A.zip", "a~3", "A~2","a", "A", "a~1", "a~2", "a~1~1", "a.zip", "a~1.zip", "a.ZIP", "a.zip.zip", "a.Zip", "\u212a", "K",
         "k", "K~1", "K.zip", "cafe\u0301", "caf\u00e9", "caf\u00e9.zip", "cafe\u0301.zip", "a\x01", "a\\x01",
         "a~1.ZIP", "K~1.zip", "\u212a.zip", "\u212a~1", "a.zip~1", "a~1.zip.zip"]
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
bad = 0
for trial in range(3000):
    names = random.sample(sorted(set(ATOMS)), random.randint(2, 7))
    d = Path(tempfile.mkdtemp(prefix="rt28-fz-", dir="/tmp/rt28-fz"))
    for n in names:
        kind = "dir" if not n.lower().endswith(".zip") else random.choice(["dir", "zip"])
        p = d / n
        if kind == "dir":
            p.mkdir()
        else:
            p.write_bytes(b"PK")
    subs = submissions.discover(d)
    ids = [s.id for s in subs]
    shorts = {s.path.name: printable(s.path.stem if s.path.suffix.lower() == ".zip" else s.path.name) for s in subs}
    problems = []
    if len(set(ids)) != len(ids):
        problems.append("duplicate ids")
    for s in subs:
        others = [o for o in subs if o is not s]
        for o in others:
            if s.id == shorts[o.path.name] and shorts[s.path.name] != s.id:
                problems.append(f"{s.path.name!r} took {o.path.name!r}'s name {s.id!r}")
    if problems:
        bad += 1
        if bad < 8:
            print([ (s.path.name, "dir" if s.path.is_dir() else "file", s.id) for s in subs], problems)
    shutil.rmtree(d)
print("bad", bad)
