"""GPT-2's forward pass: token and position embeddings, n_layer pre-LN transformer blocks, the final layer norm,
and the head tied to the token embeddings. Returns the logits of every position.

`params` holds the checkpoint's tensors under their Hugging Face names without the `transformer.` prefix
(`wte.weight`, `wpe.weight`, `h.{i}.ln_1.weight`, ..., `ln_f.bias`). `gpt2_sites` runs the same computation and
returns every intermediate value a drift locator compares against.

References: openai/gpt-2 src/model.py `model`, `block`, `norm`, `attn`, `mlp`; transformers models/gpt2
GPT2Model, GPT2Block, GPT2LMHeadModel (lm_head tied to wte); jaymody/picoGPT gpt2.py `gpt2` and
`transformer_block`; Radford et al. (2019), "Language Models are Unsupervised Multitask Learners", section 2.3.
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


def attn(x, p, n_head):  # a block's attention, p: the block's tensors
    return mha(x, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"], p["attn.c_proj.bias"],
               n_head)


def mlp(x, p):  # a block's MLP
    return ffn(x, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])


def transformer_block(x, p, n_head):  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]
    x = x + attn(layer_norm(x, p["ln_1.weight"], p["ln_1.bias"]), p, n_head)  # pre-LN: the residual stays raw
    return x + mlp(layer_norm(x, p["ln_2.weight"], p["ln_2.bias"]), p)


def block_params(params, i):  # "h.{i}.ln_1.weight" -> "ln_1.weight"
    return {name[len(f"h.{i}."):]: w for name, w in params.items() if name.startswith(f"h.{i}.")}


def n_layer(params):
    return len({name.split(".")[1] for name in params if name.startswith("h.")})


def embed(token_ids, params):  # [..., n_seq] -> [..., n_seq, n_embd]
    return params["wte.weight"][token_ids] + params["wpe.weight"][np.arange(token_ids.shape[-1])]


def gpt2(token_ids, params, n_head):
    x = embed(token_ids, params)  # [..., n_seq] -> [..., n_seq, n_embd]
    for i in range(n_layer(params)):
        x = transformer_block(x, block_params(params, i), n_head)
    x = layer_norm(x, params["ln_f.weight"], params["ln_f.bias"])
    return x @ params["wte.weight"].T  # the head is wte: [..., n_seq, n_embd] -> [..., n_seq, n_vocab]


def gpt2_sites(token_ids, params, n_head):
    """gpt2's intermediate values, in the order computed (a dict keeps it): emb; per block i h.{i}.ln_1, h.{i}.attn
    (attention's output, before the residual), h.{i}.ln_2, h.{i}.mlp (the MLP's output), h.{i} (the block's
    output); ln_f; logits (equal to gpt2's)."""
    sites = {"emb": embed(token_ids, params)}
    x = sites["emb"]
    for i in range(n_layer(params)):
        p = block_params(params, i)
        sites[f"h.{i}.ln_1"] = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
        sites[f"h.{i}.attn"] = attn(sites[f"h.{i}.ln_1"], p, n_head)
        x = x + sites[f"h.{i}.attn"]
        sites[f"h.{i}.ln_2"] = layer_norm(x, p["ln_2.weight"], p["ln_2.bias"])
        sites[f"h.{i}.mlp"] = mlp(sites[f"h.{i}.ln_2"], p)
        x = sites[f"h.{i}"] = x + sites[f"h.{i}.mlp"]
    sites["ln_f"] = layer_norm(x, params["ln_f.weight"], params["ln_f.bias"])
    sites["logits"] = sites["ln_f"] @ params["wte.weight"].T
    return sites


def drift_sites(token_ids, params, n_head):
    """Where the forward pass can first go wrong, for the grader's drift locator (docs/authoring.md): in each block
    ln_1, the attention, ln_2 and the MLP, then the block as a whole; then ln_f. Each with the reference's own
    input there, and the learner's function that computes it."""
    sites = gpt2_sites(token_ids, params, n_head)
    out = []
    x = sites["emb"]
    for i in range(n_layer(params)):
        p = block_params(params, i)
        block = f"block {i}"
        x2 = x + sites[f"h.{i}.attn"]
        out += [
            {"name": f"{block} · ln_1", "stage": "layernorm", "function": "run_layernorm", "within": block,
             "inputs": {"x": x, "weight": p["ln_1.weight"], "bias": p["ln_1.bias"]}, "output": sites[f"h.{i}.ln_1"]},
            {"name": f"{block} · attention", "stage": "attention", "function": "run_attention", "within": block,
             "inputs": {"x": sites[f"h.{i}.ln_1"], "c_attn_weight": p["attn.c_attn.weight"],
                        "c_attn_bias": p["attn.c_attn.bias"], "c_proj_weight": p["attn.c_proj.weight"],
                        "c_proj_bias": p["attn.c_proj.bias"], "n_head": n_head}, "output": sites[f"h.{i}.attn"]},
            {"name": f"{block} · ln_2", "stage": "layernorm", "function": "run_layernorm", "within": block,
             "inputs": {"x": x2, "weight": p["ln_2.weight"], "bias": p["ln_2.bias"]}, "output": sites[f"h.{i}.ln_2"]},
            {"name": f"{block} · MLP", "stage": "mlp", "function": "run_mlp", "within": block,
             "inputs": {"x": sites[f"h.{i}.ln_2"], "c_fc_weight": p["mlp.c_fc.weight"], "c_fc_bias": p["mlp.c_fc.bias"],
                        "c_proj_weight": p["mlp.c_proj.weight"], "c_proj_bias": p["mlp.c_proj.bias"]},
             "output": sites[f"h.{i}.mlp"]},
            {"name": block, "stage": "block", "function": "run_block",
             "inputs": {"x": x, "params": p, "n_head": n_head}, "output": sites[f"h.{i}"]},
        ]
        x = sites[f"h.{i}"]
    out.append({"name": "ln_f", "stage": "layernorm", "function": "run_layernorm",
                "inputs": {"x": x, "weight": params["ln_f.weight"], "bias": params["ln_f.bias"]},
                "output": sites["ln_f"]})
    return out
