#!/usr/bin/env bash
# Rows 1 and 1b: negative dentries made from a jail outlive it, charged to the grader's own memory group.
# usage: dentries.sh OUT   (prints the host's dentry-state and the grader group's kmem before, during and after;
# row 1b leaves ~3.5 GB of reclaimable dentries in the machine's cache: the kernel frees them under pressure)
set -u
OUT=${1:-/tmp/rt11}
HERE=$(cd "$(dirname "$0")" && pwd)
R9=$HERE/../round9
G=/sys/fs/cgroup/memory$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
snap() { echo "$(date +%T) dentry-state: $(cat /proc/sys/fs/dentry-state | tr '\t' ' ') | grader group kmem $(( $(cat $G/memory.kmem.usage_in_bytes 2>/dev/null || echo 0) >> 20 )) MiB | memory cgroups $(awk '$1=="memory"{print $3}' /proc/cgroups)"; }
for ROW in d1 d2; do
  D=$OUT/$ROW; rm -rf "$D" "$D.db"*
  if [ $ROW = d1 ]; then F=dentries_gelu.py; else F=dentries_crash_gelu.py; fi
  python "$R9/build.py" "$OUT" $ROW:alice: $ROW:bob: $ROW:carol: $ROW:mallory:gelu.py=../round11/$F
  echo "== row $ROW ($F)"; snap
  ( while true; do snap; sleep 3; done ) & SP=$!
  python -m grader batch "$D" --jobs 2 --db "$D.db" --stage gelu
  sleep 3; kill $SP; wait $SP 2>/dev/null
  echo "-- after the batch (every jail ended):"; snap
done
