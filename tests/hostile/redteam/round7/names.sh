#!/usr/bin/env bash
# Round 7, break 1: round 6's `Student` fix (regrade.looks_like_one) holds only when the other learners' entries are
# folders with student/ (or a stage file) at their top. An LMS bulk download of zips, or folders with the handout
# nested one level down (alice/gpt2-course-main/student/...), are not "submissions" to the sibling check, so a learner
# folder named Student (or a file named gelu.py / GELU.py) still makes the batch grade the whole folder as ONE
# submission, named after the folder; nobody else is graded, rc 0.
# usage: bash names.sh OUT   (from the clone's root, its venv active; OUT/.honest built by build.py)
set -u
OUT=$1
G="python -m grader"
rm -rf "$OUT/nm" && mkdir -p "$OUT/nm/bob/gpt2-course-main"
(cd "$OUT/.honest" && zip -qr "$OUT/nm/alice.zip" student)            # alice: the LMS's zip
cp -r "$OUT/.honest/student" "$OUT/nm/bob/gpt2-course-main/"          # bob: the whole handout, zipped and unpacked
mkdir "$OUT/nm/Student" && printf 'def run_gelu(x):\n    return x\n' > "$OUT/nm/Student/gelu.py"   # mallory
rm -f "$OUT/nm.db"; $G batch "$OUT/nm" --jobs 2 --db "$OUT/nm.db" --stage gelu; echo "rc=$?"
# variant: mallory's submission is a single file named GELU.py (a Gradescope-style upload kept by its name)
rm -rf "$OUT/nm/Student"; printf 'def run_gelu(x):\n    return x\n' > "$OUT/nm/GELU.py"
rm -f "$OUT/nm3.db"; $G batch "$OUT/nm" --jobs 2 --db "$OUT/nm3.db" --stage gelu; echo "rc=$?"
# control: the same folder without mallory
rm -f "$OUT/nm/GELU.py" "$OUT/nm2.db"; $G batch "$OUT/nm" --jobs 2 --db "$OUT/nm2.db" --stage gelu | tail -1
