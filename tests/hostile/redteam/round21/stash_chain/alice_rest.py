"""GPT-2 in plain numpy, as picoGPT writes it: the course's reference model, each piece written once.

The stages' references take what they ask for from here: gelu's `gelu`, conv1d's `linear`, softmax's `softmax`,
mlp's `ffn`, attention's `mha`, block's `transformer_block`, gpt2's `gpt2`; generate and kvcache build on `gpt2`.
(The layernorm stage keeps its own layer_norm, which divides before it scales: the same maths, rounded differently
in the last bit, and the fixtures of both were built from their own.) Reference code: not listed under `common:
public:`, so no learner's handout holds it.

`params` holds a checkpoint's tensors under their Hugging Face names without the `transformer.` prefix (`wte.weight`,
`wpe.weight`, `h.{i}.ln_1.weight`, ..., `ln_f.bias`); one block's tensors drop `h.{i}.` as well (`ln_1.weight`,
`attn.c_attn.weight`, `mlp.c_fc.weight`, ...).

References: jaymody/picoGPT gpt2.py; openai/gpt-2 src/model.py (`gelu`, `norm`, `conv1d`, `attn`, `mlp`, `block`,
`model`); transformers models/gpt2 (GPT2Attention, GPT2MLP, GPT2Block, GPT2Model, the head tied to wte); Radford et
al. (2019), "Language Models are Unsupervised Multitask Learners", section 2.3 (layer norm at the input of each
sub-block); Vaswani et al. (2017), "Attention Is All You Need", section 3.2.
"""

import math

import numpy as np

EPS = 1e-5  # GPT-2's layer_norm_epsilon


def gelu(x):  # gelu_new, the tanh approximation GPT-2 was trained with
    # x * x * x, not x**3: numpy's power calls pow() per element, about 60x slower (stages/gelu/instructions.md)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))))


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))  # every row's largest value becomes exp(0) = 1
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)  # [..., n] -> [..., n], each row sums to 1


def layer_norm(x, weight, bias):
    mean = np.mean(x, axis=-1, keepdims=True)  # [..., n_embd] -> [..., 1]
    variance = np.var(x, axis=-1, keepdims=True)  # biased: the mean of squares, divided by n_embd
    return weight * (x - mean) / np.sqrt(variance + EPS) + bias  # [..., n_embd]


def linear(x, weight, bias):  # GPT-2's Conv1D: the weight stored [nx, nf] (in, out)
    return x @ weight + bias  # [..., nx] @ [nx, nf] + [nf] -> [..., nf]


def ffn(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    a = gelu(linear(x, c_fc_weight, c_fc_bias))  # [..., n_embd] -> [..., 4*n_embd]
    return linear(a, c_proj_weight, c_proj_bias)  # [..., 4*n_embd] -> [..., n_embd]


def attention(q, k, v, mask):  # [..., n_seq, d_head] x3, mask [n_seq, n_seq] -> [..., n_seq, d_head]
    return softmax(q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]) + mask) @ v


def mha(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    x = linear(x, c_attn_weight, c_attn_bias)  # [..., n_seq, n_embd] -> [..., n_seq, 3*n_embd]
    qkv = np.split(x, 3, axis=-1)  # q, k, v side by side: 3 x [..., n_seq, n_embd]
    qkv_heads = [np.split(t, n_head, axis=-1) for t in qkv]  # 3 x n_head x [..., n_seq, d_head]
    causal_mask = (1 - np.tri(x.shape[-2], dtype=x.dtype)) * -1e10  # [n_seq, n_seq]: key j hidden from query i if j > i
    out_heads = [attention(q, k, v, causal_mask) for q, k, v in zip(*qkv_heads, strict=True)]  # [..., n_seq, d_head]
    x = np.concatenate(out_heads, axis=-1)  # heads side by side: [..., n_seq, n_embd]
    return linear(x, c_proj_weight, c_proj_bias)  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]


def attn(x, p, n_head):  # a block's attention; p: the block's tensors
    return mha(x, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"], p["attn.c_proj.bias"],
               n_head)


def mlp(x, p):  # a block's MLP
    return ffn(x, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])


def transformer_block(x, params, n_head):  # [..., n_seq, n_embd] -> [..., n_seq, n_embd]; params: the block's tensors
    x = x + attn(layer_norm(x, params["ln_1.weight"], params["ln_1.bias"]), params, n_head)  # the residual stays raw
    return x + mlp(layer_norm(x, params["ln_2.weight"], params["ln_2.bias"]), params)


