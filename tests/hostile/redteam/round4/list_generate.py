"""An honest learner's greedy generation (round 4): correct, feeding its own run_gpt2 a Python list of ids."""
import numpy as np

from student.gpt2 import run_gpt2


def run_generate(token_ids, params, n_head, n_new):
    ids = [int(t) for t in token_ids]
    out = []
    for _ in range(n_new):
        logits = run_gpt2(ids, params, n_head)  # my run_gpt2 takes a list (np.asarray first)
        out.append(int(np.argmax(logits[-1])))
        ids.append(out[-1])
    return np.array(out, dtype=np.int64)
