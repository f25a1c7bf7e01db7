"""Softmax over the last axis, computed the numerically stable way (the row's maximum subtracted first).

References: jaymody/picoGPT gpt2.py `softmax`; openai/gpt-2 src/model.py `softmax`; transformers models/gpt2
(`nn.functional.softmax(attn_weights, dim=-1)`); Goodfellow, Bengio & Courville, Deep Learning, section 4.1.
"""

import numpy as np


def softmax(x):
    exp_x = np.exp(x - np.max(x, axis=-1, keepdims=True))  # every row's largest value becomes exp(0) = 1
    return exp_x / np.sum(exp_x, axis=-1, keepdims=True)  # [..., n] -> [..., n], each row sums to 1
