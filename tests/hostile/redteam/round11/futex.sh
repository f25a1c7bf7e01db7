#!/usr/bin/env bash
# Row 2: hidden inputs carried from one jail (a hidden call) to another learner's public feedback through the kernel's
# futex queue of a shared read-only file (/usr/bin/env). usage: futex.sh OUT
set -u
OUT=${1:-/tmp/rt11}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
D=$OUT/f1; rm -rf "$D" "$D.db"*
python "$R9/build.py" "$OUT" f1:a1mallory: f1:a2carol: f1:alice: f1:bob:
cat "$HERE/futex_sender_checkpoint.py" >> "$D/a1mallory/student/checkpoint.py"
cat "$HERE/futex_receiver_checkpoint.py" >> "$D/a2carol/student/checkpoint.py"
python -m grader batch "$D" --jobs 2 --db "$D.db" --stage checkpoint
echo "== what a2carol (a public call, another learner's jail) read:"
python -m grader feedback a2carol --db "$D.db" | grep -A4 "words with waiters" | grep "|"
echo "== the hidden inputs (fixtures/checkpoint stage.yaml: hidden_1 layer 2, hidden_2 layer 3; x's first 8 bytes):"
python -c "import numpy as np; x=np.load('fixtures/checkpoint/hidden_2/x.npy'); print(x.tobytes()[:8].hex(), x.ravel()[:2])"
