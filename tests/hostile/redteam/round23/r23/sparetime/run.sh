#!/bin/sh
# as root: three jailed batches, --jobs 1, softmax only; prints each batch's lines and the receiver's printout
set -e
cd /work/redteam23 && . .venv/bin/activate
attacks/r23/sparetime/build.sh
for d in ctrl hi lo; do
  echo "== $d"
  python -m grader batch /tmp/rt23-e/subs-$d --jobs 1 --stage softmax --db /tmp/rt23-e/gb-$d.sqlite \
      --feedback /tmp/rt23-e/fb-$d --lms /tmp/rt23-e/lms-$d.csv 2>&1 | grep "^\["
  grep SPARE /tmp/rt23-e/fb-$d/b_eve.txt
done
python - <<'PY'
import re, numpy as np
x = np.load("fixtures/softmax/hidden_2/x.npy")  # the instructor's copy: only to check the decoding
v = int(np.packbits((x.reshape(-1)[:8] > 0).astype(np.uint8))[0])
d = {k: float(re.search(r"now-resident=([0-9.]+)", open(f"/tmp/rt23-e/fb-{k}/b_eve.txt").read()).group(1))
     for k in ("ctrl", "hi", "lo")}
hi, lo = round((d["hi"] - d["ctrl"]) / 0.15), round((d["lo"] - d["ctrl"]) / 0.15)
print(f"true v = {v} = {v:08b}; decoded bits 7..2 = {hi} ({hi:06b}), bits 5..0 = {lo} ({lo:06b}); "
      f"exact: {hi == v >> 2 and lo == v & 63}; recombined v = {(hi << 2) | (lo & 3)}")
PY
