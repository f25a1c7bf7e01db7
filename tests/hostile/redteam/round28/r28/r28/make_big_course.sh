#!/bin/sh
# Round 25: a copy of the course with one stage (gelu) and 327 cases (320 extra inline public ones, two made hidden),
# the kind of course where r25_queue_hang_gelu.py stops a batch. Usage: sh r25_make_big_course.sh [/tmp/rt25-course]
set -e
DEST=${1:-/tmp/rt25-course}
SRC=/work/redteam28
rm -rf "$DEST"; mkdir -p "$DEST/stages" "$DEST/fixtures"
cp -a "$SRC/course.yaml" "$SRC/pyproject.toml" "$SRC/common" "$SRC/student" "$DEST/"
cp -a "$SRC/stages/gelu" "$DEST/stages/"
python3 - "$DEST" <<'PY'
import sys
d = sys.argv[1]
p = f"{d}/course.yaml"; s = open(p).read()
open(p, "w").write(s[:s.index("stages:")] + "stages:\n  - id: gelu\n    points: 10\n")
p = f"{d}/stages/gelu/stage.yaml"; s = open(p).read().rstrip("\n") + "\n"
for k in range(320):
    vis = "    visibility: hidden\n" if k >= 318 else ""
    s += f"  - id: extra_{k:03d}\n{vis}    inputs:\n      x: {{values: [{(k % 13) - 6}.0, 0.5, 1.0], dtype: float64}}\n"
open(p, "w").write(s)
PY
python -m grader --root "$DEST" fixtures build
