"""Max pooling over non-overlapping k x k windows (stride k), NCHW, leftover rows and columns dropped.

Reference: torch.nn.functional.max_pool2d(x, k) (stride defaults to the kernel size, no padding, floor mode).
"""


def maxpool(x, k):
    n, c, h, w = x.shape
    h_out, w_out = h // k, w // k
    windows = x[:, :, :h_out * k, :w_out * k].reshape(n, c, h_out, k, w_out, k)  # [N, C, H_out, k, W_out, k]
    return windows.max(axis=(3, 5))  # [N, C, H_out, W_out]
