#!/bin/sh
# Round 19 BREAK 3: "café" (NFC, honest) and "café" (NFD, returns x*0) in one submissions folder.
set -e
cd /work/redteam19 && . .venv/bin/activate
D=/tmp/rt19-nfc; rm -rf $D
python3 - <<'PY'
import os, shutil
D = "/tmp/rt19-nfc/subs"
for name, src in (("caf\u00e9", "tests/hostile/redteam/round16/honest_gelu.py"), ("cafe\u0301", None)):
    os.makedirs(f"{D}/{name}/student")
    if src:
        shutil.copy(src, f"{D}/{name}/student/gelu.py")
    else:
        open(f"{D}/{name}/student/gelu.py", "w").write("def run_gelu(x):\n    return x * 0\n")
PY
python -m grader batch $D/subs --stage gelu --db $D/g.sqlite --feedback $D/fb --jobs 1 2>&1 | tail -4
python -m grader report --db $D/g.sqlite --lms $D/lms.csv > /dev/null; od -c $D/lms.csv | head -3
head -4 $D/fb/caf~*.txt
