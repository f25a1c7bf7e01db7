#!/bin/bash
# Round 19: run `grader batch` as a NON-ROOT instructor (uid 4242) in a delegated cgroup subtree (v1 here:
# memory, pids, cpu, cpuacct, freezer groups chowned to the uid), as docs/instructors.md allows.
# usage: nonroot.sh DIR [batch args...]   (DIR holds subs/; writes DIR/g.sqlite, DIR/fb)
# Afterwards remove the empty groups: rmdir /sys/fs/cgroup/{cpu,cpuacct,freezer,pids}/rt19nr and the memory one.
set -e
D=$1; shift
U=4242
own_mem=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
for c in memory pids cpu cpuacct freezer; do
  if [ $c = memory ]; then base=/sys/fs/cgroup/memory$own_mem; else base=/sys/fs/cgroup/$c; fi
  g=$base/rt19nr; mkdir -p $g; chown -R $U:$U $g
  echo $$ > $g/cgroup.procs
done
mkdir -p $D/home /tmp/rt19-pyenv; chown -R $U:$U $D
# Python lives below /root (0700) on this machine: a private mount namespace shows it to uid 4242 (nothing on the
# host changes); a non-root instructor would have their own Python.
exec unshare -m --propagation private /bin/bash -c '
  mount --bind /root/.pyenv /tmp/rt19-pyenv && mount -t tmpfs -o mode=755 none /root && mkdir /root/.pyenv &&
  mount --bind /tmp/rt19-pyenv /root/.pyenv && cd /work/redteam19 &&
  exec setpriv --reuid '$U' --regid '$U' --clear-groups env -i PATH=/work/redteam19/.venv/bin:/usr/bin:/bin \
    HOME='$D'/home /work/redteam19/.venv/bin/python -m grader batch '$D'/subs --db '$D'/g.sqlite --feedback '$D'/fb "$@"
' bash "$@"
