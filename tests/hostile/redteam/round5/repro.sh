#!/usr/bin/env bash
# Round 5's runs, each a real jailed batch (--jobs 2) with an honest learner (alice: the references under the
# learner's names) beside the hostile one, then the same submissions through the Gradescope bundle's run_autograder.
# usage: bash tests/hostile/redteam/round5/repro.sh [OUT]   (from the clone's root, its venv active; ~3 minutes)
set -u
OUT=${1:-/tmp/rt5}
R=tests/hostile/redteam/round5
B="python $R/build.py $OUT"
G="python -m grader"
rm -f $OUT/*.db
# 1. a generator with no cache passes kvcache's cache check: it spells "no cache" past=() (nina: past=None, control)
$B kv:alice: kv:mallory:kvcache.py=nocache_kvcache.py kv:nina:kvcache.py=nocache_none_kvcache.py
$G batch $OUT/kv --jobs 2 --db $OUT/kv.db --stage kvcache
$G feedback --db $OUT/kv.db mallory | grep -E "^Score|PASS  kvcache"; $G feedback --db $OUT/kv.db nina | grep -E "^Score|FAIL  generate_return"
# 2. another jail's hidden input, whole, through /proc/meminfo's Shmem
$B shm:aaa_sender:conv1d.py=shmem_sender_conv1d.py shm:zzz_receiver:conv1d.py=shmem_receiver_conv1d.py shm:zzzz_alice:
$G batch $OUT/shm --jobs 2 --db $OUT/shm.db --stage conv1d && $G feedback --db $OUT/shm.db zzz_receiver | grep -A1 printed
# 3. one learner's own hidden input, across the jail reset, through /proc/stat's fork counter (no second learner)
$B fk2:alice: fk2:zoe:conv1d.py=forks_sender_conv1d.py,mlp.py=forks_receiver_mlp.py
$G batch $OUT/fk2 --jobs 2 --db $OUT/fk2.db && $G feedback --db $OUT/fk2.db zoe | grep -E "fork counter|^Score|conv1d:"
# 4. an honest learner's one mistake in gpt2 costs kvcache too (frank: the same without the mistake, 120/120)
$B up:alice: up:frank:attention.py=helpers_attention.py,kvcache.py=helpers_kvcache.py \
   up:olga:attention.py=helpers_attention.py,kvcache.py=helpers_kvcache.py,gpt2.py=batchbug_gpt2.py
$G batch $OUT/up --jobs 2 --db $OUT/up.db && $G feedback --db $OUT/up.db olga | grep -E "^Score|kvcache:|prompt_empty"
# 4b. the same: kate's attention calls her own run_softmax(axis=-1); kim adds one conv1d mistake: attention 0/10
$B ax:alice: ax:kate:softmax.py=axis_softmax.py,attention.py=axis_attention.py \
   ax:kim:softmax.py=axis_softmax.py,attention.py=axis_attention.py,conv1d.py=threed_conv1d.py
$G batch $OUT/ax --jobs 2 --db $OUT/ax.db && $G feedback --db $OUT/ax.db kim | grep -E "^Score|conv1d:|attention:|TypeError"
# recon: threads/forks counters, sysinfo(2), fcntl with high bits (round 4's fix)
$B thr:alice: thr:tom:gelu.py=threads_probe_gelu.py
$G batch $OUT/thr --jobs 2 --db $OUT/thr.db --stage gelu >/dev/null && $G feedback --db $OUT/thr.db tom | grep holding
$B si:alice: si:sid:gelu.py=sysinfo_probe_gelu.py
$G batch $OUT/si --jobs 2 --db $OUT/si.db --stage gelu >/dev/null && $G feedback --db $OUT/si.db sid | grep sysinfo
$B fc:alice: fc:fay:gelu.py=fcntl_probe_gelu.py
$G batch $OUT/fc --jobs 2 --db $OUT/fc.db --stage gelu >/dev/null && $G feedback --db $OUT/fc.db fay | grep -E "hi-bit|locks"
# the Gradescope bundle: rows 1, 3 and 4 through run_autograder (one submission per container)
$G gradescope $OUT/autograder.zip >/dev/null
for who in kv/mallory kv/nina up/olga fk2/zoe; do
  bash $R/run_gs.sh $OUT/autograder.zip $OUT/$who $OUT/gs-${who#*/} >/dev/null 2>&1
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], 'gradescope score', d['score']); [print('  ', t['name'], round(t['score'], 3), [l.strip() for l in t.get('output', '').splitlines() if 'fork counter' in l]) for t in d['tests'] if t.get('score') != t.get('max_score')]" $OUT/gs-${who#*/}/results/results.json $who
done
