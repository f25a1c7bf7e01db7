#!/bin/sh
# /tmp/rt22-c/subs: alice (honest gelu+conv1d+mlp), mallory (gelu with a /tmp marker, zero conv1d, mlp that reads it)
set -e
here=$(cd "$(dirname "$0")" && pwd)
rm -rf /tmp/rt22-c; mkdir -p /tmp/rt22-c/subs/alice/student /tmp/rt22-c/subs/mallory/student
cp "$here/gelu.py" "$here/conv1d.py" "$here/mlp.py" /tmp/rt22-c/subs/mallory/student/
cp "$here/../counters/honest_gelu.py" /tmp/rt22-c/subs/alice/student/gelu.py
printf 'def run_conv1d(x, weight, bias):\n    return x @ weight + bias\n' > /tmp/rt22-c/subs/alice/student/conv1d.py
sed -e 's/from student.gelu import run_gelu, _outer_uid/from student.gelu import run_gelu/' -e 's/^    if not _said:/    if False:/' "$here/mlp.py" > /tmp/rt22-c/subs/alice/student/mlp.py
