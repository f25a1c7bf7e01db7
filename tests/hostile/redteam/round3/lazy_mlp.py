import importlib


def _ref():
    return importlib.import_module("student._course_common_gpt2")


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return _ref().ffn(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias)
