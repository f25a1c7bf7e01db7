#!/bin/sh
# One hop, 8 bits: a_mallory (sender: conv1d, layernorm, softmax; 6 hidden calls sleep v x 0.2 s in all),
# b_eve (receiver, graded next), c_alice (honest). ctrl: the same with SEND = False. --jobs 1, as root.
set -e
A=/work/redteam23/attacks/r23/sparetime/onehop; T=/tmp/rt23-j
rm -rf $T; for d in ctrl send; do
  for s in a_mallory b_eve c_alice; do mkdir -p $T/$d/$s/student; cp $A/_chan.py $A/conv1d.py $A/layernorm.py $A/softmax.py $T/$d/$s/student/; done
  sed -i 's/^SEND = True/SEND = False/' $T/$d/b_eve/student/_chan.py $T/$d/c_alice/student/_chan.py
  cp $A/recv_conv1d.py $T/$d/b_eve/student/conv1d.py
done
sed -i 's/^SEND = True/SEND = False/' $T/ctrl/a_mallory/student/_chan.py
cd /work/redteam23 && . .venv/bin/activate
for d in ctrl send; do
  echo "== $d"
  python -m grader batch $T/$d --jobs 1 --stage conv1d --stage layernorm --stage softmax --db $T/gb-$d.sqlite \
      --feedback $T/fb-$d --lms $T/lms-$d.csv 2>&1 | grep "^\["
  grep "AGE" $T/fb-$d/b_eve.txt
done
python - <<'PY'
import re, numpy as np
x = np.load("fixtures/conv1d/hidden_1/x.npy")  # the instructor's copy: only to check the decoding
v = int(np.packbits((x.reshape(-1)[:8] > 0).astype(np.uint8))[0])
age = {d: float(re.search(r"AGE ([0-9.]+)", open(f"/tmp/rt23-j/fb-{d}/b_eve.txt").read()).group(1)) for d in ("ctrl", "send")}
got = round((age["send"] - age["ctrl"]) / 0.2)
print(f"true v = {v} ({v:08b}); ages {age}; decoded {got} ({got:08b}); exact: {got == v}")
PY
