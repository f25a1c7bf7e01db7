#!/usr/bin/env bash
# usage: in_memory_cgroup.sh LIMIT COMMAND...: run COMMAND in a fresh cgroup v1 memory group below this shell's own,
# capped at LIMIT (e.g. 1500M). It stands in for the grading machine's RAM, so that a batch worker's out-of-memory
# kill is shown without running this machine out of memory. The group is removed afterwards.
set -u
LIMIT=$1; shift
own=$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
G=/sys/fs/cgroup/memory$own/rt10-$$
mkdir "$G"
echo "$LIMIT" > "$G/memory.limit_in_bytes"
( echo $BASHPID > "$G/cgroup.procs"; exec "$@" )
rc=$?
echo "memory group $G: limit $(cat $G/memory.limit_in_bytes), peak $(cat $G/memory.max_usage_in_bytes), failcnt $(cat $G/memory.failcnt), oom_kill $(grep oom_kill $G/memory.oom_control | awk '{print $2}')"
sleep 1; find "$G" -depth -type d -exec rmdir {} \; 2>/dev/null; [ -d "$G" ] && echo "(could not remove $G yet)"
exit $rc
