#!/bin/bash
# Round 24: a Kelvin-sign name (U+212A) is NFC-normalised by intake.printable into plain ASCII "K...", so
#  (1) "\u212aevin" beside "kevin": kevin's feedback file moves (kevin.txt -> kevin~<hash>.txt), which SECURITY.md
#      and round 20's fix say a Kelvin look-alike cannot do (their test calls file_names() on the raw name);
#  (2) "\u212aate" beside "Kate": the real Kate loses her plain id (Kate~1 / Kate~2; no "Kate" line in the LMS CSV).
# usage: kelvin.sh   (as root, from /work/redteam24, venv active)
set -e
W=/work/redteam24/attacks/r24
for case in kevin Kate; do
  O=/tmp/rt24-kelvin-$case; rm -rf $O
  K=$(printf '\u212a')${case:1}
  mkdir -p "$O/subs/$case/student" "$O/subs/$K/student" "$O/subs/bob/student"
  cp $W/honest_gelu.py "$O/subs/$case/student/gelu.py"; cp $W/honest_gelu.py "$O/subs/bob/student/gelu.py"
  printf 'import numpy as np\ndef run_gelu(x):\n    return np.zeros_like(x)\n' > "$O/subs/$K/student/gelu.py"
  python -m grader batch $O/subs --jobs 1 --stage gelu --db $O/gb.sqlite --feedback $O/fb --lms $O/lms.csv
  echo "--- lms.csv"; cat $O/lms.csv; echo "--- feedback files"; ls $O/fb
done
