#!/bin/sh
# Finding 15 without /proc/self/pagemap: the receiver counts major faults (getrusage) page by page, once, in its
# hidden calls only (an input shape the handout's public cases do not have). Fresh files/windows per run.
set -e
W=/tmp/rt26-mf; A=/work/redteam26/attacks/ref_pagecache/majflt
rm -rf $W; mkdir -p $W/subs/mallory/student $W/subs/carol/student
for n in mallory carol; do cp $A/chan.py $A/conv1d.py $A/mlp.py $W/subs/$n/student/; done
sed -i "s/^BASE = 0 /BASE = ${1:-10} /; s#^FILE = .*#FILE = \"${3:-/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus}\"#" $W/subs/mallory/student/chan.py
sed -i "s/^BASE = 0 /BASE = ${2:-10} /; s#^FILE = .*#FILE = \"${4:-/usr/lib/gcc/x86_64-linux-gnu/12/cc1}\"#" $W/subs/carol/student/chan.py
sed -i 's/            send(secret)/            pass  # control/' $W/subs/carol/student/mlp.py
cd /work/redteam26 && . .venv/bin/activate
python -m grader batch $W/subs --jobs 1 --stage conv1d --stage mlp --db $W/gb.sqlite --feedback $W/fb --lms $W/lms.csv
cat $W/lms.csv; grep -H "conv1d:" $W/fb/*.txt
