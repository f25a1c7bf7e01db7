"""Round 31: zips of look-alike entry names (case, NFC/NFD, backslashes, ſ/K, packages, __init__), unpacked as a
batch does; any exception but SubmissionError would be a grader error row (SECURITY.md: never a grader error)."""
import io, random, sys, tempfile, traceback, zipfile
from pathlib import Path
sys.path.insert(0, "/work/redteam31")
from grader.instructor import submissions

DECL = [f"student/{s}.py" for s in "gelu conv1d mlp checkpoint layernorm softmax attention block gpt2 generate kvcache tokenizer".split()]
parts = ["student", "Student", "ſtudent", "STUDENT", "x", "pkg", "Pkg", "pkg\u0301", "__init__", "gelu.py", "GELU.py",
         "gelu.PY", "ǵelu.py", "a.py", "A.py", "\u00e9.py", "e\u0301.py", "__init__.py", "\u212aelvin.py", "Kelvin.py",
         "helpers", "venv", ".hidden", "x\\y.py", "a\\b\\c.py", "mlp.py", "mlp.py\\x.py", "ä", "a\u0308", "1bad",
         "ok_pkg", "sub", "gelu", "gelu.py.py", "con.py", "a" * 250 + ".py", "\u202e.py", "\x01.py", "zz/"]
bad = 0
rng = random.Random(31)
for trial in range(4000):
    names = set()
    for _ in range(rng.randint(1, 6)):
        depth = rng.randint(1, 4)
        names.add("/".join(rng.choice(parts) for _ in range(depth)))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for n in names:
            zf.writestr(n, "def f():\n    return 1\n")
    with tempfile.TemporaryDirectory(prefix="rt31-") as d:
        z = Path(d) / "sub.zip"
        z.write_bytes(buf.getvalue())
        dest = Path(d) / "out"
        dest.mkdir()
        try:
            submissions.unpack(submissions.Submission("sub", z), dest, flat_ok=True, declared=DECL)
        except submissions.SubmissionError:
            pass
        except Exception as e:
            bad += 1
            if bad <= 5:
                print(sorted(names)); traceback.print_exc()
print("non-SubmissionError exceptions:", bad)
