#!/bin/sh
# /tmp/rt22-e/subs: alice/ and bob.zip (honest), mallory.zip (the same correct gelu, `version needed` 25.5)
set -e
here=$(cd "$(dirname "$0")" && pwd); S=/tmp/rt22-e/subs
rm -rf /tmp/rt22-e; mkdir -p $S/alice/student
cp "$here/../counters/honest_gelu.py" $S/alice/student/gelu.py
(cd /tmp/rt22-e && mkdir -p b/student && cp "$here/../counters/honest_gelu.py" b/student/gelu.py && cd b && python3 -m zipfile -c $S/bob.zip student)
python3 "$here/make.py" $S/mallory.zip
