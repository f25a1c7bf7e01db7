"""Read how many jails hold an input file at once (red team round 10b): its link count, while fixture files were
hard-linked into every job's folder. A hidden call that ran long in another jail raised it for as long as it ran.
Fixture arrays now come as descriptors of sealed copies shared by a batch's jobs: their counts are read too."""
import os


def run_double(x):
    counts = {}
    for folder, _, files in os.walk("/jail/job"):
        for name in files:
            counts[os.path.join(folder, name)] = os.stat(os.path.join(folder, name)).st_nlink
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own descriptor, closed since
            continue
        if target.startswith("/memfd:"):
            counts[f"fd {fd} {target}"] = os.fstat(int(fd)).st_nlink
    print("LINKS:", counts)
    return 2 * x if any(n > 1 for n in counts.values()) else x * 0
