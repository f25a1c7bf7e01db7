"""Fuzz the batch's intake (submissions.unpack) with mutated zips: any exception other than SubmissionError would be
a grader error row (SECURITY.md: a submission's own doings are never a grader error)."""
import io, os, random, shutil, sys, time, traceback, zipfile
from pathlib import Path
sys.path.insert(0, "/work/redteam22")
from grader.instructor import submissions

DECL = ["student/gelu.py", "student/conv1d.py", "student/mlp.py"]
base = io.BytesIO()
with zipfile.ZipFile(base, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("student/gelu.py", "def run_gelu(x):\n    return x\n" * 20)
    z.writestr("student/helper.py", "X = 1\n")
    zi = zipfile.ZipInfo("student/conv1d.py", (2020, 1, 1, 0, 0, 0)); zi.extra = b"UT\x05\x00\x01" + (2**31 - 1).to_bytes(4, "little")
    z.writestr(zi, "def run_conv1d(x, w, b):\n    return x @ w + b\n")
    z.writestr("student/pkg/mod.py", "Y = 2\n")
raw = base.getvalue()
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
seen, n, end = {}, 0, time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 60)
root = Path("/tmp/rt22-fz")
while time.time() < end:
    b = bytearray(raw)
    for _ in range(rng.randint(1, 6)):
        k = rng.random()
        i = rng.randrange(len(b))
        if k < 0.5:
            b[i] = rng.randrange(256)
        elif k < 0.7:
            b[i:i + 2] = rng.choice([b"\xff\xff", b"\x00\x00", b"\x00\x80", b"\xff\x7f"])
        elif k < 0.85:
            b[i:i + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x00\x00\x00\x80"])
        else:
            del b[i:i + rng.randint(1, 40)]
    sub = root / f"s{n % 4}.zip"
    sub.write_bytes(bytes(b))
    dest = root / "dest"
    shutil.rmtree(dest, ignore_errors=True); dest.mkdir()
    try:
        submissions.unpack(submissions.Submission("s", sub), dest, flat_ok=True, declared=DECL)
    except submissions.SubmissionError:
        pass
    except Exception as e:
        key = (type(e).__name__, traceback.extract_tb(e.__traceback__)[-1].lineno)
        if key not in seen:
            seen[key] = bytes(b)
            (root / f"crash-{type(e).__name__}-{len(seen)}.zip").write_bytes(bytes(b))
            print("CRASH", type(e).__name__, str(e)[:200], traceback.extract_tb(e.__traceback__)[-1])
    n += 1
print("tries", n, "distinct crashes", len(seen))
