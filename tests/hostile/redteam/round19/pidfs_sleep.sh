#!/bin/sh
# Round 19: pidfs counter channel via open_by_handle_at. a_send (hidden conv1d call), b_recv (public gelu call),
# h_honest after; --jobs 1. $1 = K (byte of conv1d hidden_2's x), $2 = D0 (receiver's calibration).
set -e
cd /work/redteam19 && . .venv/bin/activate
D=/tmp/rt19-pidfs-sl-$1; rm -rf $D; mkdir -p $D/subs/a_send/student $D/subs/b_recv/student $D/subs/h_honest/student
cp tests/hostile/redteam/round16/honest_gelu.py $D/subs/a_send/student/gelu.py
sed "s/^K = 0/K = $1/" round19/pidfs_send_conv1d.py > $D/subs/a_send/student/conv1d.py
cp round19/pidfs_common.py $D/subs/a_send/student/ ; cp round19/pidfs_common.py $D/subs/b_recv/student/
sed "s/^D0 = 0/D0 = ${2:-0}/" round19/pidfs_recv_sleep_gelu.py > $D/subs/b_recv/student/gelu.py
printf 'def run_conv1d(x, weight, bias):\n    return x @ weight + bias\n' > $D/subs/b_recv/student/conv1d.py
cp tests/hostile/redteam/round16/honest_gelu.py $D/subs/h_honest/student/gelu.py
cp $D/subs/b_recv/student/conv1d.py $D/subs/h_honest/student/conv1d.py
python -m grader batch $D/subs --stage gelu --stage conv1d --db $D/g.sqlite --feedback $D/fb --jobs 1 2>&1 | tail -5
grep -h "counter" $D/fb/b_recv.txt | head -1 | cut -c1-200
