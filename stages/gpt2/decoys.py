"""Known-wrong GPT-2 forward passes: if a learner's output matches one of these, the grader names the mistake.

Each is the reference with the embedding, the order of the blocks, the final layer norm or the head changed; the
blocks themselves are right (their own mistakes are the block and attention stages' decoys), except where the
mistake is the block's layout throughout (post_ln_blocks) or the mask (no_causal_mask).
"""

import math

import numpy as np


def _layer_norm(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return weight * (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) + bias


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _attn(x, p, n_head, causal=True):
    *lead, n_seq, n_embd = x.shape
    d_head = n_embd // n_head
    qkv = x @ p["attn.c_attn.weight"] + p["attn.c_attn.bias"]
    q, k, v = (t.reshape(*lead, n_seq, n_head, d_head).swapaxes(-2, -3) for t in np.split(qkv, 3, axis=-1))
    s = q @ k.swapaxes(-1, -2) / math.sqrt(d_head)
    if causal:
        s = np.where(np.tri(n_seq, dtype=bool), s, -np.inf)
    y = (_softmax(s) @ v).swapaxes(-2, -3).reshape(*lead, n_seq, n_embd)
    return y @ p["attn.c_proj.weight"] + p["attn.c_proj.bias"]


def _mlp(x, p):
    h = x @ p["mlp.c_fc.weight"] + p["mlp.c_fc.bias"]
    a = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * (h * h * h))))
    return a @ p["mlp.c_proj.weight"] + p["mlp.c_proj.bias"]


def _block(x, p, n_head, causal=True, post_ln=False):
    ln_1 = lambda h: _layer_norm(h, p["ln_1.weight"], p["ln_1.bias"])  # noqa: E731
    ln_2 = lambda h: _layer_norm(h, p["ln_2.weight"], p["ln_2.bias"])  # noqa: E731
    if post_ln:  # the original Transformer: x = ln(x + sublayer(x))
        x = ln_1(x + _attn(x, p, n_head, causal))
        return ln_2(x + _mlp(x, p))
    x = x + _attn(ln_1(x), p, n_head, causal)
    return x + _mlp(ln_2(x), p)


def _layers(params):
    n = len({name.split(".")[1] for name in params if name.startswith("h.")})
    return [{k[len(f"h.{i}."):]: w for k, w in params.items() if k.startswith(f"h.{i}.")} for i in range(n)]


def _forward(token_ids, params, n_head, order=None, positions=0, wpe=True, scale=1.0, ln_f="end", causal=True,
             post_ln=False, out="logits"):
    wte = params["wte.weight"]
    n_seq = token_ids.shape[-1]
    x = wte[token_ids] * scale
    if wpe:
        x = x + params["wpe.weight"][np.arange(positions, positions + n_seq)]
    layers = _layers(params)
    for i in order if order is not None else range(len(layers)):
        x = _block(x, layers[i], n_head, causal, post_ln)
        if ln_f == "every_block":
            x = _layer_norm(x, params["ln_f.weight"], params["ln_f.bias"])
    if ln_f == "end":
        x = _layer_norm(x, params["ln_f.weight"], params["ln_f.bias"])
    logits = x @ wte.T
    if out == "probabilities":
        return _softmax(logits)
    if out == "log_softmax":
        shifted = logits - logits.max(axis=-1, keepdims=True)
        return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return logits


def missing_ln_f(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, ln_f="none")


def ln_f_every_block(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, ln_f="every_block")


def returns_probabilities(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, out="probabilities")


def returns_log_softmax(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, out="log_softmax")


def embedding_scaled_sqrt_d(token_ids, params, n_head):  # "Attention Is All You Need" scales by sqrt(d_model)
    return _forward(token_ids, params, n_head, scale=math.sqrt(params["wte.weight"].shape[1]))


def no_position_embedding(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, wpe=False)


def positions_off_by_one(token_ids, params, n_head):  # wpe[1 : T+1]: an IndexError at T = n_positions
    return _forward(token_ids, params, n_head, positions=1)


def post_ln_blocks(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, post_ln=True)


def no_causal_mask(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, causal=False)


def block_0_every_layer(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, order=[0] * len(_layers(params)))


def blocks_reversed(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, order=range(len(_layers(params)) - 1, -1, -1))


def last_block_skipped(token_ids, params, n_head):
    return _forward(token_ids, params, n_head, order=range(len(_layers(params)) - 1))
