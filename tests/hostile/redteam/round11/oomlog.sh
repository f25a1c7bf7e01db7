#!/usr/bin/env bash
# Row 12: one public call's memory-group OOM kills replace the machine's whole kernel log. usage: oomlog.sh OUT
set -u
OUT=${1:-/tmp/rt11}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
D=$OUT/k1; rm -rf "$D" "$D.db"*
python "$R9/build.py" "$OUT" k1:alice: k1:bob: k1:mallory:gelu.py=../round11/oomlog_gelu.py
B=$(dmesg | wc -l); K0=$(dmesg | grep -c "Killed process"); FIRST0=$(dmesg | head -1 | cut -c1-16)
python -m grader batch "$D" --jobs 2 --db "$D.db" --stage gelu
echo "kernel log: $B -> $(dmesg | wc -l) lines; 'Killed process' lines $K0 -> $(dmesg | grep -c 'Killed process');" \
     "oldest line $FIRST0 -> $(dmesg | head -1 | cut -c1-16) (uptime now $(cut -d' ' -f1 /proc/uptime))"
