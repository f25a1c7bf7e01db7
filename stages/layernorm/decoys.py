"""Known-wrong layer norms: if a learner's output matches one of these, the grader names the mistake."""

import numpy as np

EPS = 1e-5


def _normed(x, mean, variance, eps=EPS):
    return (x - mean) / np.sqrt(variance + eps)


def unbiased_variance(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return weight * _normed(x, mean, x.var(axis=-1, ddof=1, keepdims=True)) + bias  # torch.var's default


def eps_outside_sqrt(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return weight * (x - mean) / (np.sqrt(x.var(axis=-1, keepdims=True)) + EPS) + bias


def eps_1e_12(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return weight * _normed(x, mean, x.var(axis=-1, keepdims=True), eps=1e-12) + bias  # BERT's epsilon


def no_mean_subtraction_in_var(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return weight * _normed(x, mean, (x * x).mean(axis=-1, keepdims=True)) + bias  # var = mean(x**2)


def no_affine(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return _normed(x, mean, x.var(axis=-1, keepdims=True))


def rmsnorm(x, weight, bias):
    return weight * x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + EPS) + bias  # LLaMA's norm: no mean


def weight_bias_swapped(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return bias * _normed(x, mean, x.var(axis=-1, keepdims=True)) + weight


def std_not_var(x, weight, bias):
    mean = x.mean(axis=-1, keepdims=True)
    return weight * _normed(x, mean, x.std(axis=-1, keepdims=True)) + bias  # sqrt(std + eps)


def whole_tensor_stats(x, weight, bias):
    return weight * _normed(x, x.mean(), x.var()) + bias  # one mean and variance for every row


def wrong_axis(x, weight, bias):
    axis = -2 if x.ndim >= 2 else -1  # statistics over the sequence, per channel
    mean = x.mean(axis=axis, keepdims=True)
    return weight * _normed(x, mean, x.var(axis=axis, keepdims=True)) + bias
