#!/usr/bin/env bash
# Round 8: the rows of round8-findings.md that need no tmpfs or 20 GB sparse file: 5, 1, 1b, 3, 4, 2, 8, then the
# held rows 9-11 (about 2 minutes). Rows 6 and 7: mtime_tar.sh, sparse_venv.sh.
# usage: bash tests/hostile/redteam/round8/repro.sh [OUT]   (from the checkout under test, its venv active)
set -u
OUT=${1:-/tmp/rt8-verify}
H=tests/hostile/redteam/round8
G="python -m grader"
mkdir -p "$OUT"
python $H/build.py "$OUT" x:dummy: >/dev/null   # OUT/.honest: every stage's reference under the learner's names
echo "=== 5. a zip whose end record declares 1 entry and whose central directory lists 1,000,000"
rm -rf "$OUT/r1" "$OUT/r1.db" && mkdir -p "$OUT/r1" && cp -r "$OUT/.honest" "$OUT/r1/alice"
python $H/lying_count_zip.py "$OUT/r1/mallory.zip" 1000000 && ls -l "$OUT/r1/mallory.zip"
/usr/bin/time -f "wall %e s, peak RSS of the largest process %M KB" $G batch "$OUT/r1" --jobs 2 --db "$OUT/r1.db"
echo "=== 1. prlimit on the jail's resident (public call), beside alice and bob"
python $H/build.py "$OUT" r3:alice: r3:mallory:gelu.py=prlimit_resident_gelu.py r3:bob:
rm -f "$OUT/r3.db"; $G batch "$OUT/r3" --jobs 2 --db "$OUT/r3.db"
$G feedback mallory --db "$OUT/r3.db" | head -6
$G gradescope "$OUT/autograder.zip" >/dev/null
bash $H/run_gs.sh "$OUT/autograder.zip" "$OUT/r3/mallory" "$OUT/gs-m" >/dev/null 2>&1
python -c "import json,sys; d=json.load(open(sys.argv[1])); print('results.json:', d['score'], d['output'], len(d['tests']), 'tests')" "$OUT/gs-m/results/results.json"
echo "=== 1b. the same from a hidden call, by the sign bit of the hidden input (and the control, bit inverted)"
python $H/build.py "$OUT" r10:alice: r10:mallory:conv1d.py=prlimit_hidden_conv1d.py
rm -f "$OUT/r10.db"; $G batch "$OUT/r10" --jobs 2 --db "$OUT/r10.db" --stage gelu --stage conv1d --stage mlp
sed 's/and np.signbit(x.flat\[0\])/and not np.signbit(x.flat[0])/' $H/prlimit_hidden_conv1d.py > "$OUT/ctl_conv1d.py"
rm -rf "$OUT/r10c" "$OUT/r10c.db" && mkdir -p "$OUT/r10c" && cp -r "$OUT/.honest" "$OUT/r10c/mallory" && cp -r "$OUT/.honest" "$OUT/r10c/alice"
cp "$OUT/ctl_conv1d.py" "$OUT/r10c/mallory/student/conv1d.py"
$G batch "$OUT/r10c" --jobs 2 --db "$OUT/r10c.db" --stage gelu --stage conv1d --stage mlp
echo "=== 3. terminal escapes in a skipped entry's name"
bash $H/escape_name.sh "$OUT"
echo "=== 4. one learner graded alone: the id is not made printable"
bash $H/single_name.sh "$OUT"
echo "=== 2. round 7 row 1c against its fix: a relative cohort path, or a resubmission downloaded elsewhere"
bash $H/relative_cohort.sh "$OUT"
echo "=== 8. a bidi override in a submission's name"
rm -rf "$OUT/r8" "$OUT/r8.db" && mkdir -p "$OUT/r8" && cp -r "$OUT/.honest" "$OUT/r8/alice"
cp -r "$OUT/.honest" "$OUT/r8/$(printf 'x\u202essap lla 01')"
$G batch "$OUT/r8" --jobs 2 --db "$OUT/r8.db" --stage gelu --lms "$OUT/r8.lms" | cat -A
$G report --db "$OUT/r8.db" | grep -a ssap | cat -A; cat -A "$OUT/r8.lms"
echo "=== held: resident SIGINT, probe, key bloat (gelu only)"
python $H/build.py "$OUT" h:alice: h:sigint:gelu.py=sigint_resident_gelu.py h:probe:gelu.py=probe_gelu.py h:bloat:gelu.py=bloat_keys_gelu.py
rm -f "$OUT/h.db"; $G batch "$OUT/h" --jobs 2 --db "$OUT/h.db" --stage gelu
$G feedback probe --db "$OUT/h.db" | grep "^         |"
