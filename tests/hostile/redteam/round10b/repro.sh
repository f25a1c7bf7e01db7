#!/usr/bin/env bash
# Round 10b: every row. usage: bash tests/hostile/redteam/round10b/repro.sh [OUT]   (about 4 minutes)
# Run from the repository's root with its venv active. Row 2 fills the machine's file table for ~20 s: every
# unprivileged process on the machine gets ENFILE meanwhile.
set -u
OUT=${1:-/tmp/rt10b}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
mkdir -p "$OUT"
python "$R9/build.py" "$OUT" x:dummy:

echo "=== recon: what a public call may do in the jail (probe_gelu.py, probe2_gelu.py)"
for P in probe probe2; do
  D=$OUT/$P; rm -rf "$D" "$D.db"
  python "$R9/build.py" "$OUT" $P:alice: $P:probe:gelu.py=../round10b/${P}_gelu.py
  python -m grader batch "$D" --jobs 2 --db "$D.db" --stage gelu
  python -m grader feedback probe --db "$D.db" | awk '/your code printed/{n++} n==1' | head -80
done

echo "=== row 1: a hidden bit through a shared fixture inode's st_nlink"
bash "$HERE/nlink.sh" "$OUT"

echo "=== row 3 (held): unix socket buffers are charged to the jail's memory cgroup"
D=$OUT/u1; rm -rf "$D" "$D.db"
python "$R9/build.py" "$OUT" u1:amallory:gelu.py=../round10b/unix_buffers_gelu.py u1:bob:
(for i in $(seq 1 30); do echo "$(date +%T) avail=$(awk '/MemAvailable/{print int($2/1024)}' /proc/meminfo)MB jails=$(for g in $(find /sys/fs/cgroup/memory -maxdepth 4 -name 'grader-jail-*' -type d 2>/dev/null); do echo -n "$(($(cat $g/memory.usage_in_bytes)/1048576))MB(kmem $(($(cat $g/memory.kmem.usage_in_bytes 2>/dev/null || echo 0)/1048576))) "; done)"; sleep 0.5; done) &
MON=$!
python -m grader batch "$D" --jobs 2 --db "$D.db" --stage gelu
wait $MON
python -m grader feedback amallory --db "$D.db" | grep -A1 "printed" | head -2

echo "=== row 12: one submission alone makes its own row an error"
bash "$HERE/own_error.sh" "$OUT"

echo "=== row 2e: row 2 at no cost to the attacker (tokenizer, right answers)"
bash "$HERE/file_table_tokenizer.sh" "$OUT"

echo "=== row 2: the machine's file table filled through mappings; honest learners beside it get error rows"
bash "$HERE/file_table.sh" "$OUT"
