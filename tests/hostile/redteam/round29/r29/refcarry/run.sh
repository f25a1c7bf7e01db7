#!/bin/sh
# Round 29: a reference carried by the page cache from one run with references (mlp's: gelu's reference) to a LATER
# run with references of the same submission that does not hold it (attention's: softmax's reference only).
# mal sends (windows BASE_mal..), ctl is the same learner without the send (control, windows BASE_ctl..).
# usage: sh run.sh BASE_mal BASE_ctl   (windows of chan.FILE no run has touched)
set -e
W=/tmp/rt29-k; A=/work/redteam29/attacks/refcarry
rm -rf $W; mkdir -p $W/subs/mal/student $W/subs/ctl/student
for n in mal ctl; do cp $A/chan.py $A/mlp.py $A/attention.py $A/conv1d.py $A/gelu.py $A/softmax.py $W/subs/$n/student/; done
sed -i "s/^BASE = 1000 /BASE = ${1:-1000} /" $W/subs/mal/student/chan.py
sed -i "s/^BASE = 1000 /BASE = ${2:-1100} /" $W/subs/ctl/student/chan.py
sed -i 's/^        chan.send(/        pass  # control: sends nothing #/' $W/subs/ctl/student/mlp.py
cd /work/redteam29 && . .venv/bin/activate
python -m grader batch $W/subs --jobs 1 --stage gelu --stage conv1d --stage mlp --stage softmax --stage attention \
  --db $W/gb.sqlite --feedback $W/fb --lms $W/lms.csv
cat $W/lms.csv
python3 - "$W/gb.sqlite" <<'PY'
import json, sqlite3, sys, zlib
db = sqlite3.connect(sys.argv[1])
for sid, raw in db.execute("select id, report from submissions order by id"):
    rep = json.loads(zlib.decompress(raw))
    for s in rep["stages"]:
        if s["stage"] == "attention":
            c = s["cases"][0]
            print(sid, s["stage"], c["case"], "sealed" if c.get("sealed") else "", "|", c.get("stdout", "").strip())
PY
