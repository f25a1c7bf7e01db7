#!/usr/bin/env bash
# Row 1: a 1,119-byte zip whose student/gelu.py is bzip2 holding 1 GiB of zeros (declared 15 bytes).
# usage: bzip2_bomb.sh OUT    (run from the repository, its venv active)
set -u
OUT=${1:-/tmp/rt10}
HERE=$(cd "$(dirname "$0")" && pwd)
python "$HERE/build.py" "$OUT" b1:alice: b1:zoe: b1c:alice: b1c:nina: b1c:oscar: b1c:zoe: b1j:alice: b1j:zoe: >/dev/null
python "$HERE/bzip2_bomb_zip.py" "$OUT/b1/mallory.zip" 1
python "$HERE/bzip2_bomb_zip.py" "$OUT/b1/nemo.zip" 1 bzip2 "$HERE/gelu_standalone.py"  # graded after the spike
cp "$OUT/b1/mallory.zip" "$OUT/b1c/mallory.zip"
cp "$OUT/b1/mallory.zip" "$OUT/b1j/mallory.zip"
echo "== part 1: the batch as it runs (no memory cap): the worker's peak"
rm -f "$OUT/b1.db"
/usr/bin/time -f "batch: wall %e s, peak RSS (largest process) %M KB" \
  python -m grader batch "$OUT/b1" --jobs 2 --db "$OUT/b1.db" --stage gelu 2>&1 | tail -6
echo "== part 2: the same batch where the machine has 1.5 GB to spare (a memory cgroup stands in for the RAM)"
rm -f "$OUT/b1c.db"
bash "$HERE/in_memory_cgroup.sh" 1500M python -m grader batch "$OUT/b1c" --jobs 2 --db "$OUT/b1c.db" 2>&1 | tail -8
echo "== the gradebook's rows"
python -m grader report --db "$OUT/b1c.db" --lms "$OUT/b1c.lms" >/dev/null 2>&1; cat "$OUT/b1c.lms"
echo "== part 3: the default --jobs 1 (the batch grades in its own process), same 1.5 GB"
rm -f "$OUT/b1j.db"
bash "$HERE/in_memory_cgroup.sh" 1500M python -m grader batch "$OUT/b1j" --db "$OUT/b1j.db" --stage gelu 2>&1 | tail -4
echo "== the gradebook's rows (zoe, sorted after mallory, is never graded while mallory.zip is in the folder)"
python -m grader report --db "$OUT/b1j.db" --lms "$OUT/b1j.lms" >/dev/null 2>&1; cat "$OUT/b1j.lms"
