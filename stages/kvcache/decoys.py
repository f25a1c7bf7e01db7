"""Known-wrong caches: if a learner's output matches one of these, the grader names the mistake.

The generation decoys use the reference's own pieces (common/gpt2.py, and reference.py loaded from beside this
file), so each differs from the reference only in the one thing it gets wrong.
"""

import importlib.util
import math
from pathlib import Path

import numpy as np

from common.gpt2 import block_params, ffn, layer_norm, n_layer, softmax


def _reference():
    path = Path(__file__).with_name("reference.py")
    spec = importlib.util.spec_from_file_location(f"_{path.parent.name}_reference_for_decoys", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_ref = _reference()


def _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past, order="past_first",
            mask="offset"):
    q, k_new, v_new = (_ref.split_heads(t, n_head) for t in np.split(x @ c_attn_weight + c_attn_bias, 3, axis=-1))
    k, v = k_new, v_new
    if past is not None and order == "past_first":
        k, v = np.concatenate([past[0], k], axis=-2), np.concatenate([past[1], v], axis=-2)
    elif past is not None and order == "new_first":
        k, v = np.concatenate([k, past[0]], axis=-2), np.concatenate([v, past[1]], axis=-2)
    n_new, n_all = q.shape[-2], k.shape[-2]
    if mask == "offset":
        allowed = np.tri(n_new, n_all, n_all - n_new, dtype=bool)
    elif mask == "square_at_start":  # np.tri(n_new, n_all): query i sees keys 0..i, the oldest ones
        allowed = np.tri(n_new, n_all, dtype=bool)
    else:  # none when there is a past ("one token needs no mask")
        allowed = np.tri(n_new, n_all, dtype=bool) if past is None else np.ones((n_new, n_all), dtype=bool)
    scores = np.where(allowed, q @ k.swapaxes(-1, -2) / math.sqrt(q.shape[-1]), -1e10)
    out = _ref.merge_heads(softmax(scores) @ v) @ c_proj_weight + c_proj_bias
    return out, (k, v), (k_new, v_new)


def past_ignored(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    """The new positions attend only to each other; the cache is neither read nor extended."""
    out, _, new = _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, None)
    return out, new


def present_without_past(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    """Right output, but present holds only the new positions' (k, v): the next step loses the past."""
    out, _, new = _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past)
    return out, new


def past_after_new(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    """concatenate([k, past_k]): the cache's keys and values end up after the new ones."""
    out, kv, _ = _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past, order="new_first")
    return out, kv


def mask_not_offset(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    """np.tri(n_new, n_all) without the offset n_past: new query i sees keys 0..i, the oldest, not up to itself."""
    out, kv, _ = _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past,
                         mask="square_at_start")
    return out, kv


def no_mask_with_past(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    """No causal mask once there is a past: right for one new token, wrong for several (they see later ones)."""
    out, kv, _ = _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past, mask="none")
    return out, kv


def cache_before_head_split(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    """Right output, but present holds k and v as [..., n_seq, n_embd], before the split into heads."""
    out, (k, v), _ = _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past)
    return out, (_ref.merge_heads(k), _ref.merge_heads(v))


def _generate(token_ids, params, n_head, n_new, positions, keep):
    """Cached greedy generation; the caller says at which positions new tokens are fed and which cache is kept."""
    def step(ids, past, start):  # start: the position the first of ids should have
        where = np.arange(len(ids)) if past is None else positions(start, len(ids))
        x = params["wte.weight"][ids] + params["wpe.weight"][where]
        present = []
        for i in range(n_layer(params)):
            p = block_params(params, i)
            h = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
            a, kv, _ = _attend(h, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"],
                               p["attn.c_proj.bias"], n_head, None if past is None else past[i])
            present.append(kv)
            x = x + a
            x = x + ffn(layer_norm(x, p["ln_2.weight"], p["ln_2.bias"]), p["mlp.c_fc.weight"],
                             p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])
        return layer_norm(x, params["ln_f.weight"], params["ln_f.bias"]) @ params["wte.weight"].T, present

    prompt = np.asarray(token_ids)
    logits, past = step(prompt, None, 0)
    ids = []
    for t in range(n_new):
        ids.append(int(np.argmax(logits[-1])))
        if t < n_new - 1:
            logits, present = step(np.array(ids[-1:]), past, len(prompt) + t)
            past = keep(past, present)
    return np.array(ids, dtype=np.int64)


def positions_restart_at_zero(token_ids, params, n_head, n_new):
    """Each new token is fed at position 0 (wpe[0]), as if it were a sequence of its own (ml-explore/mlx-lm#93)."""
    return _generate(token_ids, params, n_head, n_new, lambda start, n: np.arange(n),
                     lambda past, present: present)


def positions_count_new_tokens_only(token_ids, params, n_head, n_new):
    """The t-th new token is fed at position t, counting from the first new token instead of from the prompt."""
    return _generate(token_ids, params, n_head, n_new,
                     lambda start, n: np.arange(n) + start - len(token_ids),
                     lambda past, present: present)


def cache_not_updated(token_ids, params, n_head, n_new):
    """The prompt's cache is used at every step and present is dropped: each new token sees the prompt and itself."""
    return _generate(token_ids, params, n_head, n_new, lambda start, n: np.arange(start, start + n),
                     lambda past, present: past)
