# module: generate
"""An honest greedy generate that returns its (right) token ids as uint64 instead of int64.

verdict._check runs the stage's greedy_check on any output whose comparison has no problem; greedy_check concatenates
the int64 prompt with the uint64 ids, numpy promotes int64 + uint64 to float64, and the reference model's embedding
lookup raises IndexError: "the stage's check could not read this output". Is a right answer failed?
"""
import numpy as np
from student.gpt2 import run_gpt2


def run_generate(token_ids, params, n_head, n_new):
    ids = [int(i) for i in token_ids]
    for _ in range(n_new):
        logits = run_gpt2(np.array(ids), params, n_head)
        ids.append(int(np.argmax(logits[-1])))
    return np.array(ids[len(token_ids):], dtype=np.uint64)
