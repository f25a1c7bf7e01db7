# module: tokenizer
"""Appended to the honest tokenizer.py (repro.sh does it): its text answers (run_bpe_decode) reach the grader as a 0-d '<U1' array holding the code
point 0x110000 (past Unicode's last, U+10FFFF).

The worker's encode_value (grader.run.child.encode_value, in this process's memory: the learner's to change) is
wrapped: for `returns: text` it sends a well-formed .npy whose dtype is '<U1' (kind 'U', which protocol.read_npy
accepts) and whose 4 bytes are 0x110000. read_npy never looks at the values; compare._compare_text then calls
str(actual), which numpy cannot make into a Python str: SystemError ("invalid maximum character passed to
PyUnicode_New"), raised in the grader, outside any try.
"""
import io
import sys

import numpy as np


_child = sys.modules.get("grader.run.child")
_orig = _child.encode_value if _child is not None else None


def _encode(result, returns, keys=()):
    if returns != "text":
        return _orig(result, returns, keys)
    bad = np.frombuffer(np.array([0x110000], dtype="<u4").tobytes(), dtype="<U1").reshape(())
    buf = io.BytesIO()
    np.lib.format.write_array(buf, bad, allow_pickle=False)
    return [""], [buf.getvalue()]


if _child is not None:
    _child.encode_value = _encode
