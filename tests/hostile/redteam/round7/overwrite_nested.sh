#!/usr/bin/env bash
# Round 7, row 1c: main's fix for row 1b (4a24334: a folder that holds student/ and other submissions is refused)
# does not cover a learner whose own student/ is one level down. mallory: work/student/ (her code, graded normally in
# the full batch: intake takes the shallowest student/) and bob/x/y/student/gelu.py (wrong on purpose). Her folder
# does not "look like one" (nothing at its top), so `batch SUBS/mallory` is read as a folder of submissions, every
# sub-folder one (discover), and bob's row is replaced.
# usage: bash overwrite_nested.sh OUT [GRADER_CHECKOUT]   (OUT/.honest built by build.py; run from the checkout to test)
set -u
OUT=$1
G="python -m grader"
rm -rf "$OUT/ow3" "$OUT/ow3.db" && mkdir -p "$OUT/ow3/mallory/work"
for n in alice bob; do cp -r "$OUT/.honest" "$OUT/ow3/$n"; done
cp -r "$OUT/.honest/student" "$OUT/ow3/mallory/work/"
mkdir -p "$OUT/ow3/mallory/bob/x/y/student" && printf 'def run_gelu(x):\n    return x * 0\n' > "$OUT/ow3/mallory/bob/x/y/student/gelu.py"
$G batch "$OUT/ow3" --jobs 2 --db "$OUT/ow3.db" --stage gelu | tail -4
echo "--- the instructor regrades mallory alone"
$G batch "$OUT/ow3/mallory" --jobs 2 --db "$OUT/ow3.db" --stage gelu | tail -3
$G report --db "$OUT/ow3.db" | grep -E "^  (alice|bob|mallory|work) "
