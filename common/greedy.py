"""How a learner's greedy tokens are judged: the generate and kvcache stages' `check:` (reference code).

Each new token must be a greedy choice of the reference model (common/gpt2.py) given the prompt and the learner's
own tokens before it, up to a tolerance τ for float32 near-ties (stages/generate/instructions.md).

References: openai/gpt-2 src/sample.py `sample_sequence` (greedy is top_k=1); transformers GenerationMixin
`generate(do_sample=False)` (greedy search: argmax of the last position's logits).
"""

import numpy as np

from common.gpt2 import gpt2

TAU_REL, TAU_ABS = 2e-5, 1e-6  # a token is greedy if its logit is within TAU_REL * max|logit| + TAU_ABS of the best


def greedy_check(actual, token_ids, params, n_head, n_new):
    """None if each of the learner's tokens is a greedy choice, else what is wrong at the first step that is not.

    Step t is judged on the reference's float64 logits after the prompt and the learner's own first t tokens (one
    forward over prompt + actual[:-1] gives every step's logits): the chosen token's logit must be within
    τ = 2e-5·max|logit| + 1e-6 of the step's largest. So a float32 near-tie decided the other way is accepted, and
    the tokens after it are judged on the learner's own path, not on the reference's.
    """
    ids = np.asarray(actual)
    if ids.shape != (n_new,):
        return (f"expected the {n_new} new token ids, shape ({n_new},), got shape {ids.shape}"
                + (": the prompt is included, return only the new tokens" if ids.shape == (len(token_ids) + n_new,)
                   else ""))
    if ids.dtype.kind == "f" and np.all(np.isfinite(ids)) and np.all(ids == np.round(ids)):
        ids = ids.astype(np.int64)
    if ids.dtype.kind not in "iu":
        return f"token ids must be whole numbers, got {ids.dtype} values such as {ids.flat[0]!r}"
    p64 = {name: np.asarray(w, dtype=np.float64) for name, w in params.items()}
    n_vocab = p64["wte.weight"].shape[0]
    if ids.min() < 0 or ids.max() >= n_vocab:
        bad = int(np.flatnonzero((ids < 0) | (ids >= n_vocab))[0])
        return f"step {bad}: token id {int(ids[bad])} is not in the vocabulary [0, {n_vocab})"
    ids = ids.astype(np.int64)  # in range: uint64 beside the int64 prompt would make float64 indices
    prompt = np.asarray(token_ids, dtype=np.int64)
    logits = gpt2(np.concatenate([prompt, ids[:-1]]), p64, n_head)[len(prompt) - 1:]  # [n_new, n_vocab]
    for t, row in enumerate(logits):
        best, chosen = row.max(), row[ids[t]]
        tau = TAU_REL * np.abs(row).max() + TAU_ABS
        if best - chosen > tau:
            return _not_greedy(t, n_new, len(prompt), row, int(ids[t]), tau)
    return None


def _not_greedy(t, n_new, n_prompt, row, chosen, tau):
    top = np.argsort(-row, kind="stable")[:5]
    rank = int(np.sum(row > row[chosen])) + 1
    listed = ", ".join(f"{int(i)} ({row[i]:.6f})" for i in top)
    return (f"step {t} of {n_new} (predicting position {n_prompt + t}): token {chosen} is not a greedy choice. Given "
            f"the prompt and your own {t} token{'s' if t != 1 else ''} before it, the reference's logit for "
            f"{chosen} is {row[chosen]:.6f}, {row.max() - row[chosen]:.3g} below the largest, {row.max():.6f} (token "
            f"{int(top[0])}); a greedy choice is at most τ = {tau:.3g} below. It is the {_ordinal(rank)} most likely "
            f"token. The top 5 there: {listed}.")


def _ordinal(n):
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
