import numpy as np
def split_heads(x, n_head):  # [..., n_seq, n_embd] -> [..., n_head, n_seq, d_head]
    return np.moveaxis(x.reshape(*x.shape[:-1], n_head, x.shape[-1] // n_head), -2, -3)


def merge_heads(x):  # [..., n_head, n_seq, d_head] -> [..., n_seq, n_embd]
    x = np.moveaxis(x, -3, -2)
    return x.reshape(*x.shape[:-2], -1)


