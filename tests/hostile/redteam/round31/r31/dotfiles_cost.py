"""Round 31: what a folder submission's dot-files (never counted against MAX_ENTRIES) cost the batch worker:
contents.digest and submissions.unpack, time and peak RSS. Usage: python dotfiles_cost.py SUBMISSION_FOLDER"""
import resource, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, "/work/redteam31")
from grader.instructor import contents, submissions
sub = submissions.Submission("dots", Path(sys.argv[1]))
decl = ["student/gelu.py"]
t = time.time(); d = contents.digest(sub); t1 = time.time() - t
with tempfile.TemporaryDirectory() as out:
    t = time.time(); w = submissions.unpack(sub, Path(out), flat_ok=True, declared=decl); t2 = time.time() - t
print(f"digest {t1:.2f} s, unpack {t2:.2f} s ({w}), peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024:.0f} MiB")
