"""Round 31: random folders of look-alike entry names; checks discover's promises (unique ids; no entry takes
another entry's plain name; an entry alone with its plain name keeps it)."""
import itertools, os, random, shutil, sys, unicodedata
from pathlib import Path
sys.path.insert(0, "/work/redteam31")
from grader.instructor import submissions
from grader.instructor.submissions import discover, plain_name

base = ["a", "A", "a~1", "a~2", "a~1~1", "a.zip", "a~1.zip", "a.ZIP", "a.zip~1", "a\u212a", "aK", "ak", "a\x01",
        "a\\x01", "a\u0301", "\u00e1", "a.Zip", "a~"]
root = Path("/tmp/rt31-fz/d")
bad = 0
for trial in range(3000):
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    names = random.sample(base, random.randint(2, 7))
    made = []
    for n in names:
        kind = random.choice(["dir", "zip"])
        name = n + (".zip" if kind == "zip" else "")
        if (root / name).exists():
            continue
        if kind == "dir":
            (root / name).mkdir()
        else:
            (root / name).write_bytes(b"PK")
        made.append(name)
    subs = discover(root)
    ids = [s.id for s in subs]
    plains = {s.path.name: plain_name(s.path) for s in subs}
    count = {}
    for p in plains.values():
        count[p] = count.get(p, 0) + 1
    problems = []
    if len(set(ids)) != len(ids):
        problems.append("duplicate ids")
    for s in subs:
        owners = [n for n, p in plains.items() if p == s.id]
        if owners and s.path.name not in owners:
            problems.append(f"{s.path.name!r} took {s.id!r}, the plain name of {owners}")
        if count[plains[s.path.name]] == 1 and s.id != plains[s.path.name]:
            problems.append(f"{s.path.name!r} alone with its plain name {plains[s.path.name]!r} got {s.id!r}")
    if problems:
        bad += 1
        if bad <= 8:
            print(sorted(made), "->", ids, problems)
print("bad", bad)
