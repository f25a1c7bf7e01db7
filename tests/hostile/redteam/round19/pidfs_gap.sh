#!/bin/sh
# Round 19: BREAK 2 with honest learners graded between sender and receiver. $1 = K, $2 = how many honest between.
set -e
cd /work/redteam19 && . .venv/bin/activate
D=/tmp/rt19-pgap-$1-$2; rm -rf $D; mkdir -p $D/subs/a_send/student $D/subs/z_recv/student
cp tests/hostile/redteam/round16/honest_gelu.py $D/subs/a_send/student/gelu.py
sed "s/^K = 0/K = $1/" round19/pidfs_send_conv1d.py > $D/subs/a_send/student/conv1d.py
cp round19/pidfs_common.py $D/subs/a_send/student/ ; cp round19/pidfs_common.py $D/subs/z_recv/student/
sed "s/^D0 = 0/D0 = ${3:-0}/" round19/pidfs_recv_gelu.py > $D/subs/z_recv/student/gelu.py
printf 'def run_conv1d(x, weight, bias):\n    return x @ weight + bias\n' > $D/subs/z_recv/student/conv1d.py
for i in $(seq 1 $2); do mkdir -p $D/subs/h$i/student; cp tests/hostile/redteam/round16/honest_gelu.py $D/subs/h$i/student/gelu.py
  cp $D/subs/z_recv/student/conv1d.py $D/subs/h$i/student/conv1d.py; done
python -m grader batch $D/subs --stage gelu --stage conv1d --db $D/g.sqlite --feedback $D/fb --jobs 1 2>&1 | grep -v "^wrote" | tail -8
grep -h "counter" $D/fb/z_recv.txt | head -1 | cut -c1-200
