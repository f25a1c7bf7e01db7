"""Reach the stage's own check in the grader (stage generate, `check: greedy_check`): return n_new token ids of the
right shape and dtype (all zeros), so the comparison finds no shape or dtype problem and the grader calls the
course's greedy_check from reference.py on them. Run in the Gradescope bundle's course copy, which ships no
reference.py. Tries to turn a plain wrong answer into an autograder failure. Verdict in README.md."""
# module: generate
import numpy as np


def run_generate(token_ids, params, n_head, n_new):
    return np.zeros(n_new, dtype=np.int64)
