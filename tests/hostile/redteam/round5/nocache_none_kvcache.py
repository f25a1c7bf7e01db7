# module: kvcache -- NO cache at all: every step runs the whole sequence again (the work the stage exists to remove).
# Its only twist: "no cache" is spelled past=() (an empty tuple), which is_a_cache cannot measure, so it stops
# judging at the first call and returns None (= it is a cache).
import math
import numpy as np
from student.common_gpt2 import block_params, ffn, layer_norm, linear, n_layer, softmax


def split_heads(x, n_head):
    return np.moveaxis(x.reshape(*x.shape[:-1], n_head, x.shape[-1] // n_head), -2, -3)


def merge_heads(x):
    x = np.moveaxis(x, -3, -2)
    return x.reshape(*x.shape[:-2], -1)


def run_attention_cached(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    qkv = np.split(linear(x, c_attn_weight, c_attn_bias), 3, axis=-1)
    q, k, v = (split_heads(t, n_head) for t in qkv)
    if past is not None and len(past):
        k = np.concatenate([past[0], k], axis=-2)
        v = np.concatenate([past[1], v], axis=-2)
    n_new, n_all = q.shape[-2], k.shape[-2]
    causal_mask = (1 - np.tri(n_new, n_all, n_all - n_new, dtype=x.dtype)) * -1e10
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]) + causal_mask
    out = merge_heads(softmax(scores) @ v)
    return linear(out, c_proj_weight, c_proj_bias), (k, v)


def _full_pass(ids, params, n_head):  # the uncached forward pass over the whole sequence
    x = params["wte.weight"][ids] + params["wpe.weight"][np.arange(len(ids))]
    for i in range(n_layer(params)):
        p = block_params(params, i)
        h = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
        a, _ = run_attention_cached(h, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"],
                                    p["attn.c_proj.bias"], n_head, None)
        x = x + a
        h = layer_norm(x, p["ln_2.weight"], p["ln_2.bias"])
        x = x + ffn(h, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])
    return layer_norm(x, params["ln_f.weight"], params["ln_f.bias"]) @ params["wte.weight"].T


def run_generate_cached(token_ids, params, n_head, n_new):
    ids = [int(t) for t in np.asarray(token_ids).reshape(-1)]
    out = []
    for _ in range(n_new):  # the whole sequence again each step: no cache
        nxt = int(np.argmax(_full_pass(np.array(ids), params, n_head)[-1]))
        ids.append(nxt)
        out.append(nxt)
    return np.array(out, dtype=np.int64)
