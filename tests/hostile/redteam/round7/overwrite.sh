#!/usr/bin/env bash
# Round 7, break 1b: round 6's Student fix lets a learner overwrite a classmate's gradebook row.
# regrade.py's docstring: "A path that is itself one learner's submission (`batch SUBS/alice`, ...) grades that
# learner". Since 31c1e21, a folder holding student/ is "one submission" only if no sub-folder of it looks like one.
# mallory's folder holds her student/ and a folder named after a classmate (bob/student/gelu.py, wrong on purpose):
# the full batch grades her as one learner, but `batch SUBS/mallory` (the instructor regrading her alone) grades
# SUBS/mallory as a folder of submissions: "bob" (replacing bob's row) and "student".
# usage: bash overwrite.sh OUT   (from the clone's root, its venv active; OUT/.honest built by build.py)
set -u
OUT=$1
G="python -m grader"
rm -rf "$OUT/ow" "$OUT/ow.db" && mkdir -p "$OUT/ow"
for n in alice bob mallory; do cp -r "$OUT/.honest" "$OUT/ow/$n"; done
mkdir -p "$OUT/ow/mallory/bob/student" && printf 'def run_gelu(x):\n    return x * 0\n' > "$OUT/ow/mallory/bob/student/gelu.py"
$G batch "$OUT/ow" --jobs 2 --db "$OUT/ow.db" --stage gelu | tail -4
echo "--- the instructor regrades mallory alone"
$G batch "$OUT/ow/mallory" --jobs 2 --db "$OUT/ow.db" --stage gelu | tail -3
$G report --db "$OUT/ow.db" | grep -E "^  (alice|bob|mallory|student) "
# and the gradebook now remembers mallory's folder as the cohort's: the report's "regrade with" command names it
python3 -c "import sqlite3,sys; print(dict(sqlite3.connect(sys.argv[1]).execute('select key, value from meta').fetchall())['setting:submissions'])" "$OUT/ow.db"
