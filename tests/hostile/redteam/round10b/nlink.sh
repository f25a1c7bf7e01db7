#!/usr/bin/env bash
# Row 1: a hidden input's bit from one jail to another through a shared fixture inode's link count. usage: nlink.sh OUT
set -u
OUT=${1:-/tmp/rt10b}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
for B in 1 0; do
  D=$OUT/n$B; rm -rf "$D" "$D.db"
  python "$R9/build.py" "$OUT" n$B:m1snd: n$B:m2rcv: n$B:zoe:
  sed "s/^BIT = 1/BIT = $B/" "$HERE/nlink_sender_checkpoint.py" >> "$D/m1snd/student/checkpoint.py"
  cat "$HERE/nlink_receiver_checkpoint.py" >> "$D/m2rcv/student/checkpoint.py"
  echo "== sender reads bit $B of hidden_1's layer (2 = 0b10)"
  python -m grader batch "$D" --jobs 2 --db "$D.db" --stage checkpoint
  python -m grader feedback m2rcv --db "$D.db" | grep -A8 "printed" | head -9
done
