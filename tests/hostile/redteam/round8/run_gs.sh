#!/usr/bin/env bash
# usage: run_gs.sh BUNDLE SUBMISSION_DIR(holding student/) OUTROOT : lays out /autograder and runs run_autograder
set -eu
B=$1; S=$2; R=$3
rm -rf "$R"; mkdir -p "$R/source" "$R/results"
python3 - "$B" "$R" <<'PY'
import sys, zipfile, pathlib
b, r = sys.argv[1], pathlib.Path(sys.argv[2])
with zipfile.ZipFile(b) as zf:
    zf.extractall(r / "source")
    for i in zf.infolist():
        (r / "source" / i.filename).chmod((i.external_attr >> 16) & 0o777)
PY
cp -r "$S" "$R/submission"
AUTOGRADER_ROOT="$R" AUTOGRADER_PYTHON="$(command -v python)" "$R/source/run_autograder"

