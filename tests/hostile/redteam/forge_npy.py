"""Crafted .npy payloads (stage conv1d): each public call writes its own `result` frame into the result pipe (fd 3)
with a payload numpy's reader or the comparator may mishandle, (the worker's own frame follows and is refused as unasked-for):
case 0 dtype <U0 with shape (10**12,) and no bytes; case 1 float64 of shape (2**62, 0); case 2 an .npy version 3.0
header; case 3 the right values as big-endian float64 in Fortran order (a legitimate pass); case 4 shape (True, 3)
booleans as dimensions; case 5 1000 keys of 1-element arrays for an array stage. Hidden calls do the same with case 0's
payload. Held if each is BAD_OUTPUT or FAIL (or PASS for case 3) and the batch records the submission as graded,
never a grader error."""
import json
import os
import struct

import numpy as np

_N = [0]


def _npy(dtype, shape, body=b"", version=(1, 0), fortran=False):
    header = "{'descr': %r, 'fortran_order': %r, 'shape': %r, }" % (dtype, fortran, shape)
    header += " " * ((64 - (len(header) + 11) % 64) % 64) + "\n"
    if version == (1, 0):
        head = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode()
    else:
        head = b"\x93NUMPY" + bytes(version) + struct.pack("<I", len(header)) + header.encode()
    return head + body


def _send(case, keys, parts):
    head = json.dumps({"result": case, "status": "ok", "keys": keys, "modules": ["student.conv1d"],
                       "parts": [len(p) for p in parts]}).encode()
    os.write(3, struct.pack("<Q", len(head)) + head + b"".join(parts))


def run_conv1d(x, weight, bias):
    right = np.asarray(x @ weight + bias, dtype=">f8")
    order = [(2, 3), (16, 768), (2, 32, 768), (2, 32, 3072), (2, 16, 768), (4, 8)]
    i = order.index(x.shape) if x.shape in order else 0
    variants = [
        ([""], [_npy("<U0", (10**12,))]),
        ([""], [_npy("<f8", (2**62, 0))]),
        ([""], [_npy("<f8", right.shape, right.astype("<f8").tobytes(), version=(3, 0))]),
        ([""], [_npy(">f8", right.shape, right.tobytes(order="F"), fortran=True)]),
        ([""], [_npy("|b1", (True, 3), b"\x01\x00\x01")]),
        ([str(k) for k in range(1000)], [_npy("<f8", (1,), b"\0" * 8)] * 1000),
    ]
    keys, parts = variants[i % len(variants)]
    _send(i, keys, parts)
    return right  # the worker's own frame comes after ours: refused as unasked-for, the rest run in a new jail
