#!/bin/bash
# Round 20: one learner's hidden prompt (generate hidden_1) in their own public feedback at the next grading, one
# hop, through the device nodes' stamps. Both batches run in one private mount namespace with a private /dev (see
# devstamp.sh). usage: devstamp_self.sh OUT (as root)
set -e
OUT=${1:-/tmp/rt20-self}
A=/work/redteam20/attacks
rm -rf "$OUT"; mkdir -p "$OUT/subs/a_alice/student" "$OUT/subs/m_mallory/student"
cp $A/devstamp_self_generate.py "$OUT/subs/m_mallory/student/generate.py"
cp $A/honest_conv1d.py "$OUT/subs/a_alice/student/conv1d.py"
cd /work/redteam20
unshare -m --propagation private bash -c '
set -e
mount -t tmpfs -o mode=755 tmpfs /dev
mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5; mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8; mknod -m 666 /dev/urandom c 1 9; mknod -m 666 /dev/tty c 5 0
mkdir /dev/shm /dev/pts; mount -t tmpfs tmpfs /dev/shm
ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
. .venv/bin/activate
for run in 1 2; do
  echo "=== grading $run"
  python -m grader batch '"$OUT"'/subs --jobs 1 --stage generate --force --db '"$OUT"'/gb.sqlite --feedback '"$OUT"'/fb$run
  grep "hidden prompt" '"$OUT"'/fb$run/m_mallory.txt || true
done
'
