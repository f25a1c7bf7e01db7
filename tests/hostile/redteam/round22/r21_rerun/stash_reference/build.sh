#!/bin/sh
# Builds /tmp/rt22-r21-a/subs: alice (honest, all correct), carol (control: same wrong conv1d, honest mlp, no stash),
# mallory (attacker: wrong conv1d + stashing mlp)
set -e
R=/work/redteam22; A=$R/attacks/r21_rerun/stash_reference; S=/tmp/rt22-r21-a/subs
rm -rf $S; mkdir -p $S/alice/student $S/carol/student $S/mallory/student
for s in alice carol mallory; do cp $R/student/__init__.py $S/$s/student/; done
# honest learner's files: the stubs with a real body
cat > $S/alice/student/gelu.py <<'P'
import math
import numpy as np
def run_gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))))
P
cat > $S/alice/student/conv1d.py <<'P'
def run_conv1d(x, weight, bias):
    return x @ weight + bias
P
cat > $S/alice/student/mlp.py <<'P'
from student.conv1d import run_conv1d
from student.gelu import run_gelu
def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return run_conv1d(run_gelu(run_conv1d(x, c_fc_weight, c_fc_bias)), c_proj_weight, c_proj_bias)
P
cp $S/alice/student/gelu.py $S/carol/student/; cp $S/alice/student/gelu.py $S/mallory/student/
cp $A/mallory_conv1d.py $S/mallory/student/conv1d.py
cp $A/mallory_conv1d.py $S/carol/student/conv1d.py
cp $S/alice/student/mlp.py $S/carol/student/mlp.py
cp $A/mallory_mlp.py $S/mallory/student/mlp.py
# variants: the same stash in /var/tmp (mallory_vt) and in /dev/shm (mallory_shm)
for v in vt:/var/tmp shm:/dev/shm; do
  n=mallory_${v%%:*}; d=${v#*:}
  mkdir -p $S/$n/student; cp $R/student/__init__.py $S/alice/student/gelu.py $S/$n/student/
  sed "s#/tmp/.stash#$d/.stash#g" $A/mallory_conv1d.py > $S/$n/student/conv1d.py
  sed "s#/tmp/.stash#$d/.stash#g" $A/mallory_mlp.py > $S/$n/student/mlp.py
done
