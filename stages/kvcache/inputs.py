"""Inputs for cached attention: one attention layer's weights, and the (k, v) cache of a prefix under them.

A case's `past` must be what the same layer computed for earlier positions, so the weights and the cache are both
made here from one `weights_seed`: `attn_weight` gives one of the four tensors, `past_kv` runs a prefix of rows
shaped like ln_1's output through the same c_attn. The rows themselves come from the case's own seed
(`prefix_rows`, from common/activations.py's `layernormed`), so a test can rebuild the whole prefix and check the
cached output against uncached attention.
"""

import math

import numpy as np

from common.activations import layernormed

PARTS = ("c_attn_weight", "c_attn_bias", "c_proj_weight", "c_proj_bias")


def weights(rng, n_embd, qk_gain=1.0):
    """The four tensors of an attention layer, float32, at GPT-2's scale for the width (biases not zero).

    qk_gain scales the q and k columns of c_attn: 4 makes peaky attention (mean largest weight ~0.8), where scale
    and mask mistakes show most."""
    std = 0.02 * math.sqrt(768 / n_embd)
    c_attn_weight = rng.normal(0.0, std, size=(n_embd, 3 * n_embd))
    c_attn_weight[:, :2 * n_embd] *= qk_gain
    tensors = {"c_attn_weight": c_attn_weight, "c_attn_bias": rng.normal(0.0, 0.02, size=3 * n_embd),
               "c_proj_weight": rng.normal(0.0, std, size=(n_embd, n_embd)),
               "c_proj_bias": rng.normal(0.0, 0.02, size=n_embd)}
    return {k: v.astype(np.float32) for k, v in tensors.items()}


def attn_weight(rng, n_embd, part, qk_gain=1.0):
    """One of the layer's tensors (part: c_attn_weight, c_attn_bias, c_proj_weight or c_proj_bias)."""
    return weights(rng, n_embd, qk_gain)[part]


def prefix_rows(rng, shape, n_embd):
    """The earlier positions' inputs: [..., n_past, n_embd] (shape is [..., n_past])."""
    return layernormed(rng, (*shape, n_embd))


def past_kv(rng, shape, n_embd, n_head, weights_seed, qk_gain=1.0):
    """(k, v) of a prefix as a layer's cache holds them: stacked, [2, ..., n_head, n_past, d_head] float32.

    `k, v = past` unpacks it as it would a tuple. shape is [..., n_past]: the prefix's leading axes and length."""
    w = weights(np.random.RandomState(weights_seed), n_embd, qk_gain)
    x = prefix_rows(rng, shape, n_embd).astype(np.float64)
    qkv = x @ w["c_attn_weight"].astype(np.float64) + w["c_attn_bias"].astype(np.float64)
    _, k, v = np.split(qkv, 3, axis=-1)  # [..., n_past, n_embd] each
    heads = [np.moveaxis(t.reshape(*t.shape[:-1], n_head, n_embd // n_head), -2, -3) for t in (k, v)]
    return np.stack(heads).astype(np.float32)  # [2, ..., n_head, n_past, d_head]
