"""Structure-aware zip fuzz: random values in each field of the central directory and local headers (and the
extended-timestamp extra), through submissions.unpack. Reports exceptions other than SubmissionError."""
import io, random, shutil, struct, sys, time, traceback, zipfile
from pathlib import Path
sys.path.insert(0, "/work/redteam22")
from grader.instructor import submissions

buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    zi = zipfile.ZipInfo("student/gelu.py", (2024, 5, 5, 5, 5, 5)); zi.extra = b"UT\x05\x00\x01\x00\x00\x00\x60"
    z.writestr(zi, "def run_gelu(x):\n    return x\n")
    z.writestr("student/conv1d.py", "def run_conv1d(x, w, b):\n    return x @ w + b\n")
raw = buf.getvalue()
# (offset within the header, size) of every field of a central directory header (after the signature) and local one
CD = [(4, 2), (6, 2), (8, 2), (10, 2), (12, 2), (14, 2), (16, 4), (20, 4), (24, 4), (28, 2), (30, 2), (32, 2),
      (34, 2), (36, 2), (38, 4), (42, 4)]
LH = [(4, 2), (6, 2), (8, 2), (10, 2), (12, 2), (14, 4), (18, 4), (22, 4), (26, 2), (28, 2)]
EOCD = [(4, 2), (6, 2), (8, 2), (10, 2), (12, 4), (16, 4), (20, 2)]
def heads(sig):
    out, i = [], raw.find(sig)
    while i >= 0:
        out.append(i); i = raw.find(sig, i + 1)
    return out
targets = [(h, CD) for h in heads(b"PK\x01\x02")] + [(h, LH) for h in heads(b"PK\x03\x04")] + \
          [(h, EOCD) for h in heads(b"PK\x05\x06")]
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
end = time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 40)
root = Path("/tmp/rt22-fz/cd"); root.mkdir(parents=True, exist_ok=True)
seen, n = {}, 0
while time.time() < end:
    b = bytearray(raw)
    for _ in range(rng.randint(1, 3)):
        h, fields = rng.choice(targets); off, size = rng.choice(fields)
        val = rng.choice([0, 1, 2, 8, 20, 45, 63, 64, 99, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0xffffffff,
                          0x80000000, rng.randrange(1 << (8 * size))]) & ((1 << (8 * size)) - 1)
        b[h + off:h + off + size] = val.to_bytes(size, "little")
    sub = root / "s.zip"; sub.write_bytes(bytes(b))
    dest = root / "dest"; shutil.rmtree(dest, ignore_errors=True); dest.mkdir()
    try:
        submissions.unpack(submissions.Submission("s", sub), dest, flat_ok=True, declared=["student/gelu.py", "student/conv1d.py"])
    except submissions.SubmissionError:
        pass
    except Exception as e:
        key = (type(e).__name__, traceback.extract_tb(e.__traceback__)[-1].lineno)
        if key not in seen:
            seen[key] = 1
            print("CRASH", type(e).__name__, str(e)[:150], traceback.extract_tb(e.__traceback__)[-1])
    n += 1
print("tries", n, "distinct crashes", len(seen))
