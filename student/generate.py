"""Stage generate: Greedy generation.

Instructions: `python -m grader show generate`    Grade: `python -m grader --stage generate --watch`
Tolerance: |yours - expected| <= 0 + 0 * |expected|, elementwise.
"""

import numpy as np


def run_generate(token_ids, params, n_head, n_new):
    """Greedy generation: the n_new tokens GPT-2 writes after token_ids, one at a time.

    token_ids: [T] int64, the prompt, T >= 1
    params:    the checkpoint's tensors as in run_gpt2 (wte.weight, wpe.weight, h.{i}.*, ln_f.*)
    n_head:    the number of heads
    n_new:     how many tokens to generate; T + n_new <= n_positions
    Returns [n_new] int64, the new tokens only (not the prompt):
        repeat n_new times:
            logits = run_gpt2(ids, params, n_head)     # [len(ids), vocab_size]
            next_id = argmax of logits[-1]             # the last position predicts the next token
            append next_id to ids

    You may (and should) call your own run_gpt2:
        from student.gpt2 import run_gpt2
    """
    raise NotImplementedError("run_generate is not written yet: see `python -m grader show generate`")
