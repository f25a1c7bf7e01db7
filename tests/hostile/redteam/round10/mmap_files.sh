#!/usr/bin/env bash
# Row 3: 480,000 open files from 8 processes of one call, RLIMIT_NOFILE 1024. usage: mmap_files.sh OUT
set -u
OUT=${1:-/tmp/rt10}
HERE=$(cd "$(dirname "$0")" && pwd)
python "$HERE/build.py" "$OUT" m3:alice: m3:mallory:gelu.py=mmap_files_gelu.py m3:carol:gelu.py=mmap_files_control_gelu.py >/dev/null
rm -f "$OUT/m3.db"
echo "file-nr before: $(cat /proc/sys/fs/file-nr)"
( while true; do cut -f1 /proc/sys/fs/file-nr; sleep 0.2; done > "$OUT/m3.filenr" ) & S=$!
python -m grader batch "$OUT/m3" --jobs 2 --db "$OUT/m3.db" --stage gelu 2>&1 | tail -4
kill $S
echo "file-nr after: $(cat /proc/sys/fs/file-nr); highest sampled during the batch: $(sort -n "$OUT/m3.filenr" | tail -1) (the machine's, other sessions included)"
for who in mallory carol; do
  echo "$who: $(python -m grader feedback $who --db "$OUT/m3.db" 2>&1 | grep -A1 'your code printed' | tail -1)"
done
