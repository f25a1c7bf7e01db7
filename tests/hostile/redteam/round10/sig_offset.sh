#!/usr/bin/env bash
# Rows 2 and 2b: round 9 rows 6 and 14 again, past their fixes, with `PK\x05\x06` as the end record's offset field.
# usage: sig_offset.sh OUT   (from the repository, its venv active)
set -u
OUT=${1:-/tmp/rt10}
HERE=$(cd "$(dirname "$0")" && pwd)
python "$HERE/build.py" "$OUT" s2:alice: s2:bob: >/dev/null
python "$HERE/sig_offset_zip.py" "$OUT/s2/mallory.zip" extras "$HERE/gelu_standalone.py" 1000
python "$HERE/sig_offset_zip.py" "$OUT/s2/zed.zip" entries 1000000
python "$HERE/comment_zip64_zip.py" "$OUT/s2/zara.zip" 1000000   # 2b: the zip64 records out of intake's window
python - "$OUT/s2" <<'PY'
import sys, time, zipfile
from pathlib import Path
from grader.instructor import intake
for name in ("mallory.zip", "zed.zip", "zara.zip"):
    p = Path(sys.argv[1]) / name
    t = time.time()
    n = len(zipfile.ZipFile(p).infolist())
    print(f"{name}: intake.zip_entry_count -> {intake.zip_entry_count(p, 50000)}; zipfile lists {n} in {time.time() - t:.1f} s")
PY
rm -f "$OUT/s2.db"
/usr/bin/time -f "batch: wall %e s, user %U s, peak RSS %M KB" \
  python -m grader batch "$OUT/s2" --jobs 2 --db "$OUT/s2.db" --stage gelu 2>&1 | tail -6
