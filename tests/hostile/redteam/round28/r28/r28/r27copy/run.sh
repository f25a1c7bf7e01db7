#!/bin/bash
# Round 28: round 27's free 2-bit meminfo channel (attacks copied from /work/redteam27/attacks/r27) against this head.
# gelu memory_mb 2048, layernorm 3072 for the run (put back by git checkout). As root, venv active, from /work/redteam28.
set -e
cd /work/redteam28
sed -i 's/^depends_on: \[\]$/depends_on: []\nmemory_mb: 2048/' stages/gelu/stage.yaml
sed -i 's/^depends_on: \[\]$/depends_on: []\nmemory_mb: 3072/' stages/layernorm/stage.yaml
trap 'git checkout stages/gelu/stage.yaml stages/layernorm/stage.yaml' EXIT
W=attacks/r28/r27copy
for bits in "1 1" "0 0"; do
  set -- $bits
  O=/tmp/rt28-mi$1$2; rm -rf $O
  python attacks/r28/build.py $O/subs a_sender gelu,conv1d,layernorm >/dev/null
  sed "s/@@BIT@@/$1/" $W/free_bit1_conv1d.py > $O/subs/a_sender/student/conv1d.py
  sed "s/@@BIT@@/$2/" $W/free_bit2_layernorm.py > $O/subs/a_sender/student/layernorm.py
  cp $W/free_end.py $O/subs/a_sender/student/
  for r in b_reader c_reader; do
    python attacks/r28/build.py $O/subs $r gelu,conv1d,layernorm student/gelu.py=$W/meminfo_gelu.py >/dev/null
  done
  python -m grader batch $O/subs --jobs 1 --stage gelu --stage conv1d --stage layernorm --db $O/gb.sqlite --feedback $O/fb --lms $O/lms.csv >/dev/null 2>&1
  echo "bits $1 $2: b_reader $(grep -h -o 'MemTotal: *[0-9]*' $O/fb/b_reader.txt | tr -s ' ') / c_reader $(grep -h -o 'MemTotal: *[0-9]*' $O/fb/c_reader.txt | tr -s ' ') / lms: $(tr '\n' ' ' < $O/lms.csv)"
done
