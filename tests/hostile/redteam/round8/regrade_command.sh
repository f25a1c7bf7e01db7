#!/usr/bin/env bash
# The cohort report's "Regrade them:" line is `python -m grader batch {folder} --db ...` with folder = the gradebook's
# `submissions` setting, unquoted (cohort.py). Round 2 row 20 held because that folder is the instructor's; after row 2
# (a learner's folder batched outside the cohort branch is recorded as the cohort), it is a learner-named folder.
# mallory's folder is named `mallory; echo PWNED-by-mallory #` (no slash needed) and holds a nested student/ and a
# planted bob/; the instructor grades her resubmission alone from a download folder; later rows are stale and the
# report prints a command that, pasted into a shell, runs hers.
# usage: bash regrade_command.sh OUT   (OUT/.honest built by build.py; run from the checkout under test)
set -u
OUT=$1
G="python -m grader"
rm -rf "$OUT/rc" "$OUT/rc.db" "$OUT/rc-dl" && mkdir -p "$OUT/rc" "$OUT/rc-dl"
for n in alice bob mallory; do cp -r "$OUT/.honest" "$OUT/rc/$n"; done
$G batch "$OUT/rc" --jobs 2 --db "$OUT/rc.db" --stage gelu | tail -1
M="$OUT/rc-dl/mallory; echo PWNED-by-mallory #"
mkdir -p "$M/work" && cp -r "$OUT/.honest/student" "$M/work/"
mkdir -p "$M/bob/x/y/student" && printf 'def run_gelu(x):\n    return x * 0\n' > "$M/bob/x/y/student/gelu.py"
$G batch "$M" --jobs 2 --db "$OUT/rc.db" --stage gelu --stage conv1d | tail -1
echo "--- report"
$G report --db "$OUT/rc.db" | grep -A1 -i "regrade" | tee "$OUT/rc.cmd"
echo "--- the printed command, pasted into a shell (bash -n: parsed, not run; then its separate commands)"
CMD=$(grep -o "python -m grader batch.*" "$OUT/rc.cmd" | head -1)
echo "$CMD"
bash -c "set -o noexec; $CMD" && echo "(parses as shell)"
python3 -c "import shlex,sys; print(shlex.split(sys.argv[1], comments=True))" "$CMD"
echo "--- pasted (the first command fails: that path does not exist; the second is mallory's)"
bash -c "$CMD" 2>&1 | tail -2
