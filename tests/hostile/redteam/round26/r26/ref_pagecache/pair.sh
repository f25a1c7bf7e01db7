#!/bin/sh
# Finding 15 across learners: neither holds a working conv1d. mallory (graded first) fails conv1d; her mlp, graded
# with conv1d's reference, leaves `linear` in the page cache. zed (graded after her) submits only the receiving
# conv1d: all of his conv1d cases, public and hidden, use the reference.
set -e
W=/tmp/rt26-pair; A=/work/redteam26/attacks/ref_pagecache
F=${2:-/usr/lib/jvm/temurin-25-jdk-amd64/lib/modules}
rm -rf $W; mkdir -p $W/subs/mallory/student $W/subs/zed/student $W/subs/alice/student
cp $A/honest_conv1d.py $W/subs/alice/student/conv1d.py; cp $A/honest_mlp.py $W/subs/alice/student/mlp.py
cp $A/chan.py $A/conv1d.py $A/mlp.py $W/subs/mallory/student/
cp $A/chan.py $A/conv1d.py $W/subs/zed/student/
for n in mallory zed; do
  sed -i "s/^BASE = 0 /BASE = ${1:-1800} /; s#^FILE = .*#FILE = \"$F\"#" $W/subs/$n/student/chan.py
done
cd /work/redteam26 && . .venv/bin/activate
python -m grader batch $W/subs --jobs 1 --stage conv1d --stage mlp --db $W/gb.sqlite --feedback $W/fb --lms $W/lms.csv
cat $W/lms.csv
grep -H "conv1d:" $W/fb/*.txt
