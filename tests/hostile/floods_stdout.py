"""Print 64 MiB, then answer correctly."""
import os


def run_double(x):
    line = b"PASS " * 2000 + b"\n"
    for _ in range(6500):
        os.write(1, line)
    return 2 * x
