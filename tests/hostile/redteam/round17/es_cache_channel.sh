#!/bin/sh
# Round 17 break 2: a_send's hidden conv1d input (hidden_2: x[0, 0, :4]) reaches c_recv's public feedback, --jobs 1,
# through ext4's extent status cache of standard-library files. FRAC picks a fresh part of the standard library for
# each run (the bits stay set until the kernel reclaims the cache). NOSEND=1: the control, no sender.
set -e
cd /work/redteam17 && . .venv/bin/activate
D=${D:-/tmp/rt17-g}; F=${FRAC:-7}; rm -rf $D; mkdir -p $D/subs/a_send/student $D/subs/b_honest/student $D/subs/c_recv/student
sed "s/MODE/send/; s/FRACX/$F/; s/EXTX/${EXT-.py}/" round17/es_cache_channel_conv1d.py > $D/subs/a_send/student/conv1d.py
sed "s/MODE/recv/; s/FRACX/$F/; s/EXTX/${EXT-.py}/" round17/es_cache_channel_conv1d.py > $D/subs/c_recv/student/conv1d.py
cp round17/honest_conv1d.py $D/subs/b_honest/student/conv1d.py
[ -n "$NOSEND" ] && rm -rf $D/subs/a_send
python -m grader batch $D/subs --stage conv1d --db $D/g.sqlite --feedback $D/fb ${JOBS:+--jobs $JOBS} 2>&1 | tail -5
grep -h "got\|^Score\|hidden" $D/fb/*.txt | cut -c1-200
python -c "import numpy as np; print('the hidden input:', np.load('fixtures/conv1d/hidden_2/x.npy').ravel()[:4].tolist())"
