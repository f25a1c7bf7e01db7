"""Round 28: mutate a valid submission zip at random and unpack it as batch does; any exception other than
SubmissionError would be a grader error row ("never a grader error"). usage: python attacks/r28/fuzz_unpack.py SEED N"""
import io, random, shutil, sys, tempfile, traceback, zipfile
from pathlib import Path

sys.path.insert(0, "/work/redteam28")
from grader.course.load import load_course
from grader.instructor import submissions

course = load_course("/work/redteam28")
declared = [s.student_file for s in course.stages]
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("student/gelu.py", "import numpy as np\n\ndef run_gelu(x):\n    return x * 0.5\n" * 20)
    z.writestr("student/conv1d.py", "def run_conv1d(x, w, b):\n    return x @ w + b\n" * 10)
    z.writestr("student/helpers/util.py", "X = 1\n")
base = buf.getvalue()
rnd = random.Random(int(sys.argv[1]))
bad = 0
for t in range(int(sys.argv[2])):
    data = bytearray(base)
    for _ in range(rnd.randint(1, 6)):
        k = rnd.random()
        i = rnd.randrange(len(data))
        if k < 0.6:
            data[i] = rnd.randrange(256)
        elif k < 0.8:
            data[i:i + 2] = rnd.choice([b"\xff\xff", b"\x00\x00", b"\x01\x00", b"\xfe\xff"])
        else:
            del data[i:i + rnd.randint(1, 50)]
    d = Path(tempfile.mkdtemp(dir="/tmp/rt28-zf"))
    z = d / "sub.zip"
    z.write_bytes(bytes(data))
    try:
        submissions.unpack(submissions.Submission("sub", z), d / "out", flat_ok=True, declared=declared)
    except submissions.SubmissionError:
        pass
    except Exception:
        bad += 1
        if bad <= 5:
            print("UNCAUGHT", t, traceback.format_exc().splitlines()[-1])
            (Path("/tmp/rt28-zf") / f"bad-{sys.argv[1]}-{t}.zip").write_bytes(bytes(data))
    shutil.rmtree(d)
print("seed", sys.argv[1], "bad", bad)
