"""Conv2d as deep-learning libraries define it: a cross-correlation over NCHW images, valid padding, stride 1.

References: torch.nn.functional.conv2d (weight [C_out, C_in, kH, kW], no kernel flip); cs231n's convolution notes.
"""

import numpy as np


def conv2d(x, weight, bias):
    n, c_in, h, w = x.shape
    c_out, _, kh, kw = weight.shape
    h_out, w_out = h - kh + 1, w - kw + 1
    out = sum(np.einsum("nchw,oc->nohw", x[:, :, i:i + h_out, j:j + w_out], weight[:, :, i, j])
              for i in range(kh) for j in range(kw))  # [N, C_out, H_out, W_out]
    return out + bias[:, None, None]
