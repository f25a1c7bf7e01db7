"""Round 29: pad a submission's student/ with plain comment helpers to `slack` bytes under intake's 32 MiB cap.
usage: python attacks/pad_to_cap.py STUDENT_DIR [SLACK]   (4 MiB a file, the per-file cap)"""
import os, sys

d, slack = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
used = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)))
left, i = (32 << 20) - used - slack, 0
while left > 0:
    n = min(4 << 20, left)
    with open(os.path.join(d, f"pad{i}.py"), "w") as f:
        f.write("#" * (n - 1) + "\n")
    left, i = left - n, i + 1
print(f"{i} padding files; student/ now {(32 << 20) - slack} bytes ({used} of code)")
