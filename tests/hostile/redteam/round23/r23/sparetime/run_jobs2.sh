#!/bin/sh
# --jobs 2: a_mallory (sender, bits 7..2 of v at 0.15 s a level), b_eve1..3 (receivers), c_alice (honest)
set -e
A=/work/redteam23/attacks/r23/sparetime; T=/tmp/rt23-h
rm -rf $T; mkdir -p $T/subs/a_mallory/student $T/subs/c_alice/student
cp $A/sender_softmax.py $T/subs/a_mallory/student/softmax.py
sed 's/^SEND = True/SEND = False/' $A/sender_softmax.py > $T/subs/c_alice/student/softmax.py
for i in 1 2 3; do mkdir -p $T/subs/b_eve$i/student; cp $A/receiver_softmax.py $T/subs/b_eve$i/student/softmax.py; done
cd /work/redteam23 && . .venv/bin/activate
python -m grader batch $T/subs --jobs 2 --stage softmax --db $T/gb.sqlite --feedback $T/fb 2>&1 | grep "^\["
grep -H SPARE $T/fb/b_eve*.txt | sed 's/.*fb.//'
