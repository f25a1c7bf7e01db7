#!/bin/sh
# Break 1 scaled (round 21): every hidden case of conv1d, mlp, layernorm, softmax, attention, block; as root.
set -e
cd /work/redteam21 && . .venv/bin/activate
[ -d /tmp/rt21-a/subs/alice ] || attacks/stash_reference/build.sh   # stash_chain's alice reuses it
attacks/stash_chain/build.sh
rm -rf /tmp/rt21-b/gb-run.sqlite /tmp/rt21-b/fb-run
python -m grader batch /tmp/rt21-b/subs --jobs 2 --stage gelu --stage conv1d --stage mlp --stage layernorm \
    --stage softmax --stage attention --stage block --stage gpt2 \
    --db /tmp/rt21-b/gb-run.sqlite --feedback /tmp/rt21-b/fb-run --lms /tmp/rt21-b/lms-run.csv
cat /tmp/rt21-b/lms-run.csv
grep -E "^(PASS|FAIL)|hidden [12] " /tmp/rt21-b/fb-run/mal_big.txt
