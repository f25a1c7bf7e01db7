#!/usr/bin/env bash
# Round 33 break: printed-output rows (69 characters) wrap past column 80 with tabs / wide characters.
set -e
cd /work/redteam33 && . .venv/bin/activate
D=/tmp/rt33-r; rm -rf $D; mkdir -p $D/subs/alice/student $D/subs/mallory/student
cat > $D/subs/alice/student/gelu.py <<'PY'
import math
import numpy as np
def run_gelu(x):
    x = np.asarray(x)
    return (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))).astype(x.dtype)
PY
cp attacks/tab_rows_gelu.py $D/subs/mallory/student/gelu.py
python -m grader batch $D/subs --jobs 1 --stage gelu --db $D/gb.sqlite --feedback $D/fb --lms $D/lms.csv
cat $D/lms.csv
tmux kill-session -t rt33r 2>/dev/null || true
tmux new-session -d -s rt33r -x 80 -y 40 "bash -c 'cd /work/redteam33; . .venv/bin/activate; cat $D/fb/mallory.txt; sleep 20'"
sleep 3; tmux capture-pane -t rt33r -p | sed -n '1,25p'; tmux kill-session -t rt33r
