"""Write frames out of order: a start for a case far ahead, then a result; then a deeply nested header."""
import json
import os
import struct

from grader.run import child


def run_double(x):
    for fd in range(3, 256):
        try:
            child.send(fd, {"start": 99})
            child.send(fd, {"status": "ok", "keys": []})
            head = b"[" * 200000
            os.write(fd, struct.pack("<Q", len(head)) + head)
        except OSError:
            pass
    return 2 * x
