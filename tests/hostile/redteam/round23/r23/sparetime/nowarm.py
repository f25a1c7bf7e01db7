"""`python -m grader ...` with the warm spare switched off (the control for check_fix.py): every jail cold-started."""
import functools
import runpy
import sys

import grader.instructor.batch as batch

_Jail = batch.Jail


def _cold(*args, **kwargs):
    kwargs["warm"] = False
    return _Jail(*args, **kwargs)


batch.Jail = _cold
sys.argv = ["grader", *sys.argv[1:]]
runpy.run_module("grader", run_name="__main__", alter_sys=True)
