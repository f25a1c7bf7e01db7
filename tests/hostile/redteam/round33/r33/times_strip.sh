#!/usr/bin/env bash
# Round 33: a submission name with leading/trailing whitespace is never matched by --times (late.read_times strips
# every name; ids keep the whitespace), so the learner's own file times (hers to set) decide her lateness.
# Temporarily adds `late: {per_day: 0.25, max_days: 10}` to course.yaml (restored on exit).
set -e
cd /work/redteam33 && . .venv/bin/activate
D=/tmp/rt33-t2; rm -rf $D; mkdir -p $D
cp course.yaml $D/course.yaml.orig; trap 'cp $D/course.yaml.orig /work/redteam33/course.yaml' EXIT
python3 - <<'PY'
p='/work/redteam33/course.yaml'; s=open(p).read()
open(p,'w').write(s.replace("stages:\n", "late:\n  per_day: 0.25\n  max_days: 10\nstages:\n", 1))
PY
for who in alice "mallory " $'\u00a0nbsp\u00a0'; do
  mkdir -p "$D/subs/$who/student"; cp /tmp/rt33-a/subs/alice/student/gelu.py "$D/subs/$who/student/"
done
touch -d "2024-12-30 12:00" "$D"/subs/*/student/gelu.py    # each learner's own file time: before the deadline
python3 - "$D" <<'PY'
import csv, sys
with open(sys.argv[1] + "/times.csv", "w", newline="") as f:   # the LMS's record: all three 2.5 days late
    w = csv.writer(f); w.writerow(["submission", "submitted_at"])
    for who in ["alice", "mallory ", "\u00a0nbsp\u00a0"]:
        w.writerow([who, "2025-01-03T12:00+00:00"])
PY
python -m grader batch $D/subs --stage gelu --db $D/gb.sqlite --deadline 2025-01-01T00:00+00:00 --times $D/times.csv --lms $D/lms.csv
cat -A $D/lms.csv
python -m grader report --db $D/gb.sqlite | grep -A4 "Per learner"
