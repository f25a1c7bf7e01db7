"""Stage kvcache: The key/value cache.

Instructions: `python -m grader show kvcache`    Grade: `python -m grader --stage kvcache --watch`
Tolerance: |yours - expected| <= 0.0001 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_attention_cached(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    """Causal multi-head self-attention for new positions, with the keys and values of earlier ones cached.

    x:       [T_new, n_embd] or [B, T_new, n_embd], the new positions only (as ln_1 hands them on)
    c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head: as for run_attention
    past:    None, or (k, v) of the T_past earlier positions, each [n_head, T_past, d_head]
             ([B, n_head, T_past, d_head] when x has a batch axis); unpack it with `past_k, past_v = past`
    Returns (out, present):
        out:     like x, [..., T_new, n_embd]: new position i is position T_past + i and sees keys 0 .. T_past + i
        present: (k, v) of all T_past + T_new positions, each [..., n_head, T_past + T_new, d_head],
                 past first: the next call's past
    """
    raise NotImplementedError("run_attention_cached is not written yet: see `python -m grader show kvcache`")


def run_generate_cached(token_ids, params, n_head, n_new):
    """Greedy generation as run_generate, but with a key/value cache: each new token costs one position's work.

    token_ids, params, n_head, n_new: as for run_generate (T + n_new <= n_positions)
    Returns [n_new] int64, the new tokens only:
        run the prompt once, every block keeping its present (k, v)
        repeat: next_id = argmax of the last row; feed [next_id] alone, at position T_past, with each block's
                past; keep the presents (no forward pass is needed after the last token)
    """
    raise NotImplementedError("run_generate_cached is not written yet: see `python -m grader show kvcache`")
