#!/bin/sh
# Round 17 break 1: a message from one learner to one graded later (--jobs 1) in the huge-page state of the grader's
# sealed input copies. a_send collapses regions 0, 2, 3 of each 9 MiB public conv1d weight; c_recv reads them.
set -e
cd /work/redteam17 && . .venv/bin/activate
D=${D:-/tmp/rt17-a}; rm -rf $D; mkdir -p $D/subs/a_send/student $D/subs/b_honest/student $D/subs/c_recv/student
sed 's/MODE/send/' round17/thp_channel_conv1d.py > $D/subs/a_send/student/conv1d.py
sed 's/MODE/recv/' round17/thp_channel_conv1d.py > $D/subs/c_recv/student/conv1d.py
cp round17/honest_conv1d.py $D/subs/b_honest/student/conv1d.py
[ -n "$NOSEND" ] && rm -rf $D/subs/a_send
python -m grader batch $D/subs --stage conv1d --db $D/g.sqlite --feedback $D/fb ${JOBS:+--jobs $JOBS} 2>&1 | tail -5
grep -h "fd\|^Score" $D/fb/*.txt | cut -c1-200
