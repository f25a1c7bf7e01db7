#!/usr/bin/env bash
# Row 3: one submission holds two jails' memory caps at once (its main jail and a references jail).
# usage: twojails.sh OUT
set -u
OUT=${1:-/tmp/rt12}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
D=$OUT/t1; rm -rf "$D" "$D.db"*
python "$R9/build.py" "$OUT" t1:mallory:
cat "$HERE/twojails_conv1d.py" >> "$D/mallory/student/conv1d.py"
cat "$HERE/twojails_mlp.py" >> "$D/mallory/student/mlp.py"
bash "$HERE/memsample.sh" & S=$!
python -m grader batch "$D" --jobs 2 --db "$D.db" --stage conv1d --stage mlp
kill -TERM $S; wait $S
