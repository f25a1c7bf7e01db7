"""Inputs shaped like what a GPT-2 layer norm sees: the residual stream."""

import numpy as np


def residual_rows(rng, shape, small=False, offset=0.0, massive=None):
    """Rows like GPT-2's residual stream: each row its own scale and mean, plus per-channel structure.

    small:   row std 0.01-0.03 (the embeddings at initialisation, what block 0's ln_1 sees), else 0.3-10
             (log-uniform, as the stream grows with depth);
    offset:  added to every element (rows whose mean is far from 0);
    massive: [magnitude, channel, ...]: those channels carry +-0.1..1 times magnitude (the "massive activations"
             trained GPT-2 keeps in a few channels, Sun et al. 2024).
    """
    *lead, n_embd = shape
    z = rng.standard_normal(size=shape)  # [..., n_embd]
    if small:
        scale = rng.uniform(0.01, 0.03, size=(*lead, 1))
    else:
        scale = np.exp(rng.uniform(np.log(0.3), np.log(10.0), size=(*lead, 1)))  # [..., 1]
    row_mean = rng.normal(0.0, 0.3, size=(*lead, 1))  # [..., 1]
    channel = rng.normal(0.0, 0.2, size=n_embd)  # [n_embd]
    x = (z + row_mean + channel) * scale + offset
    if massive is not None:
        magnitude, *channels = massive
        sign = rng.choice([-1.0, 1.0], size=(*lead, len(channels)))
        x[..., channels] += sign * rng.uniform(0.1, 1.0, size=(*lead, len(channels))) * magnitude
    return x.astype(np.float32)
