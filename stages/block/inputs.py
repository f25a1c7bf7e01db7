"""Inputs shaped like what a GPT-2 block sees: the residual stream, from the embeddings onwards."""

import numpy as np


def residual_rows(rng, shape, massive=None):
    """Rows like GPT-2's residual stream: each row its own scale (0.3 to 10, log-uniform) and mean, plus
    per-channel structure; massive: [magnitude, channel, ...], channels carrying +-0.1..1 times magnitude (the
    "massive activations" trained GPT-2 keeps in a few channels, Sun et al. 2024)."""
    *lead, n_embd = shape
    z = rng.standard_normal(size=shape)  # [..., n_embd]
    scale = np.exp(rng.uniform(np.log(0.3), np.log(10.0), size=(*lead, 1)))  # [..., 1]
    x = (z + rng.normal(0.0, 0.3, size=(*lead, 1)) + rng.normal(0.0, 0.2, size=n_embd)) * scale
    if massive is not None:
        magnitude, *channels = massive
        sign = rng.choice([-1.0, 1.0], size=(*lead, len(channels)))
        x[..., channels] += sign * rng.uniform(0.1, 1.0, size=(*lead, len(channels))) * magnitude
    return x.astype(np.float32)


def embedding_like(rng, shape):
    """What block 0 receives at initialisation: wte + wpe rows, N(0, 0.02) + N(0, 0.01). Its rows' variance is
    about 5e-4, small enough that layer norm's epsilon counts."""
    return (rng.normal(0.0, 0.02, size=shape) + rng.normal(0.0, 0.01, size=shape)).astype(np.float32)
