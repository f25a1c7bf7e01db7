"""Unit-level view of round 33's --times findings: the names read_times keeps vs the ids discover gives."""
import sys, tempfile
from pathlib import Path
sys.path.insert(0, "/work/redteam33")
from grader.instructor import late
from grader.instructor.intake import printable

names = ["mallory ", "\u00a0nbsp\u00a0", "ideo\u3000", "al\u200bice", "mal\x1b[2J"]
with tempfile.TemporaryDirectory() as d:
    f = Path(d) / "times.csv"
    import csv
    with open(f, "w", newline="") as fh:
        w = csv.writer(fh); w.writerow(["submission", "submitted_at"])
        for n in names:
            w.writerow([n, "2025-01-03T12:00+00:00"])
    read = late.read_times(f)
for n in names:
    ident = printable(n)
    print(f"name {n!r:24} id {ident!r:26} read_times key matches id: {ident in read}")
