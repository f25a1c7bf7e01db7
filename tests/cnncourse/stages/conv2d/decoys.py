"""Known-wrong convolutions: if a learner's output matches one of these, the grader names the mistake."""

import numpy as np


def _correlate(x, weight):
    kh, kw = weight.shape[2:]
    h_out, w_out = x.shape[2] - kh + 1, x.shape[3] - kw + 1
    return sum(np.einsum("nchw,oc->nohw", x[:, :, i:i + h_out, j:j + w_out], weight[:, :, i, j])
               for i in range(kh) for j in range(kw))


def flipped_kernel(x, weight, bias):
    return _correlate(x, weight[:, :, ::-1, ::-1]) + bias[:, None, None]  # the textbook convolution


def no_bias(x, weight, bias):
    return _correlate(x, weight)


def weight_in_out_swapped(x, weight, bias):
    return _correlate(x, weight.transpose(1, 0, 2, 3)) + bias[:, None, None]  # runs only where C_in == C_out
