#!/usr/bin/env bash
# Round 7's runs, each a real jailed `batch --jobs 2` with an honest learner (alice: the references under the
# learner's names) beside the hostile or affected one; row 2 also through the Gradescope bundle's run_autograder.
# usage: bash tests/hostile/redteam/round7/repro.sh [OUT]   (from the clone's root, its venv active; ~1 minute)
set -u
OUT=${1:-/tmp/rt7}
R=tests/hostile/redteam/round7
B="python $R/build.py $OUT"
G="python -m grader"
HERE=$(pwd)
mkdir -p "$OUT"; rm -f $OUT/*.db
$B x:dummy: >/dev/null   # OUT/.honest

echo "== 1. round 6's Student fix does not hold when the other learners' entries are zips or nested folders"
python $R/survey_cases.py
bash $R/names.sh "$OUT"
echo "== 1b. ... and lets a learner overwrite a classmate's row when the instructor regrades her folder alone"
bash $R/overwrite.sh "$OUT"

echo "== 2. the two-phase order decides upstream stand-ins from public cases only: carol loses mlp for a conv1d bug"
$B up:alice: up:carol:conv1d.py=batch_of_one_conv1d.py,mlp.py=own_mlp.py up:dave:mlp.py=own_mlp.py
$G batch $OUT/up --jobs 2 --db $OUT/up.db --stage gelu --stage conv1d --stage mlp | tail -4
$G feedback --db $OUT/up.db carol | grep -E "^(PASS|FAIL)  |  note Your conv1d"
#    the same batch on 2389bb4 (round 6's commit, before the two-phase order): carol 27.5/30, mlp graded with the
#    reference conv1d
if [ ! -d "$OUT/old" ]; then git clone -q . "$OUT/old" && (cd "$OUT/old" && git checkout -q 2389bb4); fi
(cd "$OUT/old" && python -m grader batch "$OUT/up" --jobs 2 --db "$OUT/up-old.db" --stage gelu --stage conv1d --stage mlp | tail -4)
#    the same bug with attention also written on her own conv1d: 34.5/50 on main, 47.5/50 at 2389bb4
$B up2:alice: up2:carol:conv1d.py=batch_of_one_conv1d.py,mlp.py=own_mlp.py,attention.py=own_attention.py \
   up2:dave:mlp.py=own_mlp.py,attention.py=own_attention.py
S5="--stage gelu --stage conv1d --stage mlp --stage softmax --stage attention"
$G batch $OUT/up2 --jobs 2 --db $OUT/up2.db $S5 | tail -4
(cd "$OUT/old" && python -m grader batch "$OUT/up2" --jobs 2 --db "$OUT/up2-old.db" $S5 | tail -4)
#    through the Gradescope bundle, one submission alone
$G gradescope $OUT/autograder.zip >/dev/null
bash tests/hostile/redteam/round5/run_gs.sh $OUT/autograder.zip $OUT/up/carol $OUT/gs-carol >/dev/null 2>&1
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('run_autograder carol:', d['score'], {k: v['points'] for k, v in d['extra_data']['stages'].items() if k in ('conv1d', 'mlp')})" $OUT/gs-carol/results/results.json

echo "== 3. the course state (the gradebook's staleness key) leaves out checks.py (and reference.py, common/)"
$B st:alice: st:mallory:kvcache.py=forged_record_kvcache.py
rm -rf $OUT/course && mkdir -p $OUT/course && tar --exclude=./.venv --exclude=./.git -cf - . | tar -xf - -C $OUT/course
(cd /tmp && $G --root $OUT/course batch $OUT/st --jobs 2 --db $OUT/st.db --stage kvcache | tail -3)
python3 - $OUT/course/stages/kvcache/checks.py <<'PY'   # the instructor closes the dummy-array forgery
import sys
p = sys.argv[1]; s = open(p).read()
old = '        where = f"step {step + 1}, block {block}"\n'
new = old + ('        width = params["wte.weight"].shape[1]\n'
             '        if (args.get("x") or {}).get("shape", [None])[-1] != width:\n'
             '            return f"{where}: run_attention_cached was fed x of shape {args.get(\'x\')}, not the model\'s width {width}"\n')
open(p, "w").write(s.replace(old, new, 1))
PY
(cd /tmp && $G --root $OUT/course batch $OUT/st --jobs 2 --db $OUT/st.db --stage kvcache | tail -1)
(cd /tmp && $G --root $OUT/course report --db $OUT/st.db | grep -E "^  (alice|mallory) ")
cp $OUT/st.db $OUT/st-force.db
(cd /tmp && $G --root $OUT/course batch $OUT/st --jobs 2 --db $OUT/st-force.db --stage kvcache --force | tail -3)

echo "== 4. similarity: a copy moved into a helper module (bob) or behind a 66 KB comment (fred) is never flagged; carol (same file) is"
$B sim:alice:softmax.py=alice_softmax.py sim:carol:softmax.py=alice_softmax.py \
   sim:bob:softmax.py=bob_softmax.py,mine.py=bob_helper_mine.py sim:dave: sim:erin: sim:fred:softmax.py=padded_softmax.py
$G batch $OUT/sim --jobs 2 --db $OUT/sim.db --stage softmax | tail -1
$G report --db $OUT/sim.db | grep -A3 "^Similar"

echo "== 6 (declared, quantified). the named mistake of a hidden case carries a base-7 digit of its input"
$B dc:alice: dc:mallory:softmax.py=decoy_channel_softmax.py dc2:alice: dc2:mallory:softmax.py=decoy_channel16_softmax.py
$G batch $OUT/dc --jobs 2 --db $OUT/dc.db --stage softmax | tail -1
$G feedback --db $OUT/dc.db mallory | grep "FAIL hidden"
$G batch $OUT/dc2 --jobs 2 --db $OUT/dc2.db --stage softmax | tail -1
$G feedback --db $OUT/dc2.db mallory | grep "FAIL hidden"
python -c "
import numpy as np
for c in ('hidden_1', 'hidden_2'):
    b = int(np.load(f'fixtures/softmax/{c}/x.npy').reshape(-1)[:1].view(np.uint32)[0])
    print(c, hex(b), 'digit (>>23)%7 =', (b >> 23) % 7, ' digit (>>16)%7 =', (b >> 16) % 7)
print('symbols: 0 PASS, 1 not_normalised, 2 log_softmax, 3 wrong_axis, 4 (no name), 5 normalised_over_whole_array, 6 sigmoid')"
bash tests/hostile/redteam/round5/run_gs.sh $OUT/autograder.zip $OUT/dc/mallory $OUT/gs-dc >/dev/null 2>&1
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print('run_autograder:', t['name'], '|', t['output'].replace(chr(10), ' | ')[:120]) for t in d['tests'] if 'hidden' in t['name'] and t['name'].startswith('softmax')]" $OUT/gs-dc/results/results.json

echo "== 5. a hidden case's timeout shows: the next hidden case of the function is 'not run' (once), a status redaction keeps"
$B to:alice: to:tim:softmax.py=timeout_tells_softmax.py
$G batch $OUT/to --jobs 2 --db $OUT/to.db --stage softmax | tail -3
$G feedback --db $OUT/to.db tim | grep "hidden"
python -c "import numpy as np; b = int(np.load('fixtures/softmax/hidden_1/x.npy').reshape(-1)[:1].view(np.uint32)[0]); print('hidden_1 x.flat[0] sign bit:', b >> 31)"
bash tests/hostile/redteam/round5/run_gs.sh $OUT/autograder.zip $OUT/to/tim $OUT/gs-tim >/dev/null 2>&1
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [print('run_autograder:', t['name'], '|', t['output'].split(chr(10))[0]) for t in d['tests'] if t['name'].startswith('softmax: hidden')]" $OUT/gs-tim/results/results.json

#    the same through the budget (timing-dependent: 1 run of 2 showed both "not run", the other both pass)
$B bt:alice: bt:bud:softmax.py=budget_tells_softmax.py
$G batch $OUT/bt --jobs 2 --db $OUT/bt.db --stage softmax --budget 30 | tail -1
$G feedback --db $OUT/bt.db bud | grep "hidden"

echo "== checks: round 6's fixes (probe), bob/bob.zip still stops the batch"
$B fx:alice: fx:fay:gelu.py=fixes_probe_gelu.py pr:alice: pr:pat:gelu.py=probe_gelu.py
$G batch $OUT/fx --jobs 2 --db $OUT/fx.db --stage gelu | tail -1
$G feedback --db $OUT/fx.db fay | sed -n '/printed/,/PASS/p' | grep "|"
$G batch $OUT/pr --jobs 2 --db $OUT/pr.db --stage gelu | tail -1
$G feedback --db $OUT/pr.db pat | sed -n '/printed/,/PASS/p' | grep "|"
rm -rf $OUT/dup && mkdir -p $OUT/dup && cp -r $OUT/.honest $OUT/dup/alice && cp -r $OUT/.honest $OUT/dup/bob
(cd $OUT/.honest && zip -qr $OUT/dup/bob.zip student)
$G batch $OUT/dup --jobs 2 --db $OUT/dup.db --stage gelu; echo "rc=$?"
