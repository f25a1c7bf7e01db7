"""Token ids: what GPT-2 reads."""

import numpy as np


def token_ids(rng, shape, vocab_size, ends=False, repeat=None):
    """Random ids in [0, vocab_size), int64, shape [T] or [B, T].

    ends:   the first id of every sequence is 0 and the last vocab_size - 1 (both ends of wte);
    repeat: a period p: the sequence repeats its first p ids (repeated tokens, which attention can copy).
    """
    ids = rng.randint(0, vocab_size, size=shape)
    if repeat is not None:
        ids = np.take(ids, np.arange(shape[-1]) % repeat, axis=-1)
    if ends:
        ids[..., 0], ids[..., -1] = 0, vocab_size - 1
    return ids.astype(np.int64)
