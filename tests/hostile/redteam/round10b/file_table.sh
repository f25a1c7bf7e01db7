#!/usr/bin/env bash
# Row 2: one learner's jail fills the machine's file table (fs.file-max) through mappings; honest learners graded
# beside it get "error" rows (JailError: Too many open files in system). usage: file_table.sh OUT
# Warning: for ~20 s every unprivileged process on the machine gets ENFILE.
set -u
OUT=${1:-/tmp/rt10b}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
D=$OUT/f2; rm -rf "$D" "$D.db"
python "$R9/build.py" "$OUT" $(for n in bob carol dave erin frank gina hal ivan judy ken lena mike nora oscar; do echo -n "f2:$n: "; done) \
    f2:amallory:gelu.py=../round10b/file_table_gelu.py
echo "file-max: $(cat /proc/sys/fs/file-max)  vm.max_map_count: $(cat /proc/sys/vm/max_map_count)"
(for i in $(seq 1 150); do echo "$(date +%T.%N | cut -c1-10) $(cat /proc/sys/fs/file-nr)"; sleep 0.5; done > "$OUT/f2.filenr") &
MON=$!
python -m grader batch "$D" --jobs 2 --db "$D.db"
kill $MON 2>/dev/null
echo "peak /proc/sys/fs/file-nr (allocated, free, max): $(sort -k2 -n "$OUT/f2.filenr" | tail -1)"
python -m grader feedback amallory --db "$D.db" | grep -A2 "printed" | head -12
