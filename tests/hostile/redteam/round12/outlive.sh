#!/usr/bin/env bash
# Row 1: a hidden call's jail outlives the batch's phase lock; the next learner's public call reads its inputs.
# usage: outlive.sh OUT [control]   (control: the sender without its hidden-pass code: the receiver reads nothing)
set -u
OUT=${1:-/tmp/rt12}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
D=$OUT/o1${2:+-$2}; rm -rf "$D" "$D.db"*
python "$R9/build.py" "$OUT" "$(basename "$D"):a0alice:" "$(basename "$D"):a1mallory:" "$(basename "$D"):a2carol:" \
    "$(basename "$D"):bob:"
[ -z "${2:-}" ] && cat "$HERE/outlive_sender_tokenizer.py" >> "$D/a1mallory/student/tokenizer.py"
cat "$HERE/outlive_receiver_gelu.py" >> "$D/a2carol/student/gelu.py"
python -m grader batch "$D" --jobs 2 --db "$D.db" --stage gelu --stage tokenizer
echo "== what a2carol (her first public call, her own jail) printed:"
python -m grader feedback a2carol --db "$D.db" | grep -E "polls|hidden_2's ids" | head -4
echo "== tokenizer hidden_2's ids (stages/tokenizer/stage.yaml):"
grep -A6 "id: hidden_2" stages/tokenizer/stage.yaml | grep -A1 values
