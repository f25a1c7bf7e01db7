#!/usr/bin/env bash
# Round 11: every BROKEN row. usage: repro.sh [OUT]   (about 6 minutes; rows 1b and 12 leave ~3.5 GB of reclaimable dentries and a replaced kernel log)
set -u
OUT=${1:-/tmp/rt11-verify}
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/../../../.."
mkdir -p "$OUT"
python tests/hostile/redteam/round9/build.py "$OUT" x:dummy:
echo "######## rows 1, 1b: negative dentries outlive the jail"; bash "$HERE/dentries.sh" "$OUT"
echo "######## row 2: futex queue of a shared file";            bash "$HERE/futex.sh" "$OUT"
echo "######## row 3: Pss of a shared file in /proc/self/smaps"; bash "$HERE/pss.sh" "$OUT"
echo "######## row 12: the kernel log";                         bash "$HERE/oomlog.sh" "$OUT"
echo "######## row 3c: a page's referenced flag (one jail, a forked reader)"
D=$OUT/q1; rm -rf "$D" "$D.db"*
python tests/hostile/redteam/round9/build.py "$OUT" q1:alice: q1:probe:gelu.py=../round11/referenced_gelu.py
python -m grader batch "$D" --jobs 2 --db "$D.db" --stage gelu
python -m grader feedback probe --db "$D.db" | grep "another process"
