"""Known-wrong generation loops: if a learner's tokens match one of these exactly, the grader names the mistake.

Each uses the reference's own forward pass (common/gpt2.py `gpt2`), so a decoy differs from the reference only in
how it decodes.
"""

import numpy as np

from common.gpt2 import gpt2, softmax


def _loop(token_ids, params, n_new, n_head, pick, context=lambda prompt, ids: ids):
    ids = [int(i) for i in token_ids]
    for _ in range(n_new):
        logits = gpt2(np.array(context(list(token_ids), ids)), params, n_head)
        ids.append(int(pick(logits, ids)))
    return np.array(ids[len(token_ids):], dtype=np.int64)


def _greedy(logits, ids):
    return np.argmax(logits[-1])  # the reference's rule


def sampling(token_ids, params, n_head, n_new):
    """Drawn from softmax(logits) (temperature 1, a fixed seed) instead of the argmax."""
    rng = np.random.default_rng(0)
    return _loop(token_ids, params, n_new, n_head,
                 lambda logits, ids: rng.choice(logits.shape[-1], p=softmax(logits[-1])))


def off_by_one(token_ids, params, n_head, n_new):
    """The next token read from logits[len(ids) - 2], the position before the last (at T = 1 that wraps to -1)."""
    return _loop(token_ids, params, n_new, n_head, lambda logits, ids: np.argmax(logits[len(ids) - 2]))


def first_position(token_ids, params, n_head, n_new):
    """The next token read from logits[0], what follows the first token."""
    return _loop(token_ids, params, n_new, n_head, lambda logits, ids: np.argmax(logits[0]))


def not_appended(token_ids, params, n_head, n_new):
    """Each step runs the model on the prompt alone: the chosen token never joins the input."""
    return _loop(token_ids, params, n_new, n_head, _greedy, context=lambda prompt, ids: prompt)


def last_token_only(token_ids, params, n_head, n_new):
    """After the first step only the last token is fed (at position 0), as with a cache, but without one."""
    return _loop(token_ids, params, n_new, n_head, _greedy,
                 context=lambda prompt, ids: ids if len(ids) == len(prompt) else ids[-1:])


def argmax_wrong_axis(token_ids, params, n_head, n_new):
    """np.argmax(logits, axis=0)[-1]: the position where the last vocabulary entry scores highest, not a token."""
    return _loop(token_ids, params, n_new, n_head, lambda logits, ids: np.argmax(logits, axis=0)[-1])


def prompt_included(token_ids, params, n_head, n_new):
    """The prompt and the new tokens together; run_generate returns the n_new new tokens only."""
    return np.concatenate([np.asarray(token_ids, dtype=np.int64), _loop(token_ids, params, n_new, n_head, _greedy)])
