#!/bin/sh
# Finding 12: one honest learner and the key flood, gelu only (7 public cases); as root, jailed.
# Prints the batch's peak RSS, the gradebook's size, each stored report's size and each feedback file's size.
set -e
cd /work/redteam26 && . .venv/bin/activate
W=/tmp/rt26-kf; rm -rf $W; mkdir -p $W/subs/alice/student $W/subs/mallory/student
cp attacks/base/gelu.py $W/subs/alice/student/; cp attacks/keyflood/gelu.py $W/subs/mallory/student/
/usr/bin/time -v python -m grader --root /work/redteam26 batch $W/subs --jobs 1 --stage gelu --db $W/gb.sqlite \
    --feedback $W/fb 2> $W/time.txt | tail -1
grep "Maximum resident" $W/time.txt
ls -l $W/gb.sqlite $W/fb
python -c "import sqlite3; print(sqlite3.connect('$W/gb.sqlite').execute('select id, length(report) from submissions').fetchall())"
