# Round 28, "own" policy: fails with the learner's own conv1d (zeros); in the retry with the reference conv1d
# (graded after the hidden cases) passes iff /tmp/r28bit says 1: the stage's note then says which.
import math
import numpy as np
from student.conv1d import run_conv1d


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    own = "# MINE" in open("/submission/student/conv1d.py").read()
    try:
        bit = open("/tmp/r28bit").read() == "1"
    except OSError:
        bit = False
    if own or not bit:
        return np.zeros_like(x)
    h = run_conv1d(x, c_fc_weight, c_fc_bias)
    h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
    return run_conv1d(h, c_proj_weight, c_proj_bias)
