#!/bin/sh
# Break 1 (round 21): build and grade alice (honest), carol (control), mallory (+ _vt, _shm variants); as root.
set -e
cd /work/redteam22 && . .venv/bin/activate
attacks/r21_rerun/stash_reference/build.sh
rm -rf /tmp/rt22-r21-a/gb-run.sqlite /tmp/rt22-r21-a/fb-run
python -m grader batch /tmp/rt22-r21-a/subs --jobs 2 --stage gelu --stage conv1d --stage mlp \
    --db /tmp/rt22-r21-a/gb-run.sqlite --feedback /tmp/rt22-r21-a/fb-run --lms /tmp/rt22-r21-a/lms-run.csv
cat /tmp/rt22-r21-a/lms-run.csv
grep -H "hidden [12] " /tmp/rt22-r21-a/fb-run/carol.txt /tmp/rt22-r21-a/fb-run/mallory.txt
