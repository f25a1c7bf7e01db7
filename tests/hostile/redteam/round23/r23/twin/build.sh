#!/bin/sh
# Round 23: a folder named like another learner's zip (bob/ beside bob.zip) takes the plain id the LMS knows.
set -e
R=/work/redteam23; T=/tmp/rt23-d; rm -rf $T; mkdir -p $T/subs/alice/student $T/bobsrc/student
GOOD=$R/stages/gelu/reference.py
cat > $T/subs/alice/student/gelu.py <<'PY'
import numpy as np
def run_gelu(x):
    x = np.asarray(x)
    return (0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))).astype(x.dtype)
PY
cp $T/subs/alice/student/gelu.py $T/bobsrc/student/
(cd $T/bobsrc && python3 -m zipfile -c $T/subs/bob.zip student)
cd $R && . .venv/bin/activate
python -m grader batch $T/subs --jobs 1 --stage gelu --db $T/gb.sqlite --feedback $T/fb --lms $T/lms1.csv
mkdir -p $T/subs/bob/student
printf 'import numpy as np\ndef run_gelu(x):\n    return np.zeros_like(np.asarray(x))\n' > $T/subs/bob/student/gelu.py
python -m grader batch $T/subs --jobs 1 --stage gelu --db $T/gb.sqlite --feedback $T/fb --lms $T/lms2.csv
echo "--- lms1"; cat $T/lms1.csv; echo "--- lms2"; cat $T/lms2.csv; ls $T/fb; head -4 $T/fb/bob.txt
