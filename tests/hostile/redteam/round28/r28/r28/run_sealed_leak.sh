#!/bin/sh
# Round 28, finding 1: a hidden input's bits in the learner's own feedback through SEALED public cases.
# mlp variant (/tmp/rt28-a, 18 bits) and attention variant (/tmp/rt28-h, 30 bits). As root; jailed; --jobs 1.
set -e
cd /work/redteam28 && . .venv/bin/activate
B=attacks/r28/build.py; A=attacks/r28
rm -rf /tmp/rt28-a /tmp/rt28-h
python $B /tmp/rt28-a/subs alice gelu,conv1d,mlp >/dev/null
python $B /tmp/rt28-a/subs zed gelu,conv1d,mlp >/dev/null
python $B /tmp/rt28-a/subs mal gelu,conv1d,mlp student/gelu.py=$A/stub_gelu.py student/conv1d.py=$A/leak_conv1d.py student/mlp.py=$A/leak_mlp.py >/dev/null
python $B /tmp/rt28-a/subs carol gelu,conv1d,mlp student/gelu.py=$A/stub_gelu.py student/conv1d.py=$A/plain_conv1d.py student/mlp.py=$A/leak_mlp.py >/dev/null
(cd /tmp/rt28-a && python -m grader --root /work/redteam28 batch subs --jobs 1 --stage gelu --stage conv1d --stage mlp --db gb.sqlite --feedback fb --lms lms.csv)
python $B /tmp/rt28-h/subs alice conv1d,softmax,attention >/dev/null
python $B /tmp/rt28-h/subs zed conv1d,softmax,attention >/dev/null
python $B /tmp/rt28-h/subs mal2 conv1d,softmax,attention student/conv1d.py=$A/leak_conv1d.py student/softmax.py=$A/stub_softmax.py student/attention.py=$A/leak_attention.py >/dev/null
python $B /tmp/rt28-h/subs carol2 conv1d,softmax,attention student/conv1d.py=$A/plain_conv1d.py student/softmax.py=$A/stub_softmax.py student/attention.py=$A/leak_attention.py >/dev/null
(cd /tmp/rt28-h && python -m grader --root /work/redteam28 batch subs --jobs 1 --stage conv1d --stage softmax --stage attention --db gb.sqlite --feedback fb --lms lms.csv)
python - <<'PY'
import numpy as np
x = np.load("/work/redteam28/fixtures/conv1d/hidden_2/x.npy")  # the truth, for the reviewer only
u = int(x.reshape(-1)[:1].view(np.uint32)[0])
mlp = ["PASS", "relu", "missing_c_fc_bias", "missing_c_proj_bias", "residual_inside", "gelu_after_c_proj", "layernorm_inside", "(unnamed)"]
att = ["PASS", "no_c_attn_bias", "no_c_proj_bias", "no_c_proj", "v_q_k_order", "qkv_per_head_layout", "heads_strided", "(unnamed)"]
print("truth x[0,0,0] =", x.reshape(-1)[0], hex(u))
print("mlp expect:", [mlp[(u >> (32 - 3 * (i + 1))) & 7] for i in range(6)])
print("attention expect:", [att[(u >> (32 - 3 * (i + 1))) & 7] for i in range(10)])
PY
echo "--- mal (mlp)"; grep -A14 "mlp:" /tmp/rt28-a/fb/mal.txt | grep "  PASS\|  FAIL"
echo "--- mal2 (attention)"; grep -A16 "attention:" /tmp/rt28-h/fb/mal2.txt | grep "  PASS\|  FAIL"
