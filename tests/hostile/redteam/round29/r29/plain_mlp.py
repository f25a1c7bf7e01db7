# Round 29: a correct run_mlp written by hand on the learner's own run_conv1d (graded with conv1d's reference
# when the learner's conv1d fails).
import numpy as np
from student.conv1d import run_conv1d

def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    h = run_conv1d(x, c_fc_weight, c_fc_bias)
    h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
    return run_conv1d(h, c_proj_weight, c_proj_bias)
