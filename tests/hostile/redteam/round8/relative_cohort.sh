#!/usr/bin/env bash
# Round 7 row 1c against its fix (845ee11): the fix recognises "one learner of the cohort" by comparing the path's
# parent with the gradebook's `submissions` setting, which batch stores as the instructor typed it. A cohort batch run
# with a relative SUBMISSIONS path (from the folder that holds it, `--root COURSE`), then the instructor's regrade of
# mallory alone by an absolute path from the course folder: `Path("ow8").resolve()` is now under the course folder,
# the comparison fails, survey() reads mallory's folder as a folder of submissions, and bob's row is replaced.
# usage: bash relative_cohort.sh OUT   (OUT/.honest built by build.py; run from the checkout under test)
set -u
OUT=$1
COURSE=$(pwd)
G="python -m grader"
rm -rf "$OUT/ow8" "$OUT/ow8.db" && mkdir -p "$OUT/ow8/mallory/work"
for n in alice bob; do cp -r "$OUT/.honest" "$OUT/ow8/$n"; done
cp -r "$OUT/.honest/student" "$OUT/ow8/mallory/work/"
mkdir -p "$OUT/ow8/mallory/bob/x/y/student" && printf 'def run_gelu(x):\n    return x * 0\n' > "$OUT/ow8/mallory/bob/x/y/student/gelu.py"
(cd "$OUT" && $G --root "$COURSE" batch ow8 --jobs 2 --db ow8.db --stage gelu | tail -4)
echo "--- the instructor regrades mallory alone, from the course folder, by her absolute path"
$G batch "$OUT/ow8/mallory" --jobs 2 --db "$OUT/ow8.db" --stage gelu | tail -3
$G report --db "$OUT/ow8.db" | grep -E "^  (alice|bob|mallory|work) "
echo "=== variant: the cohort path is absolute; mallory's resubmission is downloaded elsewhere and regraded alone"
rm -rf "$OUT/ow8b" "$OUT/ow8b.db" "$OUT/dl" && mkdir -p "$OUT/ow8b" "$OUT/dl"
for n in alice bob mallory; do cp -r "$OUT/.honest" "$OUT/ow8b/$n"; done
$G batch "$OUT/ow8b" --jobs 2 --db "$OUT/ow8b.db" --stage gelu | tail -1
mkdir -p "$OUT/dl/mallory/work" && cp -r "$OUT/.honest/student" "$OUT/dl/mallory/work/"
mkdir -p "$OUT/dl/mallory/bob/x/y/student" && printf 'def run_gelu(x):\n    return x * 0\n' > "$OUT/dl/mallory/bob/x/y/student/gelu.py"
$G batch "$OUT/dl/mallory" --jobs 2 --db "$OUT/ow8b.db" --stage gelu | tail -3
$G report --db "$OUT/ow8b.db" | grep -E "^  (alice|bob|mallory|work) "
