#!/bin/sh
# Round 25: a copy of the course with gelu (one more case, hidden: secret_a, x = [1.5, -2.0]) and conv1d with all its
# cases hidden, for r25_uid_note_gelu.py. Usage: sh r25_make_hidden_only_course.sh [/tmp/rt25-course3]
set -e
C=${1:-/tmp/rt25-course3}
SRC=/work/redteam28
rm -rf "$C"; mkdir -p "$C/stages" "$C/fixtures"
cp -a "$SRC/course.yaml" "$SRC/pyproject.toml" "$SRC/common" "$SRC/student" "$C/"
cp -a "$SRC/stages/gelu" "$SRC/stages/conv1d" "$C/stages/"
python3 - "$C" <<'PY'
import re, sys
C = sys.argv[1]
p = f"{C}/course.yaml"; s = open(p).read()
open(p, "w").write(s[:s.index("stages:")] + "stages:\n  - id: gelu\n    points: 10\n  - id: conv1d\n    points: 10\n")
p = f"{C}/stages/gelu/stage.yaml"; s = open(p).read().rstrip("\n") + "\n"
open(p, "w").write(s + "  - id: secret_a\n    visibility: hidden\n    inputs:\n      x: {values: [1.5, -2.0], dtype: float64}\n")
p = f"{C}/stages/conv1d/stage.yaml"; s = open(p).read()
i = s.index("\ncases:")
cases = re.sub(r"(\n  - id: [^\n]+\n)(?!    visibility)", r"\1    visibility: hidden\n", s[i:].replace("visibility: public", "visibility: hidden"))
open(p, "w").write(s[:i] + cases)
PY
python -m grader --root "$C" fixtures build
