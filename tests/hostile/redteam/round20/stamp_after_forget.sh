#!/bin/bash
# Round 20 (low): the shared input copies' access times after staging.forget, by a worker kept alive with a forged
# `ended`. usage: stamp_after_forget.sh OUT (as root, from anywhere). No /dev trick: nothing outside OUT is touched.
set -e
OUT=${1:-/tmp/rt20-sf}
A=/work/redteam20/attacks
rm -rf "$OUT"; mkdir -p "$OUT"/subs/{a_alice,m1_mallory,m2_carol,z_zoe}/student
for who in a_alice z_zoe; do cp $A/honest_conv1d.py "$OUT/subs/$who/student/conv1d.py"; cp $A/stamp_layernorm.py "$OUT/subs/$who/student/layernorm.py"; done
cp $A/stamp_after_forget_sender_conv1d.py "$OUT/subs/m1_mallory/student/conv1d.py"
cp $A/stamp_layernorm.py "$OUT/subs/m1_mallory/student/layernorm.py"
cp $A/stamp_after_forget_receiver_conv1d.py "$OUT/subs/m2_carol/student/conv1d.py"
cd /work/redteam20 && . .venv/bin/activate
python -m grader batch "$OUT/subs" --jobs 1 --stage conv1d --stage layernorm --db "$OUT/gb.sqlite" --feedback "$OUT/fb"
grep -A3 "your code printed" "$OUT/fb/m2_carol.txt" | head -4
