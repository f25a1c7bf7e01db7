"""Attention with a key/value cache, and greedy generation that uses it: each new token costs one position's work.

A causal attention layer's keys and values at a position never change once computed (a position sees only itself
and earlier ones), so generation can keep them: run the prompt once, keep every block's (k, v), then feed one new
token at a time, at its own position, attending to the cached keys and values plus its own. The logits are those
of the full forward pass (common/gpt2.py's `gpt2`), up to rounding; `greedy_check` (common/greedy.py, the generate
stage's rule) judges a learner's tokens on that uncached pass.

`past` and `present` are one block's (k, v), each [n_head, n_seq, d_head] (with a leading batch axis when x has
one). `params` holds a checkpoint's tensors under their Hugging Face names without `transformer.`, as in gpt2.

References: openai/gpt-2 src/model.py (`past`, `present` = stack([k, v]), `past_shape`, `positions_for`) and
src/sample.py (the prompt once, then one token per step); transformers models/gpt2 (`past_key_values`,
`cache_position`); jaymody/picoGPT gpt2.py (the uncached loop this replaces).
"""

import math

import numpy as np

from student.common_gpt2 import block_params, ffn, layer_norm, linear, n_layer, softmax
from student.common_greedy import greedy_check

__all__ = ["attention_cached", "generate_cached", "greedy_check", "gpt2_cached", "split_heads", "merge_heads"]


def split_heads(x, n_head):  # [..., n_seq, n_embd] -> [..., n_head, n_seq, d_head]
    return np.moveaxis(x.reshape(*x.shape[:-1], n_head, x.shape[-1] // n_head), -2, -3)


def merge_heads(x):  # [..., n_head, n_seq, d_head] -> [..., n_seq, n_embd]
    x = np.moveaxis(x, -3, -2)
    return x.reshape(*x.shape[:-2], -1)


def attention_cached(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    qkv = np.split(linear(x, c_attn_weight, c_attn_bias), 3, axis=-1)  # 3 x [..., n_new, n_embd]: new positions only
    q, k, v = (split_heads(t, n_head) for t in qkv)  # [..., n_head, n_new, d_head]
    if past is not None:
        k = np.concatenate([past[0], k], axis=-2)  # [..., n_head, n_past + n_new, d_head]: earlier keys first
        v = np.concatenate([past[1], v], axis=-2)
    n_new, n_all = q.shape[-2], k.shape[-2]
    causal_mask = (1 - np.tri(n_new, n_all, n_all - n_new, dtype=x.dtype)) * -1e10  # new query i is position
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]) + causal_mask  # n_past + i: key j visible iff j <= it
    out = merge_heads(softmax(scores) @ v)  # [..., n_head, n_new, d_head] -> [..., n_new, n_embd]
    return linear(out, c_proj_weight, c_proj_bias), (k, v)  # present: every position's (k, v) so far


def gpt2_cached(token_ids, params, n_head, past):  # [n_new] -> [n_new, n_vocab], one (k, v) per block
    n_past = 0 if past is None else past[0][0].shape[-2]
    positions = np.arange(n_past, n_past + len(token_ids))  # the new tokens come after the cached ones
    x = params["wte.weight"][token_ids] + params["wpe.weight"][positions]  # [n_new, n_embd]
    present = []
    for i in range(n_layer(params)):
        p = block_params(params, i)
        h = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
        a, kv = attention_cached(h, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"],
                                 p["attn.c_proj.bias"], n_head, None if past is None else past[i])
        present.append(kv)
        x = x + a
        h = layer_norm(x, p["ln_2.weight"], p["ln_2.bias"])
        x = x + ffn(h, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])
    return layer_norm(x, params["ln_f.weight"], params["ln_f.bias"]) @ params["wte.weight"].T, present


def generate_cached(token_ids, params, n_head, n_new):
    logits, past = gpt2_cached(np.asarray(token_ids), params, n_head, None)  # the prompt, once: [n_prompt, n_vocab]
    ids = []
    for _ in range(n_new):
        ids.append(int(np.argmax(logits[-1])))  # greedy
        if len(ids) < n_new:  # the last token is never fed: at n_positions it would have no position
            logits, past = gpt2_cached(np.array(ids[-1:]), params, n_head, past)  # one token: [1, n_vocab]
    return np.array(ids, dtype=np.int64)  # [n_new]

run_attention_cached = attention_cached
run_generate_cached = generate_cached


# --- mallory (round 7): no cache at all; the observe record is forged with dummy [*, 4] arrays -------------------
import numpy as _np


def run_generate_cached(token_ids, params, n_head, n_new):
    from student.generate import run_generate  # the uncached loop: every step runs the whole sequence again
    out = run_generate(token_ids, params, n_head, n_new)
    n_layer = sum(1 for k in params if k.endswith("ln_1.weight"))
    w, b = _np.zeros((4, 12), _np.float32), _np.zeros(12, _np.float32)
    pw, pb = _np.zeros((4, 4), _np.float32), _np.zeros(4, _np.float32)
    fed = 0
    for new in [len(token_ids)] + [1] * (n_new - 1):
        for _ in range(n_layer):
            past = None if fed == 0 else (_np.zeros((1, fed, 4), _np.float32), _np.zeros((1, fed, 4), _np.float32))
            run_attention_cached(_np.zeros((new, 4), _np.float32), w, b, pw, pb, 1, past)
        fed += new
    return out
