"""Fuzz intake with valid zips of tricky entry names (case, Unicode, dots, dunder, packages, lengths): any exception
other than SubmissionError from submissions.unpack would be a grader error row."""
import io, random, shutil, sys, time, traceback, zipfile
from pathlib import Path
sys.path.insert(0, "/work/redteam22")
from grader.instructor import submissions

DECL = ["student/gelu.py", "student/conv1d.py", "student/mlp.py", "student/kvcache.py"]
PARTS = ["student", "Student", "STUDENT", "st\u00fcdent", "gelu.py", "GELU.PY", "Gelu.Py", "gelu.pyc", "gelu.py ",
         "\u212avcache.py", "kvcache.py", "__init__.py", "__main__.py", "_x.py", "x.py", ".py", "..py", "a.b.py",
         "pkg", "_pkg", "1pkg", "p-k", "__pycache__", ".git", "__MACOSX", "venv", "node_modules", "\u00e9.py",
         "e\u0301.py", "\u0130.py", "\u0131.py", "\ufb01.py", "a" * 200 + ".py", "x" * 250, "con.py", "gelu",
         "\u200bgelu.py", "gelu.py\u200b", "\\", "a\\b.py", "student\\gelu.py", " ", "~", "$", "%", "\ud7ff.py",
         "conv1d.py", "mlp.py", "mlp", "conv1d", "gelu.PY", "setup.py", "requirements.txt", "README.md"]
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
end = time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 60)
root = Path("/tmp/rt22-fz/names"); root.mkdir(parents=True, exist_ok=True)
seen, n = {}, 0
while time.time() < end:
    names = set()
    for _ in range(rng.randint(1, 8)):
        names.add("/".join(rng.choice(PARTS) for _ in range(rng.randint(1, 4))))
    buf = io.BytesIO()
    try:
        with zipfile.ZipFile(buf, "w") as z:
            for nm in names:
                z.writestr(nm, "X = 1\n")
    except Exception:
        continue
    sub = root / "s.zip"; sub.write_bytes(buf.getvalue())
    dest = root / "dest"; shutil.rmtree(dest, ignore_errors=True); dest.mkdir()
    try:
        submissions.unpack(submissions.Submission("s", sub), dest, flat_ok=True, declared=DECL)
    except submissions.SubmissionError:
        pass
    except Exception as e:
        key = (type(e).__name__, traceback.extract_tb(e.__traceback__)[-1].lineno)
        if key not in seen:
            seen[key] = sorted(names)
            print("CRASH", type(e).__name__, str(e)[:200], traceback.extract_tb(e.__traceback__)[-1], sorted(names))
    n += 1
print("tries", n, "distinct crashes", len(seen))
