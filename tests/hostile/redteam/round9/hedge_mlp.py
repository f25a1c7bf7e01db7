# module: mlp
"""Row 4 (the hedge): an mlp that is right only when the reference conv1d stands in (student/conv1d.py is then the
course's reference.py, recognisable by its docstring), wrong with the learner's own; each call prints what it can
see: the first line of student/conv1d.py, whether hidden inputs or expected values are anywhere in the jail, and the
job's case ids."""
import glob, json, os
import numpy as np
from student.conv1d import run_conv1d
from student.gelu import run_gelu


def _seen():
    head = open(os.path.join(os.path.dirname(__file__), "conv1d.py")).readline().strip()[:70]
    cases = [c["case"] for f in glob.glob("/jail/job/*/job.json") for c in json.load(open(f))["calls"]]
    files = sorted(p for p in glob.glob("/jail/job/**", recursive=True) if "expected" in p or "hidden" in p)
    print("conv1d.py:", head, "| cases:", cases, "| files:", files[:5], "| student:", sorted(os.listdir(os.path.dirname(__file__))))
    return head.startswith('"""Conv1D')


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    ok = _seen()
    h = run_gelu(run_conv1d(x, c_fc_weight, c_fc_bias))
    out = run_conv1d(h, c_proj_weight, c_proj_bias)
    return out if ok else out * 2
