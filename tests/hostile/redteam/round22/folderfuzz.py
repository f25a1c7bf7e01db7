"""Fuzz folder intake (submissions.unpack of a folder) with trees of tricky names and contents."""
import os, random, shutil, sys, time, traceback
from pathlib import Path
sys.path.insert(0, "/work/redteam22")
sys.path.insert(0, "/work/redteam22/attacks")
from grader.instructor import submissions
from namefuzz_parts import PARTS, DECL

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
end = time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 60)
root = Path("/tmp/rt22-fz/folders"); seen, n = {}, 0
CONTENT = [b"X = 1\n", b"", b"\xef\xbb\xbfX=1\n", b"\xff\xfe", b"a" * 70000, b"\r\n" * 10]
while time.time() < end:
    shutil.rmtree(root, ignore_errors=True); sub = root / "sub"; sub.mkdir(parents=True)
    made = []
    for _ in range(rng.randint(1, 8)):
        rel = [rng.choice(PARTS) for _ in range(rng.randint(1, 4))]
        p = sub.joinpath(*rel)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            if rng.random() < 0.1:
                p.mkdir(exist_ok=True)
            else:
                p.write_bytes(rng.choice(CONTENT))
            made.append("/".join(rel))
        except OSError:
            pass
    dest = root / "dest"; dest.mkdir()
    try:
        submissions.unpack(submissions.Submission("s", sub), dest, flat_ok=True, declared=DECL)
    except submissions.SubmissionError:
        pass
    except Exception as e:
        key = (type(e).__name__, traceback.extract_tb(e.__traceback__)[-1].lineno)
        if key not in seen:
            seen[key] = made
            print("CRASH", type(e).__name__, str(e)[:200], traceback.extract_tb(e.__traceback__)[-1], made)
    n += 1
print("tries", n, "distinct crashes", len(seen))
