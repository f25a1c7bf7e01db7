#!/bin/bash
# Round 27 (free: the sender passes every case): two bits from one learner's hidden calls, read by the two learners graded after it (one each), through
# the /proc/meminfo stand-ins of the two warm spares (KEEP = 2). For the run gelu gets memory_mb 2048 and layernorm
# 3072 (conv1d keeps 4096); the stage.yaml files are put back afterwards.
# usage: bash attacks/r27/spare_meminfo_free.sh   (as root, from /work/redteam27, venv active)
set -e
cd /work/redteam27
sed -i 's/^depends_on: \[\]$/depends_on: []\nmemory_mb: 2048/' stages/gelu/stage.yaml
sed -i 's/^depends_on: \[\]$/depends_on: []\nmemory_mb: 3072/' stages/layernorm/stage.yaml
trap 'git checkout stages/gelu/stage.yaml stages/layernorm/stage.yaml' EXIT
W=attacks/r27
for bits in "1 1" "1 0" "0 1" "0 0"; do
  set -- $bits
  O=/tmp/rt27-r$1$2; rm -rf $O; mkdir -p $O/subs/{a_sender,b_reader,c_reader}/student
  cp attacks/honest/gelu.py $O/subs/a_sender/student/
  sed "s/@@BIT@@/$1/" $W/free_bit1_conv1d.py > $O/subs/a_sender/student/conv1d.py
  sed "s/@@BIT@@/$2/" $W/free_bit2_layernorm.py > $O/subs/a_sender/student/layernorm.py
  cp $W/free_end.py $O/subs/a_sender/student/
  for r in b_reader c_reader; do
    cp $W/meminfo_gelu.py $O/subs/$r/student/gelu.py; cp attacks/honest/conv1d.py attacks/honest/layernorm.py $O/subs/$r/student/
  done
  python -m grader batch $O/subs --jobs ${JOBS:-1} --stage gelu --stage conv1d --stage layernorm --db $O/gb.sqlite --feedback $O/fb --lms $O/lms.csv >/dev/null 2>&1
  echo "bits $1 $2: b_reader $(grep -h -o 'MemTotal: *[0-9]*' $O/fb/b_reader.txt | tr -s ' ') / c_reader $(grep -h -o 'MemTotal: *[0-9]*' $O/fb/c_reader.txt | tr -s ' ') / lms: $(tr '\n' ' ' < $O/lms.csv)"
done
