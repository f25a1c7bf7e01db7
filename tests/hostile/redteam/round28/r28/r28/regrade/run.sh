#!/bin/sh
# Round 28: round 26's page-cache carrier of a reference, into the SAME learner's NEXT grading (no colluder).
# mallory: wrong conv1d (no bias) that reads the page cache (chan.py receive) in every call; mlp (graded with
# conv1d's reference, last) leaves the reference's `linear` in the page cache of a never-read /usr file.
# carol: the same, but her mlp sends nothing (control). alice: honest. Batch 1, then batch 2 (a regrade, --force).
# usage: sh run.sh BASE_mallory BASE_carol   (windows of FILE no run has touched; 86 windows each)
set -e
W=/tmp/rt28-rg; A=/work/redteam28/attacks/r28/regrade
rm -rf $W; mkdir -p $W/subs/mallory/student $W/subs/carol/student $W/subs/alice/student
cp $A/honest_conv1d.py $W/subs/alice/student/conv1d.py; cp $A/honest_mlp.py $W/subs/alice/student/mlp.py
for n in mallory carol; do cp $A/chan.py $A/conv1d.py $A/mlp.py $W/subs/$n/student/; done
sed -i "s/^BASE = 0 /BASE = ${1:-100} /" $W/subs/mallory/student/chan.py
sed -i "s/^BASE = 0 /BASE = ${2:-600} /" $W/subs/carol/student/chan.py
sed -i 's/            send(secret)/            pass  # control: sends nothing/' $W/subs/carol/student/mlp.py
cd /work/redteam28 && . .venv/bin/activate
for b in 1 2; do
  echo "== batch $b"
  python -m grader batch $W/subs --jobs 1 --force --stage conv1d --stage mlp --db $W/gb.sqlite --feedback $W/fb$b --lms $W/lms$b.csv
  cat $W/lms$b.csv
  grep -H "conv1d:\|hidden [12] \|received\|small_2x3" $W/fb$b/mallory.txt $W/fb$b/carol.txt || true
done
