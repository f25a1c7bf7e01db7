#!/usr/bin/env bash
# Round 7, row 4b: main's similarity fix (cce3606: whole submissions compared, comment lines dropped before the caps)
# against three paddings it does not drop: dora, the copy behind a 70 KB docstring (string lines are kept and fill the
# 64 KiB a file is read to); rita, behind 1.1 MiB of comment lines (past RAW_CHARS, the 1 MiB read before condensing;
# intake takes files up to 4 MiB); gina, the copy untouched in softmax.py but attention.py and block.py (read first:
# stage files by name) padded with 64 KiB docstrings, spending the submission's 128 KiB before softmax.py.
# usage: (cd CHECKOUT_OF_MAIN && bash /work/redteam7/tests/hostile/redteam/round7/similarity_main.sh OUT)
set -u
OUT=$1
R=/work/redteam7/tests/hostile/redteam/round7
python $R/build.py $OUT sm:alice:softmax.py=alice_softmax.py sm:carol:softmax.py=alice_softmax.py \
  sm:bob:softmax.py=bob_softmax.py,mine.py=bob_helper_mine.py sm:fred:softmax.py=padded_softmax.py \
  sm:dora:softmax.py=docstring_padded_softmax.py sm:rita:softmax.py=rawcap_padded_softmax.py \
  sm:gina:softmax.py=alice_softmax.py,attention.py=padded_attention.py,block.py=padded_block.py sm:dave: sm:erin:
rm -f $OUT/sm.db
python -m grader batch $OUT/sm --jobs 2 --db $OUT/sm.db --stage softmax | tail -1
python -m grader report --db $OUT/sm.db | grep -A8 "^Similar"
