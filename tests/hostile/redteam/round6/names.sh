#!/usr/bin/env bash
# Round 6, breaks 4 and 5: a submission's own name stops or takes over the whole batch.
# usage: bash names.sh OUT   (from the clone's root, its venv active; OUT/.honest built by build.py)
set -u
OUT=$1
G="python -m grader"
# 4. a learner whose submission folder is named "Student" (any case; or "gelu.py", a stage file's name): the batch
#    folder "looks like one submission" (regrade.looks_like_one), so the whole folder is graded as ONE submission,
#    with that learner's files, under the folder's name; alice and bob are never graded, rc 0, no warning.
rm -rf "$OUT/nm" && mkdir -p "$OUT/nm"
cp -r "$OUT/.honest" "$OUT/nm/alice" && cp -r "$OUT/.honest" "$OUT/nm/bob"
cp -r "$OUT/.honest/student" "$OUT/nm/Student"   # mallory's submission, as her LMS id names it
rm -f "$OUT/nm.db"; $G batch "$OUT/nm" --jobs 2 --db "$OUT/nm.db" --stage gelu; echo "rc=$?"
$G report --db "$OUT/nm.db" | head -3
# control: the same folder without "Student": alice and bob graded
mv "$OUT/nm/Student" "$OUT/nm-Student.away"; rm -f "$OUT/nm2.db"
$G batch "$OUT/nm" --jobs 2 --db "$OUT/nm2.db" --stage gelu | tail -1; mv "$OUT/nm-Student.away" "$OUT/nm/Student"
# 5. a submission named "bob.zip" beside bob's folder (or "alice.ZIP" beside "alice.zip"): the batch stops, rc 2,
#    nobody graded (submissions.discover raises for two ids that are the same)
rm -rf "$OUT/dup" && mkdir -p "$OUT/dup"
cp -r "$OUT/.honest" "$OUT/dup/alice" && cp -r "$OUT/.honest" "$OUT/dup/bob"
(cd "$OUT/.honest" && zip -qr "$OUT/dup/bob.zip" student)   # mallory's zip
rm -f "$OUT/dup.db"; $G batch "$OUT/dup" --jobs 2 --db "$OUT/dup.db" --stage gelu; echo "rc=$?"
