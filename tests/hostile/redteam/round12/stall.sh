#!/usr/bin/env bash
# Row 2: one learner's slow public pass (within its budget) stalls every other worker of the batch at its hidden
# pass. usage: stall.sh OUT
set -u
OUT=${1:-/tmp/rt12}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
D=$OUT/s1; rm -rf "$D" "$D.db"*
python "$R9/build.py" "$OUT" s1:a1mallory: s1:alice: s1:bob: s1:carol: s1:dave: s1:erin: s1:frank:
cat "$HERE/stall_gelu.py" >> "$D/a1mallory/student/gelu.py"
/usr/bin/time -f "batch wall %e s" python -m grader batch "$D" --jobs 2 --db "$D.db" --stage gelu --stage tokenizer
