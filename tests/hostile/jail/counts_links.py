"""Read how many jails hold an input file at once (red team round 10b): its link count, while fixture files were
hard-linked into every job's folder. A hidden call that ran long in another jail raised it for as long as it ran."""
import os


def run_double(x):
    counts = {}
    for folder, _, files in os.walk("/jail/job"):
        for name in files:
            counts[os.path.join(folder, name)] = os.stat(os.path.join(folder, name)).st_nlink
    print("LINKS:", counts)
    return 2 * x if any(n > 1 for n in counts.values()) else x * 0
