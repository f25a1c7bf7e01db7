"""Round 31, attempt 6 as a check (not a pytest file): every line batch prints about entries cuts their names as
progress lines do (ids 48 characters). Fails on 613b0e9. Usage: python check_notes_cut.py (makes /tmp/rt31-cn)."""
import shutil, subprocess, sys
from pathlib import Path

root = Path("/tmp/rt31-cn")
shutil.rmtree(root, ignore_errors=True)
subs = root / "subs"
(subs / "alice" / "student").mkdir(parents=True)
(subs / "alice" / "student" / "gelu.py").write_text("def run_gelu(x):\n    return x\n")
(subs / ("zz" + " " * 200 + ".tar.gz")).write_bytes(b"")          # a non-submission, printed whole
(subs / ("m" + " " * 150)).mkdir()                                  # a folder and a zip sharing a long name
shutil.copytree(subs / "alice" / "student", subs / ("m" + " " * 150) / "student")
shutil.make_archive(str(subs / ("m" + " " * 150)), "zip", subs / "alice")
out = subprocess.run([sys.executable, "-m", "grader", "batch", str(subs), "--jobs", "1", "--stage", "gelu", "--db",
                      str(root / "gb.sqlite")], capture_output=True, text=True, cwd="/work/redteam31").stdout
longest = max(len(line) for line in out.splitlines())
print(out)
print("longest line:", longest, "characters")
sys.exit(0 if longest <= 300 else 1)
