#!/bin/sh
# Finding 15, scaled: mallory has NO attention of her own (zeros); her block, graded with the references of
# layernorm, attention and mlp, leaves the whole cut (softmax, linear, attention, mha: 1,580 bytes = 12,640 pages of
# a JDK's lib/modules) in the page cache; her attention's hidden calls read it back and pass. carol: control.
set -e
W=/tmp/rt26-mha; A=/work/redteam26/attacks/ref_pagecache/mha
rm -rf $W; mkdir -p $W/subs/mallory/student $W/subs/carol/student
for n in mallory carol; do cp $A/chan.py $A/attention.py $A/block.py $W/subs/$n/student/; done
sed -i "s/^BASE = 900 /BASE = ${1:-900} /" $W/subs/mallory/student/chan.py
sed -i "s/^BASE = 900 /BASE = ${2:-0} /" $W/subs/carol/student/chan.py
sed -i "s#^FILE = .*#FILE = \"${3:-/usr/lib/jvm/java-17-openjdk-amd64/lib/modules}\"#" $W/subs/carol/student/chan.py  # untouched
sed -i 's/            send(secret)/            pass  # control: sends nothing/' $W/subs/carol/student/block.py
cd /work/redteam26 && . .venv/bin/activate
python -m grader batch $W/subs --jobs ${JOBS:-1} --stage attention --stage block --db $W/gb.sqlite --feedback $W/fb --lms $W/lms.csv
cat $W/lms.csv
grep -H "attention:\|hidden [12] \|block:" $W/fb/*.txt
