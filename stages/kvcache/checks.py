"""Is run_generate_cached a cache? Judged from its calls of the learner's own run_attention_cached.

While run_generate_cached runs, the grader records each call it makes of run_attention_cached: the shapes of x and
past and of what came back, never values (grader/run/observe.py). With a cache, each block is fed every position
once: the prompt (at once or in pieces), then one new token a step, its past holding exactly the positions fed before,
so a step with one new position and a past of P computes a [1, P + 1] score matrix. Without one, the sequence goes
through again each step and the work grows with the whole prefix: [P + 1, P + 1].

This file ships with every copy of the course (it holds no solution): the check runs in a learner's handout too.
"""


def is_a_cache(calls, token_ids, params, n_head, n_new):
    """None when every block was fed each position once, its past growing by what it was fed; else what went wrong."""
    n_layer = sum(1 for name in params if name.endswith("ln_1.weight"))
    n_tokens = token_ids.shape[-1] + n_new  # the prompt and the new tokens; the last need not be fed
    attention = [c for c in calls if isinstance(c, dict) and c.get("function") == "run_attention_cached"]
    if not attention:
        return ("run_generate_cached never called your run_attention_cached, so the grader could not see a cache at "
                "work. Let each block call run_attention_cached(..., past) with that block's own past, as the "
                "instructions describe (an attention written out inside run_generate_cached cannot be observed).")
    if len(attention) % n_layer:
        return (f"run_generate_cached called your run_attention_cached {len(attention)} times, which is not a whole "
                f"number of forward passes through the model's {n_layer} blocks: call it once per block per step.")
    fed = [0] * n_layer  # positions each block has been fed so far
    for i, call in enumerate(attention):
        step, block = divmod(i, n_layer)
        args = call.get("args") if isinstance(call.get("args"), dict) else {}
        new, past = _positions(args.get("x")), _past_positions(args.get("past"))
        if new is None or past is None:  # a cache the grader cannot read could hide no cache at all (red team 5)
            return (f"step {step + 1}, block {block}: the grader could not read the shape of x or of past in a call of "
                    f"run_attention_cached (past: {_said(args.get('past'))}). Pass past as None or as a (k, v) pair "
                    f"of arrays [..., n_head, T_past, d_head], as the instructions describe.")
        where = f"step {step + 1}, block {block}"
        if past == 0 and fed[block] > 0:
            return (f"{where}: run_attention_cached got {new} positions and no past, after {fed[block]} positions "
                    f"had already gone through that block: the sequence is fed again, with no cache (a "
                    f"[{new}, {new}] score matrix where one new position needs [1, {fed[block] + 1}]). After the "
                    f"prompt, feed only the new token, with each block's present from the step before as its past.")
        if past != fed[block]:
            return (f"{where}: run_attention_cached got a past of {past} positions, but {fed[block]} had gone through "
                    f"that block before: keep each block's own present as its next past.")
        fed[block] += new
        present = _present_positions(call.get("returned"))
        if present is not None and present != past + new:
            return (f"{where}: the present run_attention_cached returned holds {present} positions; with a past of "
                    f"{past} and {new} new ones it must hold {past + new}, past first.")
    if max(fed) > n_tokens:
        return (f"each block was fed {max(fed)} positions in all, more than the {n_tokens} tokens of the prompt and "
                f"the new ones: some positions went through again. Each position is fed once.")
    return None


def _positions(x):
    """x's number of positions, [..., T_new, n_embd], or None when x was not an array."""
    shape = x.get("shape") if isinstance(x, dict) else None
    return shape[-2] if isinstance(shape, list) and len(shape) >= 2 else None


def _past_positions(past):
    """past's number of positions: 0 for None or an empty pair (None, None), else that of k, [..., n_head, T_past,
    d_head]."""
    if past is None or (isinstance(past, list) and all(p is None for p in past)):  # None, (None, None), ()
        return 0
    k = past[0] if isinstance(past, list) and past else past  # a (k, v) pair, or one stacked array
    shape = k.get("shape") if isinstance(k, dict) else None
    return shape[-2] if isinstance(shape, list) and len(shape) >= 2 else None


def _said(value):
    """A short description of what the grader recorded of an argument (shapes or a type name, never values)."""
    return repr(value)[:80]


def _present_positions(returned):
    """The returned present's number of positions, from (out, (k, v)), or None when it cannot be read."""
    if isinstance(returned, list) and len(returned) == 2:
        return _past_positions(returned[1]) if returned[1] is not None else None
    return None
