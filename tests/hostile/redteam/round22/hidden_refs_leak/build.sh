#!/bin/sh
# /tmp/rt22-d/subs: m_stash, m_timeout, m_forge (attackers), c_none (control), p_leave (positive control)
set -e
here=$(cd "$(dirname "$0")" && pwd); S=/tmp/rt22-d/subs
rm -rf /tmp/rt22-d; mkdir -p $S
for n in m_stash m_timeout m_forge c_none p_leave; do
  mkdir -p $S/$n/student
  cp "$here/../counters/honest_gelu.py" $S/$n/student/gelu.py
  cp "$here/../samejail/conv1d.py" $S/$n/student/conv1d.py
  cp "$here/layernorm.py" $S/$n/student/layernorm.py
  mode=${n#*_}; [ "$mode" = leave ] && mode=none
  sed "s/^MODE = \"stash\"/MODE = \"$mode\"/" "$here/mlp.py" > $S/$n/student/mlp.py
done
sed -i 's/^LEAVE = False/LEAVE = True/' $S/p_leave/student/layernorm.py
