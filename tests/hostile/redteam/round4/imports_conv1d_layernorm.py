"""Layer normalisation over the last axis, as GPT-2 applies it: ln_1 before attention, ln_2 before the MLP, ln_f
after the last block.

References: openai/gpt-2 src/model.py `norm` (epsilon 1e-5, the biased variance); transformers models/gpt2
(`nn.LayerNorm(n_embd, eps=config.layer_norm_epsilon)`); jaymody/picoGPT gpt2.py `layer_norm`; Ba, Kiros & Hinton
(2016), "Layer Normalization".
"""

import numpy as np

import student.conv1d  # noqa: F401 -- a layernorm that imports the conv1d module

EPS = 1e-5  # GPT-2's layer_norm_epsilon


def layer_norm(x, weight, bias):
    mean = np.mean(x, axis=-1, keepdims=True)  # [..., n_embd] -> [..., 1]
    variance = np.var(x, axis=-1, keepdims=True)  # biased: the mean of squares, divided by n_embd
    x = (x - mean) / np.sqrt(variance + EPS)  # mean 0, variance 1 over the last axis
    return weight * x + bias  # [..., n_embd]

run_layernorm = layer_norm
