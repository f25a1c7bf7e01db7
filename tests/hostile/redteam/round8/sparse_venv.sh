#!/usr/bin/env bash
# A learner's 70 KB tarball (GNU tar -S) holding student/ and a 20 GB sparse .venv/lib/libtorch_cuda.so. The
# instructor unpacks it into the submissions folder (GNU tar restores sparse members sparse: 112 KB on disk). intake
# never looks in .venv, but regrade.plan hashes every submission first, in the batch's own process, before any
# learner is graded (contents.digest): every byte of every file, ignored folders included, no cap. The batch stalls
# for ~45 s here (20 GB of zeros), every run, in nobody's row; 1 TB sparse costs ~40 min a run.
# usage: bash sparse_venv.sh OUT [SIZE]   (OUT/.honest built by build.py; run from the checkout under test)
set -u
OUT=$1; SIZE=${2:-20G}
rm -rf "$OUT/sp" "$OUT/sp.db" && mkdir -p "$OUT/sp/build/mallory/.venv/lib" "$OUT/sp/subs"
cp -r "$OUT/.honest/student" "$OUT/sp/build/mallory/"
truncate -s "$SIZE" "$OUT/sp/build/mallory/.venv/lib/libtorch_cuda.so"
(cd "$OUT/sp/build" && tar -S -cf "$OUT/sp/mallory.tar" mallory) && ls -l "$OUT/sp/mallory.tar"
cp -r "$OUT/.honest" "$OUT/sp/subs/alice"
(cd "$OUT/sp/subs" && tar -xf "$OUT/sp/mallory.tar")
du -sh --apparent-size "$OUT/sp/subs/mallory"; du -sh "$OUT/sp/subs/mallory"
/usr/bin/time -f "wall %e s" python -m grader batch "$OUT/sp/subs" --jobs 2 --db "$OUT/sp.db" --stage gelu
echo "--- control: the same without the sparse file"
rm "$OUT/sp/subs/mallory/.venv/lib/libtorch_cuda.so"; rm -f "$OUT/sp.db"
/usr/bin/time -f "wall %e s" python -m grader batch "$OUT/sp/subs" --jobs 2 --db "$OUT/sp.db" --stage gelu
