#!/usr/bin/env bash
# Red team round 10: every row. usage: bash tests/hostile/redteam/round10/repro.sh [OUT]  (from the repository, venv active)
# About 5 minutes. Row 1's part 2 runs the batch in a 1.5 GB memory cgroup (in_memory_cgroup.sh), standing in for
# the grading machine's RAM, so that the out-of-memory kill is shown without running this machine out of memory.
set -u
OUT=${1:-/tmp/rt10}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
echo "######## row 1: a bzip2 entry decompressed whole by zipfile before any cap ($(date -u +%T))"
bash "$HERE/bzip2_bomb.sh" "$OUT"
echo "######## row 2: PK\\x05\\x06 as the end record's offset: the entry count and the extra-field cap skipped ($(date -u +%T))"
bash "$HERE/sig_offset.sh" "$OUT"
echo "######## row 3: files held by mappings, past RLIMIT_NOFILE ($(date -u +%T))"
bash "$HERE/mmap_files.sh" "$OUT"
echo "######## done ($(date -u +%T))"
