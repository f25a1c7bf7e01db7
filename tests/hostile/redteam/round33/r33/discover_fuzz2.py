"""Brute-force discover(): ids unique; an entry alone with its plain name keeps it; no id is another's plain name."""
import itertools, os, random, shutil, sys, tempfile
from pathlib import Path
sys.path.insert(0, "/work/redteam33")
from grader.instructor.submissions import discover, plain_name

ATOMS = ["a\x01", "a\\x01", "a\\x01~1", "a\\x01.zip", "e\u0301", "\u00e9", "\u00e9~1", "\u00e9.zip", "e\u0301.ZIP", "a\u200b", "a\\u200b", "a", "A", "a~1", "a~2", "a.zip", "a.ZIP", "a~1.zip", "a.zip~1", "b", "a~1~1", "a~2.zip", "a.zip.zip", "a.zip~2"]
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
bad = 0
for trial in range(20000):
    k = random.randint(2, 6)
    names = set()
    for _ in range(k):
        base = random.choice(ATOMS)
        kind = random.choice(["dir", "zipfile"])
        names.add((base + (".zip" if kind == "zipfile" and random.random() < .7 else ""), kind))
    d = Path(tempfile.mkdtemp(dir="/tmp/rt33-d"))
    made = []
    try:
        for n, kind in names:
            p = d / n
            if p.exists():
                continue
            if kind == "dir":
                p.mkdir()
            else:
                p.write_bytes(b"PK")
            made.append(n)
        subs = discover(d)
        ids = [s.id for s in subs]
        plains = [plain_name(s.path) for s in subs]
        problems = []
        if len(set(ids)) != len(ids):
            problems.append("dup ids")
        for s, pl in zip(subs, plains):
            if plains.count(pl) == 1 and s.id != pl:
                problems.append(f"{s.path.name} alone with {pl} got {s.id}")
            if s.id != pl and s.id in plains:
                problems.append(f"{s.path.name} got {s.id}, another's plain name")
        if problems:
            bad += 1
            if bad < 15:
                print(sorted(made), list(zip([s.path.name for s in subs], ids)), problems)
    finally:
        shutil.rmtree(d)
print("bad", bad)
