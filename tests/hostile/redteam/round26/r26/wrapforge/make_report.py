"""A zip whose refusal, in `report`'s "Not graded:" section (first line uncut), wraps at 80 columns into forged lines.

python make_report.py OUT.zip ID
"""
import sys, zipfile

out, ident = sys.argv[1], sys.argv[2]
W = 80
prefix = f"  {ident} (rejected): {ident}.zip: entry '../"
fakes = ["  (none)", "", "Graded on the course state above; every submission passes its hidden checks."]
name = "../" + " " * (W - len(prefix) % W)
for f in fakes:
    name += f.ljust(W)[:W]
name += " " * W
with zipfile.ZipFile(out, "w") as zf:
    zf.writestr(name, "x")
    zf.writestr("student/gelu.py", "def run_gelu(x):\n    return x\n")
