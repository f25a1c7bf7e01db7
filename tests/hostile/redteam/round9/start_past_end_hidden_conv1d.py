# module: conv1d
"""Row 3b: a correct conv1d that, in a hidden call whose input's first element has its sign bit set (BIT = 1; the
control sets BIT = 0), sends row 3's frames (the job's results, then `start N`): the grader fails on the submission
(IndexError), so whether the learner is graded at all tells them the sign of a hidden input."""
import glob
import json
import sys

import numpy as np

BIT = 1


def _calls():
    return [c["case"] for f in glob.glob("/jail/job/*/job.json") for c in json.load(open(f))["calls"]]


def run_conv1d(x, weight, bias):
    x = np.asarray(x)
    cases = _calls()
    if any("hidden" in c for c in cases) and int(np.signbit(x.flat[0])) == BIT:
        child = sys.modules["grader.run.child"]
        n = len(cases)
        child.send(3, {"status": "exception", "message": "x"})  # this call's result (the job's first)
        for i in range(1, n):
            child.send(3, {"start": i, "pid": 2})
            child.send(3, {"status": "exception", "message": "x"})
        child.send(3, {"start": n, "pid": 2})
    return x @ weight + bias
