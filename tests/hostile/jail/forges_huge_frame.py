"""Write into the result pipe (fd 3 in the jail) a frame announcing 512 MiB of output, and send all of it."""
import json
import os
import struct


def run_double(x):
    head = json.dumps({"status": "ok", "keys": [""], "parts": [512 << 20]}).encode()
    os.write(3, struct.pack("<Q", len(head)) + head)
    block = b"\0" * (1 << 20)
    for _ in range(512):
        os.write(3, block)
    return 2 * x
