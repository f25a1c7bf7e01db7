#!/usr/bin/env bash
# Round 6's runs, each a real jailed batch (--jobs 2) with an honest learner (alice: the references under the
# learner's names) beside the hostile one, and rows 2-3 through the Gradescope bundle's run_autograder.
# usage: bash tests/hostile/redteam/round6/repro.sh [OUT]   (from the clone's root, its venv active; ~2 minutes)
set -u
OUT=${1:-/tmp/rt6}
R=tests/hostile/redteam/round6
B="python $R/build.py $OUT"
G="python -m grader"
rm -f $OUT/*.db
# 1. another jail's hidden input through /proc/zoneinfo's nr_shmem (round 5's Shmem sender, unchanged)
$B zi:aaa_sender:conv1d.py=zoneinfo_sender_conv1d.py zi:zzz_receiver:conv1d.py=zoneinfo_receiver_conv1d.py zi:zzzz_alice:
$G batch $OUT/zi --jobs 2 --db $OUT/zi.db --stage conv1d | tail -4
$G feedback --db $OUT/zi.db zzz_receiver | grep -A1 printed
# 2. one learner's own hidden input across the jail reset, through memfd inode numbers (per-CPU, host-wide)
$B mi:alice: mi:zoe:conv1d.py=memfdino_sender_conv1d.py,mlp.py=memfdino_receiver_mlp.py
$G batch $OUT/mi --jobs 2 --db $OUT/mi.db --stage conv1d --stage mlp | tail -3
$G feedback --db $OUT/mi.db zoe | grep -E "memfd inode|^(PASS|FAIL) "
# 3. the same across the reset through the page cache, asked with io_submit(RWF_NOWAIT): eight whole float32s
$B aio:alice: aio:zed:conv1d.py=aionowait_sender_conv1d.py,mlp.py=aionowait_receiver_mlp.py
$G batch $OUT/aio --jobs 2 --db $OUT/aio.db --stage conv1d --stage mlp | tail -3
$G feedback --db $OUT/aio.db zed | grep -E "page cache|^(PASS|FAIL) "
python -c "import numpy as np; print('fixture x[0,0,:8]:', [float(v) for v in np.load('fixtures/conv1d/hidden_1/x.npy').reshape(-1)[:8]])"
# 2-3 through the Gradescope bundle (one submission alone)
$G gradescope $OUT/autograder.zip >/dev/null
bash tests/hostile/redteam/round5/run_gs.sh $OUT/autograder.zip $OUT/mi/zoe $OUT/gs-zoe >/dev/null 2>&1
grep -o 'memfd inode[^"]*' $OUT/gs-zoe/results/results.json
bash tests/hostile/redteam/round5/run_gs.sh $OUT/autograder.zip $OUT/aio/zed $OUT/gs-zed >/dev/null 2>&1
grep -o 'page cache[^"]*' $OUT/gs-zed/results/results.json
# 4 (and 5, round 5's row 17 re-run). a submission named Student takes the whole batch; one named bob.zip stops it
bash $R/names.sh $OUT
# 6. the late policy reads the learner's own file times
$B late:alice: late:mallory: && find $OUT/late/mallory -type f -exec touch -d '2026-11-29 12:00' {} +
$G batch $OUT/late --jobs 2 --db $OUT/late.db --stage gelu --deadline 2026-11-30T00:00Z | tail -1
$G report --db $OUT/late.db | grep -E "^  (alice|mallory) "
# recon: which host-wide /proc files remain, AIO RWF_NOWAIT, pidfd_open
$B pr:alice: pr:pat:gelu.py=probe_gelu.py gp:alice: gp:gus:gelu.py=gaps_probe_gelu.py
$G batch $OUT/pr --jobs 2 --db $OUT/pr.db --stage gelu >/dev/null && $G feedback --db $OUT/pr.db pat | grep -E "zoneinfo|pressure/cpu|inos"
$G batch $OUT/gp --jobs 2 --db $OUT/gp.db --stage gelu >/dev/null && $G feedback --db $OUT/gp.db gus | grep -E "aio|pidfd"
# 19. a never-imported 64 KiB helper makes the grader's similarity tokenize take ~100 s (alice 0.5 s beside)
$B tok:alice: tok:mallory:aaa_notes.py=slow_tokenize_helper.py,aab_notes.py=slow_tokenize_helper.py
$G batch $OUT/tok --jobs 2 --db $OUT/tok.db --stage gelu | tail -3
# 24. another jail's hidden input through the machine's pty pool (concurrent jails)
$B pp:aaa_sender:conv1d.py=pty_sender_conv1d.py pp:zzz_receiver:conv1d.py=pty_receiver_conv1d.py pp:zzzz_alice:
$G batch $OUT/pp --jobs 2 --db $OUT/pp.db --stage conv1d | tail -4
$G feedback --db $OUT/pp.db zzz_receiver | grep -A1 printed
# 26. the AIO event pool, exact from a jail
$B ap:alice: ap:ada:gelu.py=aiopool_probe_gelu.py
$G batch $OUT/ap --jobs 2 --db $OUT/ap.db --stage gelu | tail -1 && $G feedback --db $OUT/ap.db ada | grep "io_setup"
# 27. /proc/net/sockstat's TCP alloc/mem are the machine's: the host sees a jail's loopback sockets
$B ss:alice: ss:sam:gelu.py=sockstat_probe_gelu.py
(for i in $(seq 1 80); do grep "^TCP" /proc/net/sockstat; sleep 0.05; done | sort | uniq -c > $OUT/sockstat_host.txt) &
$G batch $OUT/ss --jobs 2 --db $OUT/ss.db --stage gelu | tail -1; wait; cat $OUT/sockstat_host.txt
$G feedback --db $OUT/ss.db sam | grep holding
