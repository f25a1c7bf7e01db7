"""Inputs shaped like what softmax meets in GPT-2: attention scores (causal ones included) and logits."""

import numpy as np


def causal_scores(rng, shape, scale=3.0, fill="-inf"):
    """Attention scores [..., T, T] with the positions above the diagonal masked (key j > query i).

    fill: "-inf" (what masked_fill and np.where write) or "finfo_min" (float32's lowest value, the additive mask
    transformers uses).
    """
    *lead, n_q, n_k = shape
    s = rng.normal(0.0, scale, size=shape)  # [..., T, T]
    value = -np.inf if fill == "-inf" else np.finfo(np.float32).min
    s[..., ~np.tri(n_q, n_k, dtype=bool)] = value
    return s.astype(np.float32)


def logits(rng, shape, loc=-100.0, scale=3.0):
    """Rows of vocabulary logits around loc, as a trained GPT-2 gives them (around -100 for ordinary text)."""
    return rng.normal(loc, scale, size=shape).astype(np.float32)


def rows_apart(rng, shape, offsets, scale=1.0):
    """Rows of N(0, scale) values, row i shifted by offsets[i % len(offsets)]: rows whose maxima are far apart."""
    x = rng.normal(0.0, scale, size=shape)  # [n_rows, n]
    shift = np.resize(np.asarray(offsets, dtype=np.float64), shape[0])[:, None]  # [n_rows, 1]
    return (x + shift).astype(np.float32)
