#!/bin/bash
# Round 24: a folder submission nested deeper than MAX_DEPTH (32) is refused while the batch plans (contents.digest),
# and batch.run records that refusal's message as it is, never scrubbed: the learner's feedback names the grading
# machine's folder (any path, ASCII too). Same for "holds more than 50000 files" and "cannot read".
# usage: deep_path_leak.sh   (from /work/redteam24, venv active)
set -e
W=/work/redteam24/attacks/r24
D=/tmp/rt24-q/prof-secret-course; rm -rf /tmp/rt24-q
mkdir -p $D/subs/bob/student $D/subs/mallory/student
cp $W/honest_gelu.py $D/subs/bob/student/gelu.py; cp $W/honest_gelu.py $D/subs/mallory/student/gelu.py
P=$D/subs/mallory/deep; for i in $(seq 1 40); do P=$P/d; done; mkdir -p $P
python -m grader batch $D/subs --jobs 1 --stage gelu --db /tmp/rt24-q/gb.sqlite --feedback /tmp/rt24-q/fb --lms /tmp/rt24-q/lms.csv
echo "--- mallory's feedback:"; cat /tmp/rt24-q/fb/mallory.txt
