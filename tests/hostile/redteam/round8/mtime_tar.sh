#!/usr/bin/env bash
# A learner's tarball (pax format) whose student/gelu.py has mtime 7e16 s (year ~2.2e9). The instructor unpacks it
# with GNU tar into the submissions folder; where that folder and the grader's temporary folder are on a file system
# with 64-bit times (tmpfs /tmp: the default on Fedora, Arch, Debian 13; btrfs), unpack keeps the time
# (submissions._write: os.utime), late.submitted_at records 7e16, and every later `report` (text, --csv, --html,
# --feedback) and `feedback mallory` stops on time.localtime(7e16): OSError EOVERFLOW, "the grader itself failed".
# ext4 clamps times to 2446, so this needs tmpfs or btrfs; here TMPDIR and the folder are under /dev/shm.
# usage: bash mtime_tar.sh OUT SHM   (OUT/.honest built by build.py; SHM a folder on tmpfs, e.g. /dev/shm/rt8)
set -u
OUT=$1; SHM=$2
rm -rf "$SHM" && mkdir -p "$SHM/subs" "$SHM/tmp" "$SHM/build"
cp -r "$OUT/.honest" "$SHM/build/mallory"
(cd "$SHM/build" && python3 - "$OUT/mallory.tar" <<'PY'
import os, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as tf:
    for root, _, files in os.walk("mallory"):
        for f in files:
            p = os.path.join(root, f)
            ti = tf.gettarinfo(p)
            if f == "gelu.py":
                ti.mtime = 70000000000000000
            with open(p, "rb") as fh:
                tf.addfile(ti, fh)
PY
)
cp -r "$OUT/.honest" "$SHM/subs/alice"
(cd "$SHM/subs" && tar xf "$OUT/mallory.tar" 2>&1 | head -1)
stat -c '%n mtime %Y' "$SHM/subs/mallory/student/gelu.py"
rm -f "$OUT/mt.db"
TMPDIR="$SHM/tmp" python -m grader batch "$SHM/subs" --jobs 2 --db "$OUT/mt.db" --stage gelu
for cmd in "report --db $OUT/mt.db" "report --db $OUT/mt.db --csv $OUT/mt.csv" "feedback mallory --db $OUT/mt.db" "feedback alice --db $OUT/mt.db"; do
  echo "--- $cmd"; python -m grader $cmd 2>&1 | tail -1; echo "rc=${PIPESTATUS[0]}"
done
echo "=== 6b. mtime 2**63-1: unpack's own os.utime overflows (a grader error row, whatever file system /tmp is on)"
rm -rf "$SHM/subs/mallory" "$SHM/build/mallory" && cp -r "$OUT/.honest" "$SHM/build/mallory"
(cd "$SHM/build" && python3 - "$OUT/mallory-max.tar" <<'PY'
import os, sys, tarfile
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as tf:
    for root, _, files in os.walk("mallory"):
        for f in files:
            p = os.path.join(root, f)
            ti = tf.gettarinfo(p)
            if f == "gelu.py":
                ti.mtime = 2**63 - 1
            with open(p, "rb") as fh:
                tf.addfile(ti, fh)
PY
)
(cd "$SHM/subs" && tar xf "$OUT/mallory-max.tar" 2>&1 | head -1)
rm -f "$OUT/mx.db"
python -m grader batch "$SHM/subs" --jobs 2 --db "$OUT/mx.db" --stage gelu
