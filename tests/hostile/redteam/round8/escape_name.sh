#!/usr/bin/env bash
# A learner's upload that is not a folder or a .zip (a .rar), named with terminal escapes: `batch` lists such entries
# as "not submissions, skipped: NAME" with the raw name (regrade.survey: sorted(s.path.name ...)), not through
# intake.printable. The escapes move the cursor up to bob's progress line, erase it and print a forged one.
# usage: bash escape_name.sh OUT   (OUT/.honest built by build.py; run from the checkout under test)
set -u
OUT=$1
rm -rf "$OUT/esc" "$OUT/esc.db" && mkdir -p "$OUT/esc"
for n in alice bob; do cp -r "$OUT/.honest" "$OUT/esc/$n"; done
python3 -c "
import sys
name = 'm\x1b[2A\x1b[2K\r[2\u22152] bob: graded, 0\u221510 points (0.5 s) \u00b7 done\x1b[2B\x1b[2K\r.rar'
open(sys.argv[1] + '/' + name, 'w').write('x')
" "$OUT/esc"
python -m grader batch "$OUT/esc" --jobs 2 --db "$OUT/esc.db" --stage gelu > "$OUT/esc.out" 2>&1
echo "--- bytes"; cat -A "$OUT/esc.out"
echo "--- as a terminal shows it (cursor up/down, erase line, carriage return applied)"
python3 - "$OUT/esc.out" <<'PY'
import re, sys
screen, row, col = [], 0, 0
def put(ch):
    global col
    while len(screen) <= row: screen.append([])
    line = screen[row]
    while len(line) < col: line.append(" ")
    if col < len(line): line[col] = ch
    else: line.append(ch)
    col += 1
text = open(sys.argv[1], encoding="utf-8", newline="").read()
for tok in re.findall(r"\x1b\[\d*[A-Za-z]|.", text, re.S):
    if tok.startswith("\x1b["):
        n, op = int(tok[2:-1] or 1), tok[-1]
        if op == "A": row = max(0, row - n)
        elif op == "B": row += n
        elif op == "K":
            while len(screen) <= row: screen.append([])
            screen[row] = []
    elif tok == "\r": col = 0
    elif tok == "\n": row, col = row + 1, 0
    else: put(tok)
print("\n".join("".join(l) for l in screen))
PY
