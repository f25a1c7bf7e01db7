#!/bin/bash
# Round 20: a hidden input from one learner's hidden call to a later learner's public feedback through the time
# stamps of the device nodes bubblewrap binds read-write into every jail.
# The batch runs in a private mount namespace whose /dev is a tmpfs of fresh nodes (mknod: same devices), so this
# demonstration stamps only those nodes, never the machine's own /dev (on a real grading machine the jail's nodes
# are the host's devtmpfs nodes, as attacks/probe_gelu.py shows).
# usage: devstamp.sh OUT   (as root, from /work/redteam20)
set -e
OUT=${1:-/tmp/rt20-ds}
A=/work/redteam20/attacks
rm -rf "$OUT"; mkdir -p "$OUT/subs"
for who in a_alice m1_mallory n_bob o_dan z_carol; do mkdir -p "$OUT/subs/$who/student"; done
cp $A/honest_conv1d.py "$OUT/subs/a_alice/student/conv1d.py"
cp $A/honest_conv1d.py "$OUT/subs/n_bob/student/conv1d.py"; cp $A/honest_conv1d.py "$OUT/subs/o_dan/student/conv1d.py"
cp $A/devstamp_sender_conv1d.py "$OUT/subs/m1_mallory/student/conv1d.py"
cp $A/devstamp_receiver_conv1d.py "$OUT/subs/z_carol/student/conv1d.py"
cd /work/redteam20
JOBS=${JOBS:-1} unshare -m --propagation private bash -c '
set -e
mount -t tmpfs -o mode=755 tmpfs /dev
mknod -m 666 /dev/null c 1 3; mknod -m 666 /dev/zero c 1 5; mknod -m 666 /dev/full c 1 7
mknod -m 666 /dev/random c 1 8; mknod -m 666 /dev/urandom c 1 9; mknod -m 666 /dev/tty c 5 0
mkdir /dev/shm /dev/pts; mount -t tmpfs tmpfs /dev/shm
ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr
stat -c "%n %y" /dev/full /dev/null
. .venv/bin/activate
python -m grader batch '"$OUT"'/subs --jobs '"$JOBS"' --stage conv1d --db '"$OUT"'/gb.sqlite --feedback '"$OUT"'/fb --lms '"$OUT"'/lms.csv
stat -c "%n %y" /dev/full /dev/null /dev/random /dev/urandom /dev/tty
'
