#!/bin/sh
# Round 18: the shmino channel (see FINDINGS.md). a_send (a hidden conv1d call sets the machine-wide number), b_recv
# (its first public gelu call reads it), h_honest after; --jobs 1. $1 = K, the byte of hidden_2's x to send.
set -e
cd /work/redteam18 && . .venv/bin/activate
D=/tmp/rt18-shm-$1; rm -rf $D; mkdir -p $D/subs
mkdir -p $D/subs/a_send/student $D/subs/b_recv/student $D/subs/h_honest/student
cp tests/hostile/redteam/round16/honest_gelu.py $D/subs/a_send/student/gelu.py
sed "s/^K = 0/K = $1/" round18/shmino_send_conv1d.py > $D/subs/a_send/student/conv1d.py
sed "s/^D0 = 0/D0 = ${2:-0}/" round18/shmino_recv_gelu.py > $D/subs/b_recv/student/gelu.py
printf 'def run_conv1d(x, weight, bias):\n    return x @ weight + bias\n' > $D/subs/b_recv/student/conv1d.py
cp tests/hostile/redteam/round16/honest_gelu.py $D/subs/h_honest/student/gelu.py
cp $D/subs/b_recv/student/conv1d.py $D/subs/h_honest/student/conv1d.py
python -m grader batch $D/subs --stage gelu --stage conv1d --db $D/g.sqlite --feedback $D/fb --jobs 1 2>&1 | tail -5
grep -h "shm inos" $D/fb/b_recv.txt | head -2 | cut -c1-200
