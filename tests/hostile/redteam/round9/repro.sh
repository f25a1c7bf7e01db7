#!/usr/bin/env bash
# Round 9: every row of round9-findings.md that needs a run (about 2 minutes; the Gradescope bundle adds ~1 minute).
# usage: bash tests/hostile/redteam/round9/repro.sh [OUT]   (from the checkout under test, its venv active)
set -u
OUT=${1:-/tmp/rt9-verify}
H=tests/hostile/redteam/round9
G="python -m grader"
mkdir -p "$OUT"
python $H/build.py "$OUT" x:dummy: >/dev/null   # OUT/.honest: every stage's reference under the learner's names
cohort() {  # cohort NAME learner...: fresh OUT/NAME holding honest copies of each learner
  local d="$OUT/$1"; shift; rm -rf "$d" "$d.db"; mkdir -p "$d"
  for n in "$@"; do cp -r "$OUT/.honest" "$d/$n"; done
}
gs() {  # gs SUBMISSION_DIR TAG: the Gradescope bundle's run_autograder on one submission, results.json summarised
  bash tests/hostile/redteam/round8/run_gs.sh "$OUT/autograder.zip" "$1" "$OUT/gs-$2" >/dev/null 2>&1
  python -c "import json,sys; d=json.load(open(sys.argv[1])); print('results.json:', d.get('score'), repr(d['output'][:150]), len(d.get('tests', [])), 'tests')" "$OUT/gs-$2/results/results.json"
}
[ -f "$OUT/autograder.zip" ] || $G gradescope "$OUT/autograder.zip" >/dev/null

echo "=== 1. a text answer holding code point 0x110000 (tokenizer's run_bpe_decode), beside alice"
cohort a1 alice mallory
cat $H/bad_codepoint_tokenizer.py >> "$OUT/a1/mallory/student/tokenizer.py"
$G batch "$OUT/a1" --jobs 2 --db "$OUT/a1.db" --stage tokenizer
gs "$OUT/a1/mallory" a1

echo "=== 1b. the same only in the hidden decode call, when the hidden ids' first element is even (carol: odd)"
cohort a1b alice mallory carol
cat $H/bad_codepoint_hidden_tokenizer.py >> "$OUT/a1b/mallory/student/tokenizer.py"
sed 's/^BIT = 0/BIT = 1/' $H/bad_codepoint_hidden_tokenizer.py >> "$OUT/a1b/carol/student/tokenizer.py"
$G batch "$OUT/a1b" --jobs 2 --db "$OUT/a1b.db" --stage tokenizer

echo "=== 2. a helper whose name fits the file system but not once made printable (folder and zip), beside alice"
bash $H/long_escaped_helper.sh "$OUT" 2>&1 | cut -c1-200
gs "$OUT/a2/mallory" a2

echo "=== 3. a start frame one past the job's last call (gelu), beside alice"
python $H/build.py "$OUT" a3:alice: a3:mallory:gelu.py=start_past_end_gelu.py
rm -f "$OUT/a3.db"; $G batch "$OUT/a3" --jobs 2 --db "$OUT/a3.db" --stage gelu
gs "$OUT/a3/mallory" a3

echo "=== 4 (held). the hedge: conv1d fails only its hidden cases on purpose; mlp right only with the reference conv1d"
python $H/build.py "$OUT" a4:alice: a4:mallory:conv1d.py=hedge_conv1d.py,mlp.py=hedge_mlp.py
rm -f "$OUT/a4.db"; $G batch "$OUT/a4" --jobs 2 --db "$OUT/a4.db" --stage gelu --stage conv1d --stage mlp
$G feedback mallory --db "$OUT/a4.db" | grep -E "^(PASS|FAIL)|hidden|reference"

echo "=== 5. output_cut = 10**4300 - 1 in a failing public case (gelu), beside alice and zoe"
python $H/build.py "$OUT" a5:alice: a5:mallory:gelu.py=huge_cut_gelu.py a5:zoe:
rm -rf "$OUT/a5.db" "$OUT/a5-fb" "$OUT/a5-fb2"
$G batch "$OUT/a5" --jobs 2 --db "$OUT/a5.db" --stage gelu --feedback "$OUT/a5-fb" 2>&1 | grep -v '^  \|^Traceback\|^ *\^'
echo "batch --feedback wrote: $(ls "$OUT/a5-fb" | tr '\n' ' ')"
$G report --db "$OUT/a5.db" --feedback "$OUT/a5-fb2" --lms "$OUT/a5.lms" 2>&1 | grep -v '^  \|^Traceback\|^ *\^'
echo "report --feedback wrote: $(ls "$OUT/a5-fb2" | tr '\n' ' ')"
$G feedback mallory --db "$OUT/a5.db" 2>&1 | tail -1
gs "$OUT/a5/mallory" a5

echo "=== 3b. row 3 from a hidden conv1d call, by the sign bit of its input (carol: the bit inverted), gelu/conv1d/mlp"
python $H/build.py "$OUT" a3b:alice: a3b:mallory:conv1d.py=start_past_end_hidden_conv1d.py a3b:carol:
sed 's/^BIT = 1/BIT = 0/' $H/start_past_end_hidden_conv1d.py > "$OUT/a3b/carol/student/conv1d.py"
rm -f "$OUT/a3b.db"; $G batch "$OUT/a3b" --jobs 2 --db "$OUT/a3b.db" --stage gelu --stage conv1d --stage mlp

echo "=== 6. round 8 row 5 through its fix: the central directory's declared offset 0, its real place found by zipfile"
rm -rf "$OUT/a6z" "$OUT/a6z.db" && mkdir -p "$OUT/a6z" && cp -r "$OUT/.honest" "$OUT/a6z/alice"
python $H/lying_offset_zip.py "$OUT/a6z/mallory.zip" 1000000 && ls -l "$OUT/a6z/mallory.zip"
python -c "import sys, zipfile, pathlib; sys.path.insert(0, '.'); from grader.instructor import intake; p = pathlib.Path(sys.argv[1]); print('intake.zip_entry_count:', intake.zip_entry_count(p, 50000), '| zipfile lists:', len(zipfile.ZipFile(p).infolist()))" "$OUT/a6z/mallory.zip"
/usr/bin/time -f "wall %e s, peak RSS of the largest process %M KB" $G batch "$OUT/a6z" --jobs 2 --db "$OUT/a6z.db" --stage gelu

echo "=== 7. the jail's oom_score_adj (round 8's fix) and pid 1, printed by a failing public gelu call"
grep CapEff /proc/self/status
python $H/build.py "$OUT" a7:alice: a7:probe:gelu.py=probe_gelu.py
rm -f "$OUT/a7.db"; $G batch "$OUT/a7" --jobs 2 --db "$OUT/a7.db" --stage gelu
$G feedback probe --db "$OUT/a7.db" | grep "^ *|" | head -14

echo "=== 6b. the same through the zip64 records: the locator names a fake record, zipfile reads the one before it"
rm -rf "$OUT/a6y" "$OUT/a6y.db" && mkdir -p "$OUT/a6y" && cp -r "$OUT/.honest" "$OUT/a6y/alice"
python $H/zip64_locator_zip.py "$OUT/a6y/mallory.zip" 1000000
python -c "import sys, zipfile, pathlib; sys.path.insert(0, '.'); from grader.instructor import intake; p = pathlib.Path(sys.argv[1]); print('intake.zip_entry_count:', intake.zip_entry_count(p, 50000), '| zipfile lists:', len(zipfile.ZipFile(p).infolist()))" "$OUT/a6y/mallory.zip"
/usr/bin/time -f "wall %e s, peak RSS of the largest process %M KB" $G batch "$OUT/a6y" --jobs 2 --db "$OUT/a6y.db" --stage gelu

echo "=== 5b. row 5 with docs/instructors.md's Friday command: feedback, LMS and HTML in one report"
rm -rf "$OUT/a5-fb3" "$OUT/a5.html"
$G report --db "$OUT/a5.db" --feedback "$OUT/a5-fb3" --lms "$OUT/a5b.lms" --html "$OUT/a5.html" 2>&1 | grep -v '^  \|^Traceback\|^ *\^'
ls "$OUT/a5-fb3" "$OUT/a5.html"

echo "=== 14. 1,000 central directory entries with 64 KiB extra fields (a valid 64 MB zip), beside alice and bob"
rm -rf "$OUT/a8" "$OUT/a8.db" && mkdir -p "$OUT/a8" && cp -r "$OUT/.honest" "$OUT/a8/alice" && cp -r "$OUT/.honest" "$OUT/a8/bob"
python $H/extra_quadratic_zip.py "$OUT/a8/mallory.zip" $H/gelu_standalone.py 1000 && ls -l "$OUT/a8/mallory.zip"
$G batch "$OUT/a8" --jobs 2 --db "$OUT/a8.db" --stage gelu

echo "=== 15. 100 Python-2-style .npy headers of 10 KB in every gelu result, beside alice and bob"
python $H/build.py "$OUT" a15:alice: a15:mallory:gelu.py=slow_headers_gelu.py a15:bob:
rm -f "$OUT/a15.db"; /usr/bin/time -f "wall %e s, user %U s, sys %S s (the batch and its children)" $G batch "$OUT/a15" --jobs 2 --db "$OUT/a15.db" --stage gelu 2>&1 | grep -v UserWarning | grep -v "value\[safe_text"

echo "=== 16 (held). row 15's stall as a head start for the next call (carol: no stall), gelu"
python $H/build.py "$OUT" a16:alice: a16:mallory:gelu.py=headstart_gelu.py a16:carol:gelu.py=headstart_gelu.py
sed -i 's/^STALL = 1/STALL = 0/' "$OUT/a16/carol/student/gelu.py"
rm -f "$OUT/a16.db"; $G batch "$OUT/a16" --jobs 2 --db "$OUT/a16.db" --stage gelu 2>&1 | grep -v "UserWarning\|value\[safe"
for n in mallory carol; do $G feedback $n --db "$OUT/a16.db" | grep -E "around_minimum|large_magnitudes" | cut -c1-140; done

echo "=== 17 (held). an honest-looking gpt2 mistake (logits 1% too large): how long judging and decoys take"
rm -rf "$OUT/a17" "$OUT/a17.db" && mkdir -p "$OUT/a17" && cp -r "$OUT/.honest" "$OUT/a17/alice" && cp -r "$OUT/.honest" "$OUT/a17/mallory"
cat $H/wrong_gpt2_append.py >> "$OUT/a17/mallory/student/gpt2.py"
$G batch "$OUT/a17" --jobs 2 --db "$OUT/a17.db" --stage gpt2

echo "=== 18. a folder 'alice' + U+200B beside alice (its gelu wrong): two learners shown as 'alice'"
R="$OUT/a18"; rm -rf "$R" "$R.db" && mkdir -p "$R" && cp -r "$OUT/.honest" "$R/alice" && cp -r "$OUT/.honest" "$R/$(printf 'alice\u200b')"
printf '\n_r = run_gelu\ndef run_gelu(x):\n    return _r(x) * 0\n' >> "$R/$(printf 'alice\u200b')/student/gelu.py"
$G batch "$R" --jobs 2 --db "$R.db" --stage gelu --lms "$R.lms" | cat -A | cut -c1-90; cat -A "$R.lms"
$G report --db "$R.db" | grep -a alice | cut -c1-100
