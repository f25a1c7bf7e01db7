"""Greedy generation with GPT-2: run the model on the tokens so far, append the most likely next token, repeat.

`params` holds a checkpoint's tensors under their Hugging Face names without the `transformer.` prefix
(`wte.weight`, `wpe.weight`, `h.{i}.ln_1.weight`, ..., `ln_f.bias`), as in the gpt2 stage. `greedy_check` is how
a learner's tokens are judged: each must be a greedy choice of this reference given the learner's own tokens before
it, up to a tolerance τ for float32 near-ties (docs: stages/generate/instructions.md).

References: openai/gpt-2 src/sample.py `sample_sequence` (greedy is top_k=1); jaymody/picoGPT gpt2.py `generate`
and `gpt2`; transformers GenerationMixin `generate(do_sample=False)` (greedy search: argmax of the last position's
logits); Radford et al. (2019), "Language Models are Unsupervised Multitask Learners".
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
    a = gelu(linear(x, c_fc_weight, c_fc_bias))  # [n_seq, n_embd] -> [n_seq, 4*n_embd]
    return linear(a, c_proj_weight, c_proj_bias)  # [n_seq, 4*n_embd] -> [n_seq, n_embd]


def attention(q, k, v, mask):  # [n_seq, d_head] x3, mask [n_seq, n_seq] -> [n_seq, d_head]
    return softmax(q @ k.T / math.sqrt(q.shape[-1]) + mask) @ v


def mha(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    x = linear(x, c_attn_weight, c_attn_bias)  # [n_seq, n_embd] -> [n_seq, 3*n_embd]
    qkv_heads = [np.split(t, n_head, axis=-1) for t in np.split(x, 3, axis=-1)]  # 3 x n_head x [n_seq, d_head]
    causal_mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10  # [n_seq, n_seq]: key j hidden if j > query i
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads, strict=True)]
    return linear(np.hstack(out_heads), c_proj_weight, c_proj_bias)  # [n_seq, n_embd]


def transformer_block(x, p, n_head):  # [n_seq, n_embd] -> [n_seq, n_embd]; p: the block's tensors
    h = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
    x = x + mha(h, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"], p["attn.c_proj.bias"],
                n_head)
    h = layer_norm(x, p["ln_2.weight"], p["ln_2.bias"])
    return x + ffn(h, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])


def block_params(params, i):  # "h.{i}.ln_1.weight" -> "ln_1.weight"
    return {name[len(f"h.{i}."):]: w for name, w in params.items() if name.startswith(f"h.{i}.")}


def n_layer(params):
    return len({name.split(".")[1] for name in params if name.startswith("h.")})


def gpt2(token_ids, params, n_head):  # [n_seq] -> [n_seq, n_vocab]
    x = params["wte.weight"][token_ids] + params["wpe.weight"][np.arange(len(token_ids))]  # [n_seq, n_embd]
    for i in range(n_layer(params)):
        x = transformer_block(x, block_params(params, i), n_head)
    return layer_norm(x, params["ln_f.weight"], params["ln_f.bias"]) @ params["wte.weight"].T  # head tied to wte


def generate(token_ids, params, n_head, n_new):
    ids = [int(i) for i in token_ids]
    for _ in range(n_new):
        logits = gpt2(np.array(ids), params, n_head)  # [n_seq, n_vocab]: every position's next-token logits
        ids.append(int(np.argmax(logits[-1])))  # greedy: the most likely token after the last position
    return np.array(ids[len(token_ids):], dtype=np.int64)  # [n_new]: the new tokens only


# --- judging a learner's tokens --------------------------------------------------------------------------------

def greedy_check(actual, token_ids, params, n_head, n_new):
    """None if each of the learner's tokens is a greedy choice, else what is wrong at the first step that is not.

    Step t is judged on the reference's float64 logits after the prompt and the learner's own first t tokens (one
    forward over prompt + actual[:-1] gives every step's logits): the chosen token's logit must be within
    τ = 2e-5·max|logit| + 1e-6 of the step's largest. So a float32 near-tie decided the other way is accepted, and
    the tokens after it are judged on the learner's own path, not on the reference's.
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
