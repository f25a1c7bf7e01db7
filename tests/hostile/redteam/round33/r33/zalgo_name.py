"""Make a folder submission whose name is one letter and ~120 combining marks (category Mn: shown as they are)."""
import sys
from pathlib import Path
above = [chr(c) for c in range(0x0300, 0x0315)]
below = [chr(c) for c in range(0x0316, 0x0334)]
marks = "".join((above[i % len(above)] + below[i % len(below)]) for i in range(60))
name = "m" + marks
print(len(name.encode()), "bytes")
dest = Path(sys.argv[1]) / name / "student"
dest.mkdir(parents=True)
(dest / "gelu.py").write_text(Path(sys.argv[2]).read_text())
