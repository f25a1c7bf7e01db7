#!/usr/bin/env bash
# Row 2: a helper file whose name fits the file system (252 bytes + ".py") but not once made printable: intake's
# `printable` turns each U+202E (3 bytes) into the 6 characters "\u202e", and each C0 control (1 byte) into "\x01"
# (4), so the scratch copy's name is 507 (or 1011) bytes: os.write_bytes raises ENAMETOOLONG outside any
# SubmissionError, and the row is a grader error instead of graded (or rejected with a reason).
# usage: bash long_escaped_helper.sh OUT   (OUT/.honest from build.py)
set -u
OUT=$1
R=$OUT/a2
rm -rf "$R" "$R.db" && mkdir -p "$R"
cp -r "$OUT/.honest" "$R/alice"
cp -r "$OUT/.honest" "$R/mallory"
python3 - "$R/mallory/student" <<'PY'
import sys, os
d = sys.argv[1]
open(os.path.join(d, "\u202e" * 84 + ".py"), "w").write("X = 1\n")
PY
python3 - "$R/zed.zip" "$OUT/.honest/student" <<'PY'
import sys, zipfile, pathlib
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for p in sorted(pathlib.Path(sys.argv[2]).glob("*.py")):
        z.write(p, f"student/{p.name}")
    z.writestr("student/" + "\x01" * 252 + ".py", "X = 1\n")
PY
ls "$R"
python -m grader batch "$R" --jobs 2 --db "$R.db" --stage gelu
