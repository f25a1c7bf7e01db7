#!/bin/bash
# Round 24: SubmissionError messages are made printable (NFC, escapes) when raised, and the machine's folders are cut
# out of them afterwards (paths.scrub) by exact text: a submissions folder whose path is not already NFC (macOS HFS+
# stores names decomposed) or holds a character printable escapes is never cut, so a learner who submits a zip the
# grader refuses reads the grading machine's full path in their feedback. Control: the same with an ASCII path.
# usage: nfd_path_leak.sh   (as root or not, from /work/redteam24, venv active)
set -e
for D in "$(printf '/tmp/rt24-p/U\u0308bungen-secret')" /tmp/rt24-p2/Uebungen-secret; do
  rm -rf "$(dirname "$D")"; mkdir -p "$D/subs"
  python - "$D/subs" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1] + "/mallory.zip", "w"); z.writestr("../student/gelu.py", "x = 1\n"); z.close()
PY
  python -m grader batch "$D/subs" --jobs 1 --stage gelu --db "$(dirname "$D")/gb.sqlite" --feedback "$(dirname "$D")/fb" | head -1
  echo "--- mallory's feedback:"; tail -1 "$(dirname "$D")/fb/mallory.txt"
done
