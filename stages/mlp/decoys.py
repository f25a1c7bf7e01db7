"""Known-wrong MLPs: if a learner's output matches one of these, the grader names the mistake."""

import math

import numpy as np


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))))


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def relu(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return np.maximum(x @ c_fc_weight + c_fc_bias, 0) @ c_proj_weight + c_proj_bias


def erf_gelu(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    h = x @ c_fc_weight + c_fc_bias
    a = 0.5 * h * (1 + _erf(h / math.sqrt(2)))
    return a @ c_proj_weight + c_proj_bias


def missing_c_fc_bias(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return _gelu(x @ c_fc_weight) @ c_proj_weight + c_proj_bias


def missing_c_proj_bias(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return _gelu(x @ c_fc_weight + c_fc_bias) @ c_proj_weight


def residual_inside(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return x + _gelu(x @ c_fc_weight + c_fc_bias) @ c_proj_weight + c_proj_bias


def gelu_after_c_proj(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return _gelu((x @ c_fc_weight + c_fc_bias) @ c_proj_weight + c_proj_bias)


def layernorm_inside(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    mean = x.mean(axis=-1, keepdims=True)
    variance = x.var(axis=-1, keepdims=True)
    normed = (x - mean) / np.sqrt(variance + 1e-5)
    return _gelu(normed @ c_fc_weight + c_fc_bias) @ c_proj_weight + c_proj_bias
