#!/bin/sh
# Finding 14: under `upstream: own`, the references run of a stage's retry hands the reference's text to a LATER
# public case of the same learner, within one grading, through page-cache residency of a never-read /usr file
# (fault-around + /proc/self/pagemap, round 17's reader). carol: the same files, sending nothing (control).
set -e
W=/tmp/rt26-own; A=/work/redteam26/attacks/own_pagecache
mkdir -p $W/course && cd $W/course
sed 's/^title: Build your own GPT-2/title: Build your own GPT-2\nupstream: own/' /work/redteam26/course.yaml > course.yaml
for d in stages common fixtures student; do ln -sfn /work/redteam26/$d $d; done
cd $W && rm -rf subs gb.sqlite fb lms.csv
for n in carol mallory; do mkdir -p subs/$n/student; cp $A/chan.py $A/conv1d.py $A/mlp.py $A/layernorm.py subs/$n/student/; done
# each run needs windows of the file no run has touched: pass BASE for mallory and carol (default 60 and 100)
sed -i "s/^BASE = 60 /BASE = ${1:-60} /" subs/mallory/student/chan.py
sed -i "s/^BASE = 60 /BASE = ${2:-100} /" subs/carol/student/chan.py
sed -i 's/        send(_secret())/        pass  # control: sends nothing/' subs/carol/student/mlp.py
. /work/redteam26/.venv/bin/activate
python -m grader --root $W/course batch subs --jobs 1 --stage conv1d --stage mlp --stage layernorm --db gb.sqlite \
    --feedback fb --lms lms.csv
grep -H "received\|fails only because" fb/*.txt | cut -c1-200
