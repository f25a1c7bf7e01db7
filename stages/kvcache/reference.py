"""Attention with a key/value cache, and greedy generation that uses it: each new token costs one position's work.

A causal attention layer's keys and values at a position never change once computed (a position sees only itself
and earlier ones), so generation can keep them: run the prompt once, keep every block's (k, v), then feed one new
token at a time, at its own position, attending to the cached keys and values plus its own. The logits are those
of the full forward pass (gpt2 below), up to rounding.

`past` and `present` are one block's (k, v), each [n_head, n_seq, d_head] (with a leading batch axis when x has
one). `params` holds a checkpoint's tensors under their Hugging Face names without `transformer.`, as in gpt2.

References: openai/gpt-2 src/model.py (`past`, `present` = stack([k, v]), `past_shape`, `positions_for`) and
src/sample.py (the prompt once, then one token per step); transformers models/gpt2 (`past_key_values`,
`cache_position`); jaymody/picoGPT gpt2.py (the uncached loop this replaces).
"""

import math

import numpy as np

EPS = 1e-5  # layer_norm_epsilon
TAU_REL, TAU_ABS = 2e-5, 1e-6  # a token is greedy if its logit is within TAU_REL * max|logit| + TAU_ABS of the best


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)


def layer_norm(x, weight, bias):
    mean = np.mean(x, axis=-1, keepdims=True)
    variance = np.var(x, axis=-1, keepdims=True)
    return weight * (x - mean) / np.sqrt(variance + EPS) + bias  # [..., n_embd]


def linear(x, w, b):
    return x @ w + b  # [..., nx] @ [nx, nf] + [nf] -> [..., nf]


def ffn(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    a = gelu(linear(x, c_fc_weight, c_fc_bias))  # [..., n_seq, n_embd] -> [..., n_seq, 4*n_embd]
    return linear(a, c_proj_weight, c_proj_bias)  # [..., n_seq, 4*n_embd] -> [..., n_seq, n_embd]


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


def block_params(params, i):  # "h.{i}.ln_1.weight" -> "ln_1.weight"
    return {name[len(f"h.{i}."):]: w for name, w in params.items() if name.startswith(f"h.{i}.")}


def n_layer(params):
    return len({name.split(".")[1] for name in params if name.startswith("h.")})


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


# --- the uncached forward pass, which the cached one must agree with, and the greedy rule ---------------------

def gpt2(token_ids, params, n_head):  # [n_seq] -> [n_seq, n_vocab]: everything from scratch, no cache
    return gpt2_cached(np.asarray(token_ids), params, n_head, None)[0]


def greedy_check(actual, token_ids, params, n_head, n_new):
    """None if each of the learner's tokens is a greedy choice, else what is wrong at the first step that is not.

    Step t is judged on the reference's float64 logits after the prompt and the learner's own first t tokens, from
    one uncached forward over prompt + actual[:-1]: the chosen token's logit must be within τ = 2e-5·max|logit| +
    1e-6 of the step's largest (the rule of the generate stage).
    """
    ids = np.asarray(actual)
    if ids.shape != (n_new,):
        return (f"expected the {n_new} new token ids, shape ({n_new},), got shape {ids.shape}"
                + (": the prompt is included, return only the new tokens" if ids.shape == (len(token_ids) + n_new,)
                   else ""))
    if ids.dtype.kind == "f" and np.all(np.isfinite(ids)) and np.all(ids == np.round(ids)):
        ids = ids.astype(np.int64)
    if ids.dtype.kind not in "iu":
        return f"token ids must be whole numbers, got {ids.dtype} values such as {ids.flat[0]!r}"
    p64 = {name: np.asarray(w, dtype=np.float64) for name, w in params.items()}
    n_vocab = p64["wte.weight"].shape[0]
    if ids.min() < 0 or ids.max() >= n_vocab:
        bad = int(np.flatnonzero((ids < 0) | (ids >= n_vocab))[0])
        return f"step {bad}: token id {int(ids[bad])} is not in the vocabulary [0, {n_vocab})"
    prompt = np.asarray(token_ids, dtype=np.int64)
    logits = gpt2(np.concatenate([prompt, ids[:-1]]), p64, n_head)[len(prompt) - 1:]  # [n_new, n_vocab]
    for t, row in enumerate(logits):
        best, chosen = row.max(), row[ids[t]]
        tau = TAU_REL * np.abs(row).max() + TAU_ABS
        if best - chosen > tau:
            return _not_greedy(t, n_new, len(prompt), row, int(ids[t]), tau)
    return None


def _not_greedy(t, n_new, n_prompt, row, chosen, tau):
    top = np.argsort(-row, kind="stable")[:5]
    rank = int(np.sum(row > row[chosen])) + 1
    listed = ", ".join(f"{int(i)} ({row[i]:.6f})" for i in top)
    return (f"step {t} of {n_new} (predicting position {n_prompt + t}): token {chosen} is not a greedy choice. Given "
            f"the prompt and your own {t} token{'s' if t != 1 else ''} before it, the reference's logit for "
            f"{chosen} is {row[chosen]:.6f}, {row.max() - row[chosen]:.3g} below the largest, {row.max():.6f} (token "
            f"{int(top[0])}); a greedy choice is at most τ = {tau:.3g} below. It is the {_ordinal(rank)} most likely "
            f"token. The top 5 there: {listed}.")


def _ordinal(n):
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
