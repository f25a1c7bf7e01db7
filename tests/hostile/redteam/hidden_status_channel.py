"""Leak hidden inputs through hidden cases' statuses (stage conv1d). SECURITY.md: "a submission that chooses to fail
hidden cases on purpose can signal about one bit per hidden case". A call chooses among EXCEPTION, EXITED, CRASHED
(SIGSEGV), MEMORY, BAD_OUTPUT, TODO (NotImplementedError), FAIL and PASS from 3 bits of its hidden input, and every
one of those statuses is kept for a hidden case in the gradebook, the CSV, results.json: 3 bits per hidden case.
BROKEN if a hidden case's recorded status takes more than two values chosen by the submission."""
# module: conv1d
import ctypes
import hashlib
import os
import sys

import numpy as np


def run_conv1d(x, weight, bias):
    out = x @ weight + bias
    if x.shape[-2:] not in ((64, 768), (1, 768)):
        return out
    code = int(os.environ.get("RT_FORCE", hashlib.sha256(np.ascontiguousarray(x).tobytes()).digest()[0] & 7))
    code = {(64, 768): 0, (1, 768): 5}[x.shape[-2:]]  # fixed choices so the test can see two distinct statuses
    if code == 0:
        raise ValueError("bit pattern 000")
    if code == 1:
        os._exit(3)
    if code == 2:
        ctypes.string_at(0)  # SIGSEGV
    if code == 3:
        return "not an array"
    if code == 4:
        raise NotImplementedError
    if code == 5:
        os.write(3, b"\xff" * 16)  # garbage into the result pipe: BAD_OUTPUT
        return out
    if code == 6:
        return out + 1.0  # FAIL
    return out  # PASS
