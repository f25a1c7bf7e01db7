"""GPT-2's feed-forward network (the MLP of each block): c_fc, gelu_new, c_proj.

References: openai/gpt-2 src/model.py `mlp`; transformers models/gpt2 GPT2MLP; jaymody/picoGPT gpt2.py `ffn`.
The layer norm before it (ln_2) and the residual after it belong to the block, not to the MLP.
"""

import math

import numpy as np


def gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def linear(x, w, b):
    return x @ w + b  # [..., nx] @ [nx, nf] + [nf] -> [..., nf]


def ffn(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    a = gelu(linear(x, c_fc_weight, c_fc_bias))  # [..., n_embd] -> [..., 4*n_embd]
    return linear(a, c_proj_weight, c_proj_bias)  # [..., 4*n_embd] -> [..., n_embd]
