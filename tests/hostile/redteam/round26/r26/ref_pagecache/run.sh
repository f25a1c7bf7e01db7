#!/bin/sh
# Finding 15: the default course (upstream: reference). mallory's conv1d is wrong; her mlp, graded with conv1d's
# reference in the public phase, leaves the reference's `linear` in the page cache; her conv1d's HIDDEN calls read
# it back and use it. carol: the same conv1d (reading other windows), an mlp that sends nothing (control).
set -e
W=/tmp/rt26-ref; A=/work/redteam26/attacks/ref_pagecache
rm -rf $W; mkdir -p $W/subs/mallory/student $W/subs/carol/student $W/subs/alice/student
cp $A/honest_conv1d.py $W/subs/alice/student/conv1d.py; cp $A/honest_mlp.py $W/subs/alice/student/mlp.py  # honest
for n in mallory carol; do cp $A/chan.py $A/conv1d.py $A/mlp.py $W/subs/$n/student/; done
sed -i "s/^BASE = 0 /BASE = ${1:-0} /" $W/subs/mallory/student/chan.py
sed -i "s/^BASE = 0 /BASE = ${2:-290} /" $W/subs/carol/student/chan.py
if [ -n "$3" ]; then sed -i "s#^FILE = .*#FILE = \"$3\"#" $W/subs/*/student/chan.py; fi  # another never-read file
sed -i 's/            send(secret)/            pass  # control: sends nothing/' $W/subs/carol/student/mlp.py
cd /work/redteam26 && . .venv/bin/activate
python -m grader batch $W/subs --jobs ${JOBS:-1} --stage conv1d --stage mlp --db $W/gb.sqlite --feedback $W/fb --lms $W/lms.csv
cat $W/lms.csv
grep -H "conv1d:\|hidden [12] " $W/fb/*.txt
