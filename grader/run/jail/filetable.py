"""The machine's table of open files, which no cgroup bounds: made large enough that each jail's memory cap does.

A file a jail opens stays in the kernel's table while a mapping holds it, its descriptor closed or not:
RLIMIT_NOFILE bounds descriptors, not files. Red team round 10 held 480,000 files from 8 processes (open, mmap,
close, again) and, run longer, filled this machine's table (fs.file-max 2,466,177, the kernel's default for 24 GiB):
bubblewrap could not start the next jail and the other learners' calls failed with ENFILE. There is no per-cgroup
count of files to cap, but each file and its mapping are kernel memory charged to the jail's memory cgroup (about
400 bytes: measured on Linux 6.18, cgroup v1; v2 charges the same slabs), so once fs.file-max is above what the
jails' memory caps could pay for, the cap bounds a jail's files as it bounds the rest of its memory. A root grader
raises it to the kernel's ceiling; one that cannot says so, with the command.
"""

from __future__ import annotations

from pathlib import Path

FILE_MAX = Path("/proc/sys/fs/file-max")
FILE_NR = Path("/proc/sys/fs/file-nr")
FILE_COST = 256  # bytes of kernel memory one held file costs at the least (its struct file; a mapping adds a VMA)
CEILING = (1 << 63) - 1  # the largest fs.file-max the kernel takes (LONG_MAX)


def make_room(jails: int, memory_mb: int) -> str | None:
    """Raise fs.file-max above what `jails` jails of `memory_mb` MiB each could hold open, if it is not already.

    Returns None when there was room, else a line for the instructor: what was changed, or why one submission
    could still fill the machine's table (not root, or /proc/sys read-only as in a container) and the command.
    """
    try:
        limit = int(FILE_MAX.read_text().split()[0])
        in_use = int(FILE_NR.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None  # not Linux's /proc: nothing to say
    could = jails * (memory_mb << 20) // FILE_COST
    if limit >= in_use + could:
        return None
    try:
        FILE_MAX.write_text(f"{CEILING}\n")
    except OSError as e:
        return (f"warning: the machine's table of open files holds {limit:,} (fs.file-max) and {jails} jail(s) of "
                f"{memory_mb} MiB could hold {could:,}, so one submission could fill it and fail the others graded "
                f"beside it; it could not be raised here ({e.strerror or e}). As root: "
                f"`sysctl -w fs.file-max={CEILING}` (docs/jail.md)")
    return (f"raised fs.file-max (the machine's table of open files) from {limit:,} to the kernel's ceiling: "
            f"{jails} jail(s) of {memory_mb} MiB could hold {could:,} open files, and now their memory caps bound "
            "them (docs/jail.md)")
