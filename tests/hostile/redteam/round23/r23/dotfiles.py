"""Fill a folder submission with N empty dot-files (not counted against MAX_ENTRIES: skipped before the count)."""
import os, sys
folder, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    os.close(os.open(os.path.join(folder, f".{i:08d}"), os.O_CREAT | os.O_WRONLY, 0o644))
