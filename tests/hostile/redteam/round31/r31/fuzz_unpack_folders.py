"""Round 31: the same look-alike names as fuzz_unpack_names.py, as FOLDER submissions (files and folders)."""
import os, random, sys, tempfile, traceback
from pathlib import Path
sys.path.insert(0, "/work/redteam31")
from grader.instructor import submissions, contents
exec(open("/work/redteam31/attacks/fuzz_unpack_names.py").read().split("bad = 0")[0].split("from grader.instructor import submissions")[1])
bad = 0
rng = random.Random(311)
for trial in range(3000):
    with tempfile.TemporaryDirectory(prefix="rt31-") as d:
        sub = Path(d) / "sub"
        sub.mkdir()
        for _ in range(rng.randint(1, 6)):
            depth = rng.randint(1, 4)
            rel = [rng.choice(parts).replace("/", "") or "x" for _ in range(depth)]
            p = sub.joinpath(*rel)
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
                if not p.exists():
                    p.write_text("def f():\n    return 1\n")
            except OSError:
                pass
        dest = Path(d) / "out"
        dest.mkdir()
        try:
            contents.digest(submissions.Submission("sub", sub))
            submissions.unpack(submissions.Submission("sub", sub), dest, flat_ok=True, declared=DECL)
        except submissions.SubmissionError:
            pass
        except Exception:
            bad += 1
            if bad <= 5:
                os.system(f"cd {sub} && find . | head -20"); traceback.print_exc()
print("non-SubmissionError exceptions:", bad)
