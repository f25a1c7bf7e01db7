#!/bin/sh
# /tmp/rt23-e/subs-{ctrl,hi,lo}: a_mallory (sender), b_eve (receiver), c_alice (honest), graded in that order
#   ctrl: the sender sends nothing (baseline); hi: bits 7..2 of v; lo: bits 5..0 of v
#   (v = the sign bits of the first 8 elements of softmax hidden_2's input, as one byte)
set -e
A=/work/redteam23/attacks/r23/sparetime; T=/tmp/rt23-e
rm -rf $T; for d in subs-ctrl subs-hi subs-lo; do
  mkdir -p $T/$d/a_mallory/student $T/$d/b_eve/student $T/$d/c_alice/student
  cp $A/sender_softmax.py $T/$d/a_mallory/student/softmax.py
  cp $A/receiver_softmax.py $T/$d/b_eve/student/softmax.py
  sed 's/^SEND = True/SEND = False/' $A/sender_softmax.py > $T/$d/c_alice/student/softmax.py
done
sed -i 's/^SEND = True/SEND = False/' $T/subs-ctrl/a_mallory/student/softmax.py
sed -i 's/^SHIFT, MASK = 2, 63/SHIFT, MASK = 0, 63/' $T/subs-lo/a_mallory/student/softmax.py
