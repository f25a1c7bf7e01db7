#!/bin/sh
# Variant: the sender ends its jail in its last public call (os._exit: that case is lost), so its hidden pass
# adopts the spare and the NEXT spare starts when its hidden pass begins: the receiver's jail's age is then the
# hidden pass's length. 8 bits at 35 ms a level; ctrl = the same sender with SEND = False (also exits? no: baseline).
set -e
A=/work/redteam23/attacks/r23/sparetime; T=/tmp/rt23-g
rm -rf $T; for d in ctrl send; do
  mkdir -p $T/$d/a_mallory/student $T/$d/b_eve/student $T/$d/c_alice/student
  cp $A/sender2_softmax.py $T/$d/a_mallory/student/softmax.py
  cp $A/receiver_softmax.py $T/$d/b_eve/student/softmax.py
  sed 's/^SEND = True/SEND = False/' $A/sender_softmax.py > $T/$d/c_alice/student/softmax.py
done
sed -i 's/^        time.sleep(STEP \* ((v >> SHIFT) \& MASK))/        pass/' $T/ctrl/a_mallory/student/softmax.py
cd /work/redteam23 && . .venv/bin/activate
for d in ctrl send; do
  echo "== $d"
  python -m grader batch $T/$d --jobs 1 --stage softmax --db $T/gb-$d.sqlite --feedback $T/fb-$d 2>&1 | grep "^\["
  grep SPARE $T/fb-$d/b_eve.txt
done
