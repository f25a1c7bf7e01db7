import importlib


def run_attention(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return importlib.import_module("student._course_common_gpt2").mha(x, c_attn_weight, c_attn_bias, c_proj_weight,
                                                                       c_proj_bias, n_head)
