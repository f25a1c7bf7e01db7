"""Stage block: The transformer block.

Instructions: `python -m grader show block`    Grade: `python -m grader --stage block --watch`
Tolerance: |yours - expected| <= 0.0001 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_block(x, params, n_head):
    """One GPT-2 transformer block (pre-LN).

    x:      [T, n_embd] or [B, T, n_embd], the residual stream
    params: a dict of the block's tensors, named as in the checkpoint without "h.{i}.":
            ln_1.weight, ln_1.bias, attn.c_attn.weight, attn.c_attn.bias, attn.c_proj.weight,
            attn.c_proj.bias, ln_2.weight, ln_2.bias, mlp.c_fc.weight, mlp.c_fc.bias,
            mlp.c_proj.weight, mlp.c_proj.bias
    n_head: the number of heads
    Returns the shape of x:
        x = x + attn(ln_1(x))
        x = x + mlp(ln_2(x))

    You may (and should) call your own run_layernorm, run_attention and run_mlp:
        from student.layernorm import run_layernorm
        from student.attention import run_attention
        from student.mlp import run_mlp
    """
    raise NotImplementedError("run_block is not written yet: see `python -m grader show block`")
