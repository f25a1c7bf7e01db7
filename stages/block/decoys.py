"""Known-wrong transformer blocks: if a learner's output matches one of these, the grader names the mistake.

Each rearranges the block's four parts (ln_1, attn, ln_2, mlp), all computed as in the reference.
"""

import math

import numpy as np


def _layer_norm(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return weight * (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) + bias


def _attn(x, p, n_head):
    *lead, n_seq, n_embd = x.shape
    d_head = n_embd // n_head
    qkv = x @ p["attn.c_attn.weight"] + p["attn.c_attn.bias"]
    q, k, v = (t.reshape(*lead, n_seq, n_head, d_head).swapaxes(-2, -3) for t in np.split(qkv, 3, axis=-1))
    s = np.where(np.tri(n_seq, dtype=bool), q @ k.swapaxes(-1, -2) / math.sqrt(d_head), -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    y = (e / e.sum(axis=-1, keepdims=True) @ v).swapaxes(-2, -3).reshape(*lead, n_seq, n_embd)
    return y @ p["attn.c_proj.weight"] + p["attn.c_proj.bias"]


def _mlp(x, p):
    h = x @ p["mlp.c_fc.weight"] + p["mlp.c_fc.bias"]
    a = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * (h * h * h))))
    return a @ p["mlp.c_proj.weight"] + p["mlp.c_proj.bias"]


def _ln_1(x, p):
    return _layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])


def _ln_2(x, p):
    return _layer_norm(x, p["ln_2.weight"], p["ln_2.bias"])


def post_ln(x, params, n_head):  # the original Transformer's order: x = ln(x + sublayer(x))
    x = _ln_1(x + _attn(x, params, n_head), params)
    return _ln_2(x + _mlp(x, params), params)


def no_attn_residual(x, params, n_head):
    x = _attn(_ln_1(x, params), params, n_head)
    return x + _mlp(_ln_2(x, params), params)


def no_mlp_residual(x, params, n_head):
    x = x + _attn(_ln_1(x, params), params, n_head)
    return _mlp(_ln_2(x, params), params)


def residual_from_normed(x, params, n_head):  # h = ln(x); x = h + sublayer(h)
    h = _ln_1(x, params)
    x = h + _attn(h, params, n_head)
    h = _ln_2(x, params)
    return h + _mlp(h, params)


def ln_1_ln_2_swapped(x, params, n_head):
    x = x + _attn(_ln_2(x, params), params, n_head)
    return x + _mlp(_ln_1(x, params), params)


def ln_1_for_both(x, params, n_head):
    x = x + _attn(_ln_1(x, params), params, n_head)
    return x + _mlp(_ln_1(x, params), params)


def parallel_attn_mlp(x, params, n_head):  # GPT-J and GPT-NeoX: both sub-blocks read the same x
    return x + _attn(_ln_1(x, params), params, n_head) + _mlp(_ln_2(x, params), params)


def mlp_before_attn(x, params, n_head):
    x = x + _mlp(_ln_2(x, params), params)
    return x + _attn(_ln_1(x, params), params, n_head)


def no_layernorm(x, params, n_head):
    x = x + _attn(x, params, n_head)
    return x + _mlp(x, params)
