#!/usr/bin/env bash
# Round 33: each --times file replaces the gradebook's stored LMS times (Gradebook.set_setting("times")): a second
# section's batch drops the first section's, silently, and their own (self-set) file times count again.
set -e
cd /work/redteam33 && . .venv/bin/activate
D=/tmp/rt33-t4; rm -rf $D; mkdir -p $D/A/alice/student $D/B/bob/student
cp /tmp/rt33-a/subs/alice/student/gelu.py $D/A/alice/student/; cp /tmp/rt33-a/subs/alice/student/gelu.py $D/B/bob/student/
touch -d "2024-12-30 12:00" $D/A/alice/student/gelu.py $D/B/bob/student/gelu.py
printf 'submission,submitted_at\nalice,2025-01-03T12:00+00:00\n' > $D/A.csv
printf 'submission,submitted_at\nbob,2025-01-03T12:00+00:00\n' > $D/B.csv
python -m grader batch $D/A --stage gelu --db $D/gb.sqlite --deadline 2025-01-01T00:00+00:00 --times $D/A.csv | tail -1
python -m grader report --db $D/gb.sqlite | grep -A2 "Per learner"
python -m grader batch $D/B --stage gelu --db $D/gb.sqlite --times $D/B.csv | tail -1
python -m grader report --db $D/gb.sqlite | grep -A3 "Per learner"
