"""Show a captured output as an 80-column terminal would wrap it (no escape codes involved)."""
import sys
cols = int(sys.argv[2]) if len(sys.argv) > 2 else 80
for line in open(sys.argv[1], encoding="utf-8").read().splitlines():
    while len(line) > cols:
        print(line[:cols]); line = line[cols:]
    print(line)
