#!/usr/bin/env bash
# Row 12: one submission, alone, makes its own row a grader error (blank LMS score) through the machine's file table.
# usage: own_error.sh OUT     Warning: for ~10 s every unprivileged process on the machine gets ENFILE.
set -u
OUT=${1:-/tmp/rt10b}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
D=$OUT/o6; rm -rf "$D" "$D.db"
python "$R9/build.py" "$OUT" o6:alice: o6:mallory:
cat "$HERE/own_error_conv1d.py" >> "$D/mallory/student/conv1d.py"
python -m grader batch "$D" --jobs 2 --db "$D.db"
python -m grader report --db "$D.db" --lms "$OUT/o6.lms" | tail -2
cat "$OUT/o6.lms"
