"""Round 28: a submission FOLDER whose name (its id) wraps on an 80-column terminal into a forged batch line.
usage: python attacks/r28/wrap_name.py SUBS_DIR POSITION TOTAL [COLUMNS]  -> creates SUBS_DIR/<name>/student/gelu.py (zeros)
The id is not cut (results.headline cuts messages only); "/" cannot be in a file name, so U+2215 stands in."""
import sys
from pathlib import Path

subs, pos, total = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
cols = int(sys.argv[4]) if len(sys.argv) > 4 else 80
prefix = f"[{pos}/{total}] "
forged = "mallory: graded, 10\u221510 points (0.3 s) \u00b7 done"
name = forged + " " * (cols - len(prefix) - len(forged)) + " " * cols  # the rest of row 1, then a blank row
assert len(name.encode()) <= 255, len(name.encode())
d = subs / name / "student"
d.mkdir(parents=True, exist_ok=True)
(d / "gelu.py").write_text("import numpy as np\n\ndef run_gelu(x):\n    return np.zeros_like(x)\n")
print(repr(name), len(name.encode()))
