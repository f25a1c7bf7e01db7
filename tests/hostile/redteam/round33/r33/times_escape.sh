#!/usr/bin/env bash
# Round 33: names in the --times file that match no submission are printed raw (no escaping) in the note (and in
# read_times' UsageErrors). A learner's submission name holding ESC is escaped in her id, so the LMS's record of the
# same raw name never matches it and is always printed: terminal escapes reach the instructor's screen.
set -e
cd /work/redteam33 && . .venv/bin/activate
D=/tmp/rt33-t5; rm -rf $D; mkdir -p $D/subs/alice/student
cp /tmp/rt33-a/subs/alice/student/gelu.py $D/subs/alice/student/
NAME=$'mal\e[2J\e[H[1\u22151] mallory: graded, 120\u2215120 points (0.4 s) \u00b7 done\e]0;pwned\a'
mkdir -p "$D/subs/$NAME/student"; cp /tmp/rt33-a/subs/alice/student/gelu.py "$D/subs/$NAME/student/"
python -m grader batch $D/subs --stage gelu --db $D/gb.sqlite | cat -v
python3 - "$NAME" <<'PY'
import csv, sys
with open('/tmp/rt33-t5/times.csv', 'w', newline='') as f:     # the LMS's record: the submission names as given
    w = csv.writer(f); w.writerow(["submission", "submitted_at"])
    w.writerow(["alice", "2025-01-03T12:00+00:00"]); w.writerow([sys.argv[1], "2025-01-02T12:00+00:00"])
PY
python -m grader report --db $D/gb.sqlite --times $D/times.csv | head -2 | cat -v
tmux kill-session -t rt33e 2>/dev/null || true
tmux new-session -d -s rt33e -x 100 -y 20 "bash -c 'cd /work/redteam33; . .venv/bin/activate; echo BEFORE-1; echo BEFORE-2; python -m grader report --db $D/gb.sqlite --times $D/times.csv | head -3; sleep 20'"
sleep 4; echo '--- 100x20 tmux pane:'; tmux capture-pane -t rt33e -p | head -6; echo "--- pane title: $(tmux display -p -t rt33e '#{pane_title}')"
tmux kill-session -t rt33e
