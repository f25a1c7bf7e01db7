"""Red team round 9: the first call writes on the result pipe (fd 3, its own) the frames the grader expects from
the worker for every call of the job, then `start N`, one past the last call. The grader indexed past its list of
calls (IndexError): the submission's row was a grader error, and, done from a hidden call by a bit of its input,
one bit of that input per submission."""
import glob
import json
import sys

_sent = [False]


def run_double(x):
    if not _sent[0]:
        _sent[0] = True
        child = sys.modules["grader.run.child"]
        jobs = glob.glob("/jail/job/*/job.json")
        n = len(json.load(open(jobs[0]))["calls"]) if jobs else 1
        child.send(3, {"status": "exception", "message": "x"})  # the result of call 0 (this one)
        for i in range(1, n):
            child.send(3, {"start": i, "pid": 2})
            child.send(3, {"status": "exception", "message": "x"})
        child.send(3, {"start": n, "pid": 2})  # one past the last call
    return 2 * x
