"""Stage gpt2: The whole of GPT-2, tokens to logits.

Instructions: `python -m grader show gpt2`    Grade: `python -m grader --stage gpt2 --watch`
Tolerance: |yours - expected| <= 0.0001 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_gpt2(token_ids, params, n_head):
    """GPT-2's forward pass: the logits of every position.

    token_ids: [T] or [B, T] int64, each in [0, vocab_size); T <= n_positions
    params:    a dict of every tensor of the checkpoint, named as in it without "transformer.":
               wte.weight [vocab_size, n_embd], wpe.weight [n_positions, n_embd],
               h.{i}.ln_1.weight, ..., h.{i}.mlp.c_proj.bias for i in 0 .. n_layer - 1,
               ln_f.weight, ln_f.bias [n_embd]
    n_head:    the number of heads
    Returns [T, vocab_size] or [B, T, vocab_size], float32: the logits, not probabilities:
        x = wte[token_ids] + wpe[0 .. T-1]
        x = block_i(x) for i = 0 .. n_layer - 1
        logits = ln_f(x) @ wte.T       (the head is tied to the token embeddings)

    You may (and should) call your own run_block and run_layernorm:
        from student.block import run_block
        from student.layernorm import run_layernorm
    """
    raise NotImplementedError("run_gpt2 is not written yet: see `python -m grader show gpt2`")
