"""Causal multi-head self-attention, GPT-2's `attn`: c_attn to q, k, v; n_head heads of scaled dot-product
attention, each position seeing itself and the positions before it; the heads side by side; c_proj.

References: openai/gpt-2 src/model.py `attn` (split_heads, mask_attn_weights, merge_heads); transformers models/gpt2
GPT2Attention (`scaling = head_dim**-0.5`); jaymody/picoGPT gpt2.py `attention` and `mha`; Vaswani et al. (2017),
"Attention Is All You Need", section 3.2.
"""

import math

import numpy as np


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def linear(x, w, b):
    return x @ w + b  # [..., nx] @ [nx, nf] + [nf] -> [..., nf]


def attention(q, k, v, mask):  # [..., n_seq, d_head] x3, mask [n_seq, n_seq] -> [..., n_seq, d_head]
    return softmax(q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]) + mask) @ v


def mha(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    x = linear(x, c_attn_weight, c_attn_bias)  # [..., n_seq, n_embd] -> [..., n_seq, 3*n_embd]
    qkv = np.split(x, 3, axis=-1)  # q, k, v side by side: 3 x [..., n_seq, n_embd]
    qkv_heads = [np.split(t, n_head, axis=-1) for t in qkv]  # 3 x n_head x [..., n_seq, d_head]
    n_seq = x.shape[-2]
    causal_mask = (1 - np.tri(n_seq, dtype=x.dtype)) * -1e10  # [n_seq, n_seq]: key j hidden from query i if j > i
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads, strict=True)]  # [..., n_seq, d_head]
    x = np.concatenate(out_heads, axis=-1)  # heads side by side: [..., n_seq, n_embd]
    return linear(x, c_proj_weight, c_proj_bias)  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
