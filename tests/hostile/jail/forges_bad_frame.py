"""Write into the result pipe (fd 3) a frame whose header the grader's JSON reader might trip over."""
import os
import struct

HEADER = @@HEADER@@


def run_double(x):
    os.write(3, struct.pack("<Q", len(HEADER)) + HEADER)
    return 2 * x
