#!/bin/sh
# Round 16 break 1: user.* xattrs on the grader's shared sealed input memfds.
# 3 pinners (200 MiB each, in their public gelu call) + a slow honest learner + a reader, --jobs 1.
# Watch SUnreclaim: the kernel memory stays after each pinner's jail has ended, and adds up, until the batch exits.
set -e
cd /work/redteam16 && . .venv/bin/activate
D=/tmp/rt16-pin; rm -rf $D; mkdir -p $D/subs
for s in a_pin1 a_pin2 a_pin3; do mkdir -p $D/subs/$s/student; sed 's/PINMB/200/g' round16/xattr_pin_gelu.py > $D/subs/$s/student/gelu.py; done
mkdir -p $D/subs/b_honest/student $D/subs/c_reader/student
cp round16/slow_honest_gelu.py $D/subs/b_honest/student/gelu.py
cp round16/xattr_read_gelu.py $D/subs/c_reader/student/gelu.py
(for i in $(seq 1 60); do echo "$(date +%T.%N | cut -c1-11) $(grep SUnreclaim /proc/meminfo)"; sleep 0.25; done) > $D/mem.log &
python -m grader batch $D/subs --stage gelu --db $D/g.sqlite --feedback $D/fb ${JOBS:+--jobs $JOBS} 2>&1 | while read l; do echo "$(date +%T.%N | cut -c1-11) $l"; done
wait
awk '{print $1, $3}' $D/mem.log | uniq -f1
grep -h "ERR  six\|^Score" $D/fb/*.txt | cut -c1-260
