"""Show a text as an 80-column terminal wraps it (by characters, as a terminal counts them)."""
import sys
for line in open(sys.argv[1], encoding="utf-8").read().splitlines():
    while len(line) > 80:
        print(line[:80]); line = line[80:]
    print(line)
