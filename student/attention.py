"""Stage attention: Causal multi-head self-attention.

Instructions: `python -m grader show attention`    Grade: `python -m grader --stage attention --watch`
Tolerance: |yours - expected| <= 0.0001 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_attention(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    """GPT-2's causal multi-head self-attention (a block's attn, without ln_1 and without the residual).

    x:             [T, n_embd] or [B, T, n_embd]   e.g. [1, 16, 768]
    c_attn_weight: [n_embd, 3*n_embd]   c_attn_bias: [3*n_embd]   q | k | v side by side
    c_proj_weight: [n_embd, n_embd]     c_proj_bias: [n_embd]
    n_head:        the number of heads (12 for GPT-2 small); d_head = n_embd // n_head
    Returns the shape of x:
        q, k, v = split(x @ c_attn_weight + c_attn_bias, 3)       each [..., T, n_embd]
        per head h (channels h*d_head to (h+1)*d_head of q, k, v):
            out_h = softmax(q_h @ k_h.T / sqrt(d_head) + causal_mask) @ v_h      key j visible to query i iff j <= i
        merged heads, side by side: [..., T, n_embd], then @ c_proj_weight + c_proj_bias

    You may (and should) call your own run_softmax and run_conv1d:
        from student.softmax import run_softmax
        from student.conv1d import run_conv1d
    """
    raise NotImplementedError("run_attention is not written yet: see `python -m grader show attention`")
