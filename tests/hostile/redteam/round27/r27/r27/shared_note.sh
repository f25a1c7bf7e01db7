#!/bin/bash
# Round 27: the new "entries share the name" note (regrade.shared_names) counts and names entries differently from
# submissions.discover: discover strips .zip from ANY entry's name (a folder "alice.ZIP" too), shared_names only from
# a zip's. A folder "alice.ZIP" beside the real alice.zip takes "alice" from her (her row is "alice.zip"), and the note
# says "1 entries share the name alice ... (alice.zip)": the look-alike that caused it is not named.
# usage: bash attacks/r27/shared_note.sh   (as root, from /work/redteam27, venv active)
set -e
O=/tmp/rt27-c; rm -rf $O; mkdir -p $O/subs $O/z/student
cp /work/redteam27/attacks/honest/gelu.py $O/z/student/
(cd $O/z && python3 -c "import zipfile; z=zipfile.ZipFile('$O/subs/alice.zip','w'); z.write('student/gelu.py'); z.close()")
mkdir -p "$O/subs/alice.ZIP/student"
printf 'import numpy as np\ndef run_gelu(x):\n    return np.zeros_like(x)\n' > "$O/subs/alice.ZIP/student/gelu.py"
mkdir -p $O/subs/bob/student; cp $O/z/student/gelu.py $O/subs/bob/student/
python -m grader batch $O/subs --jobs 1 --stage gelu --db $O/gb.sqlite --feedback $O/fb --lms $O/lms.csv
cat $O/lms.csv
