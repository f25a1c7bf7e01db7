"""One GPT-2 transformer block, pre-LN: x + attn(ln_1(x)), then + mlp(ln_2(x)).

`p` holds the block's tensors under their Hugging Face names without the `h.{i}.` prefix: `ln_1.weight`,
`ln_1.bias`, `attn.c_attn.weight`, `attn.c_attn.bias`, `attn.c_proj.weight`, `attn.c_proj.bias`, `ln_2.weight`,
`ln_2.bias`, `mlp.c_fc.weight`, `mlp.c_fc.bias`, `mlp.c_proj.weight`, `mlp.c_proj.bias`.

References: openai/gpt-2 src/model.py `block`; transformers models/gpt2 GPT2Block; jaymody/picoGPT gpt2.py
`transformer_block`; Radford et al. (2019), section 2.3 (layer norm moved to the input of each sub-block).
"""

import math

import numpy as np

EPS = 1e-5  # layer_norm_epsilon


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


def attention(q, k, v, mask):  # [..., n_seq, d_head] x3, mask [n_seq, n_seq] -> [..., n_seq, d_head]
    return softmax(q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]) + mask) @ v


def mha(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    x = linear(x, c_attn_weight, c_attn_bias)  # [..., n_seq, n_embd] -> [..., n_seq, 3*n_embd]
    qkv_heads = [np.split(t, n_head, axis=-1) for t in np.split(x, 3, axis=-1)]  # 3 x n_head x [..., n_seq, d_head]
    causal_mask = (1 - np.tri(x.shape[-2], dtype=x.dtype)) * -1e10  # [n_seq, n_seq]: key j hidden if j > query i
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads, strict=True)]
    return linear(np.concatenate(out_heads, axis=-1), c_proj_weight, c_proj_bias)  # [..., n_seq, n_embd]


def transformer_block(x, params, n_head):  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
    p = params
    h = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
    x = x + mha(h, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"], p["attn.c_proj.bias"],
                n_head)  # the residual adds to the raw x, not to ln_1's output
    h = layer_norm(x, p["ln_2.weight"], p["ln_2.bias"])
    return x + ffn(h, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])


def block_sites(x, params, n_head):
    """Where a block's computation can first go wrong, for the grader's drift locator: ln_1, the attention, ln_2,
    the MLP, each with the reference's own input there (docs/authoring.md, "The drift locator")."""
    p = params
    h1 = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
    a = mha(h1, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"], p["attn.c_proj.bias"], n_head)
    x2 = x + a
    h2 = layer_norm(x2, p["ln_2.weight"], p["ln_2.bias"])
    m = ffn(h2, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])
    return [
        {"name": "ln_1", "stage": "layernorm", "function": "run_layernorm",
         "inputs": {"x": x, "weight": p["ln_1.weight"], "bias": p["ln_1.bias"]}, "output": h1},
        {"name": "the attention", "stage": "attention", "function": "run_attention",
         "inputs": {"x": h1, "c_attn_weight": p["attn.c_attn.weight"], "c_attn_bias": p["attn.c_attn.bias"],
                    "c_proj_weight": p["attn.c_proj.weight"], "c_proj_bias": p["attn.c_proj.bias"],
                    "n_head": n_head}, "output": a},
        {"name": "ln_2", "stage": "layernorm", "function": "run_layernorm",
         "inputs": {"x": x2, "weight": p["ln_2.weight"], "bias": p["ln_2.bias"]}, "output": h2},
        {"name": "the MLP", "stage": "mlp", "function": "run_mlp",
         "inputs": {"x": h2, "c_fc_weight": p["mlp.c_fc.weight"], "c_fc_bias": p["mlp.c_fc.bias"],
                    "c_proj_weight": p["mlp.c_proj.weight"], "c_proj_bias": p["mlp.c_proj.bias"]}, "output": m},
    ]
