#!/usr/bin/env bash
# One learner's folder graded alone (regrade.py: "A path that is itself one learner's submission grades that learner")
# outside the cohort branch of regrade.plan (a fresh gradebook here; also a relative cohort path run from another
# folder, or a resubmission downloaded elsewhere): survey() names it path.resolve().name, not intake.printable(...).
# A folder name that is not UTF-8 stops the batch with the grader's own traceback (the gradebook cannot hold a lone
# surrogate, and _record's fallback error row has the same id); a name with terminal escapes reaches the terminal raw.
# The same folders in a cohort batch are named printably (mal\xfflory, eve\x1b[2K...).
# usage: bash single_name.sh OUT   (OUT/.honest built by build.py; run from the checkout under test)
set -u
OUT=$1
rm -rf "$OUT/sn" "$OUT"/sn*.db && mkdir -p "$OUT/sn"
cp -r "$OUT/.honest" "$OUT/sn/alice"
python3 -c "
import os, shutil, sys
shutil.copytree(sys.argv[1] + '/.honest', os.fsdecode(os.fsencode(sys.argv[1]) + b'/sn/mal\xfflory'))
shutil.copytree(sys.argv[1] + '/.honest', sys.argv[1] + '/sn/eve\x1b[2K\x1b[1A')
" "$OUT"
echo "--- the cohort: every name printable"
python -m grader batch "$OUT/sn" --jobs 2 --db "$OUT/sn.db" --stage gelu 2>&1 | cat -A
echo "--- mallory alone, into a fresh gradebook"
python -m grader batch "$(printf "$OUT/sn/mal\xfflory")" --jobs 2 --db "$OUT/sn1.db" --stage gelu 2>&1 | tail -3 | cat -A
echo "rc=${PIPESTATUS[0]}"
echo "--- eve alone"
python -m grader batch "$(printf "$OUT/sn/eve\x1b[2K\x1b[1A")" --jobs 2 --db "$OUT/sn2.db" --stage gelu 2>&1 | cat -A
echo "--- mallory's resubmission, downloaded elsewhere, regraded alone into the cohort's gradebook"
mkdir -p "$OUT/sn-dl" && python3 -c "
import os, shutil, sys
shutil.copytree(sys.argv[1] + '/.honest', os.fsdecode(os.fsencode(sys.argv[1]) + b'/sn-dl/mal\xfflory'), dirs_exist_ok=True)
" "$OUT"
python -m grader batch "$(printf "$OUT/sn-dl/mal\xfflory")" --jobs 2 --db "$OUT/sn.db" --stage gelu 2>&1 | tail -1 | cat -A
echo "rc=${PIPESTATUS[0]}"
python -m grader report --db "$OUT/sn.db" | grep -aE "^  (alice|eve|mal)" | cat -A
