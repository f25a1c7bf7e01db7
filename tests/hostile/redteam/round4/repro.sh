#!/usr/bin/env bash
# Round 4's runs, each a real jailed batch (--jobs 2) with honest learners beside the hostile one.
# usage: bash tests/hostile/redteam/round4/repro.sh [OUT]   (from the clone's root, its venv active)
set -u
OUT=${1:-/tmp/rt4}
B="python tests/hostile/redteam/round4/build.py $OUT"
G="python -m grader"
# 1. seccomp bypass: fcntl F_OFD_SETLK | 1<<32 sends a hidden input's bits; the receiver reads /proc/locks
$B chan:aaa_sender:conv1d.py=fcntl_sender_conv1d.py chan:zzz_receiver:conv1d.py=proclocks_receiver_conv1d.py chan:zzzz_alice:
$G batch $OUT/chan --jobs 2 --db $OUT/chan.db --stage conv1d && $G feedback --db $OUT/chan.db zzz_receiver | grep -A1 printed
# 2. the same bits through /proc/sys/fs/file-nr (no filtered call, no timing)
$B fnr:aaa_sender:conv1d.py=filenr_sender_conv1d.py fnr:zzz_receiver:conv1d.py=filenr_receiver_conv1d.py fnr:zzzz_alice:
$G batch $OUT/fnr --jobs 2 --db $OUT/fnr.db --stage conv1d && $G feedback --db $OUT/fnr.db zzz_receiver | grep -A1 printed
# 3. a correct cached kvcache whose empty cache is (None, None) fails the observe check
$B kv:alice: kv:erin:kvcache.py=none_pair_kvcache.py
$G batch $OUT/kv --jobs 2 --db $OUT/kv.db --stage kvcache && $G feedback --db $OUT/kv.db erin | grep "FAIL\|PASS  kv\|FAIL  kv"
# 4. a correct submission whose later stage imports a helper of an earlier stage's file, or hands run_gpt2 a list
$B help:alice: help:frank:attention.py=helpers_attention.py,kvcache.py=helpers_kvcache.py
$G batch $OUT/help --jobs 2 --db $OUT/help.db && $G feedback --db $OUT/help.db frank | grep -m3 "kvcache\|ImportError"
$B lst:alice: lst:judy:gpt2.py=list_gpt2.py,generate.py=list_generate.py
$G batch $OUT/lst --jobs 2 --db $OUT/lst.db --stage gpt2 --stage generate && $G feedback --db $OUT/lst.db judy | grep -m3 "generate\|Error"
# 5. a correct submission with helpers in a sub-package of student/
$B sub:alice: sub:gina:attention.py=subpackage_attention.py
mkdir -p $OUT/sub/gina/student/helpers && touch $OUT/sub/gina/student/helpers/__init__.py
cp tests/hostile/redteam/round4/subpackage_helpers_heads.py $OUT/sub/gina/student/helpers/heads.py
$G batch $OUT/sub --jobs 2 --db $OUT/sub.db --stage attention && $G feedback --db $OUT/sub.db gina | grep -m2 "attention\|Error"
# 6. a correct conv1d written with torch (the grader converts torch tensors; the instructions cite torch)
$B torch:alice: torch:hank:conv1d.py=torch_conv1d.py
$G batch $OUT/torch --jobs 2 --db $OUT/torch.db --stage conv1d && $G feedback --db $OUT/torch.db hank | grep -m2 "conv1d\|Error"
# 7. hidden inputs rebuilt from the handout; a conv1d that is only a lookup table passes both hidden cases
rm -rf $OUT/.handout-rt4 && $G handout $OUT/.handout-rt4 >/dev/null
(cd $OUT/.handout-rt4 && python "$OLDPWD/tests/hostile/redteam/round4/guess_hidden_inputs.py" "$OLDPWD")
$B look:alice: look:stub_lookup:
(cd $OUT/.handout-rt4 && python "$OLDPWD/tests/hostile/redteam/round4/make_lookup_conv1d.py" $OUT/look/stub_lookup/student)
$G batch $OUT/look --jobs 2 --db $OUT/look.db --stage conv1d && $G feedback --db $OUT/look.db stub_lookup | grep "hidden\|conv1d:"
# 8. a hidden case's TIMEOUT status (and id) reach a later stage's public message
$B loop:alice: loop:ivan:conv1d.py=loop_hidden_conv1d.py,layernorm.py=imports_conv1d_layernorm.py
$G batch $OUT/loop --jobs 2 --db $OUT/loop.db --stage conv1d --stage layernorm && $G feedback --db $OUT/loop.db ivan | grep "not run"
# 4b. a correct attention calling its own run_softmax(scores, axis=-1)
$B ax:alice: ax:kate:softmax.py=axis_softmax.py,attention.py=axis_attention.py
$G batch $OUT/ax --jobs 2 --db $OUT/ax.db --stage softmax --stage attention && $G feedback --db $OUT/ax.db kate | grep -m2 "attention\|Error"
