#!/bin/sh
# /tmp/rt22-g/subs: m1..m3 (every call crashes its jail), z_alice (honest gelu) graded last
set -e
here=$(cd "$(dirname "$0")" && pwd); S=/tmp/rt22-g/subs
rm -rf /tmp/rt22-g; mkdir -p $S
for n in m1 m2 m3; do
  mkdir -p $S/$n/student
  for st in gelu conv1d softmax layernorm tokenizer; do cp "$here/crash.py" $S/$n/student/$st.py; done
done
mkdir -p $S/z_alice/student; cp "$here/../counters/honest_gelu.py" $S/z_alice/student/gelu.py
