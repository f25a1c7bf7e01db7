#!/bin/bash
# Round 24: round 19's break 3 ("a decomposed twin took a learner's id"), fixed by numbering twins café~1 / café~2,
# is still reachable when the real learner submitted a zip and the twin is a folder: `discover` compares the zip's
# stem, finds the clash, then gives each its *whole* name, and "café.zip" != "café" (the folder's NFC'd name), so
# the decomposed folder keeps the plain id the LMS knows.
# usage: nfd_takes_row.sh   (from /work/redteam24, venv active)
set -e
W=/work/redteam24/attacks/r24
O=/tmp/rt24-k7; rm -rf $O; N=$(printf 'cafe\u0301')
mkdir -p $O/src/student "$O/subs/$N/student" $O/subs/bob/student
cp $W/honest_gelu.py $O/src/student/gelu.py
(cd $O/src && python -c "import zipfile; z = zipfile.ZipFile('../subs/caf\u00e9.zip', 'w'); z.write('student/gelu.py'); z.close()")
cp $W/honest_gelu.py $O/subs/bob/student/gelu.py
printf 'import numpy as np\ndef run_gelu(x):\n    return np.zeros_like(x)\n' > "$O/subs/$N/student/gelu.py"
ls $O/subs | od -c | head -3
python -m grader batch $O/subs --jobs 1 --stage gelu --db $O/gb.sqlite --feedback $O/fb --lms $O/lms.csv
cat $O/lms.csv; ls $O/fb
