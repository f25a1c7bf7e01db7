"""Known-wrong poolings: if a learner's output matches one of these, the grader names the mistake."""

from numpy.lib.stride_tricks import sliding_window_view


def average_pool(x, k):
    n, c, h, w = x.shape
    return x[:, :, :h // k * k, :w // k * k].reshape(n, c, h // k, k, w // k, k).mean(axis=(3, 5))


def stride_one(x, k):
    return sliding_window_view(x, (k, k), axis=(2, 3)).max(axis=(-2, -1))  # [N, C, H - k + 1, W - k + 1]
