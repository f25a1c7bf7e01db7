"""Stage mlp: The MLP, GPT-2's feed-forward network.

Instructions: `python -m grader show mlp`    Grade: `python -m grader --stage mlp --watch`
Tolerance: |yours - expected| <= 0.0001 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    """GPT-2's feed-forward network: c_fc, then gelu_new, then c_proj.

    x:             [..., n_embd]        e.g. [B, T, 768]
    c_fc_weight:   [n_embd, 4*n_embd]   c_fc_bias:   [4*n_embd]
    c_proj_weight: [4*n_embd, n_embd]   c_proj_bias: [n_embd]
    Returns [..., n_embd], the shape of x. No layer norm and no residual here: the block adds those.

    You may (and should) call your own run_conv1d and run_gelu:
        from student.conv1d import run_conv1d
        from student.gelu import run_gelu
    """
    raise NotImplementedError("run_mlp is not written yet: see `python -m grader show mlp`")
