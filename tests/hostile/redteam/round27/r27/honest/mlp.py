from student.conv1d import run_conv1d
from student.gelu import run_gelu
def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return run_conv1d(run_gelu(run_conv1d(x, c_fc_weight, c_fc_bias)), c_proj_weight, c_proj_bias)
