"""Round 7: bits of a hidden input through the "named mistake" (decoy diagnosis) of a hidden case.

`results.redacted` shows every failing hidden case as FAIL because "the status is the submission's to choose, so
showing it would tell a learner bits of a hidden input", but it keeps `diagnosis` (which decoy the learner's output
matched), and the output is just as much the submission's to choose. Each softmax decoy is written from its public
hint; on a hidden case this softmax returns the correct output (symbol 0) or one decoy's output (symbols 1..6),
chosen by the hidden input: log2(7) = 2.8 bits a hidden case, printed in the learner's own feedback.
"""
import numpy as np

PUBLIC = {(4, 16, 16), (12, 64, 64), (16, 16), (2, 50257), (3, 8), (5, 1), (4, 8), (2, 6), (10,), (3, 7)}


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


SYMBOLS = [
    lambda x: _softmax(x),                                                      # 0: PASS
    lambda x: np.exp(x - x.max(axis=-1, keepdims=True)),                        # 1: not_normalised
    lambda x: (x - x.max(-1, keepdims=True)) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)),  # 2: log_softmax
    lambda x: _softmax(x, axis=0),                                              # 3: wrong_axis
    lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(x - x.max(-1, keepdims=True)).sum(-1),  # 4: sum_without_keepdims
    lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(x - x.max(-1, keepdims=True)).sum(),    # 5: whole array
    lambda x: 1 / (1 + np.exp(-x)),                                             # 6: sigmoid
]


def run_softmax(x):
    x = np.asarray(x)
    is_hidden_2 = x.shape == (2, 3, 32, 32)
    is_hidden_1 = x.shape == (12, 64, 64) and float(x.reshape(-1)[0]) > -0.99 and float(x.reshape(-1)[0]) < -0.97
    if not (is_hidden_1 or is_hidden_2):
        return _softmax(x)
    bits = int(np.asarray(x, dtype=np.float32).reshape(-1)[0:1].view(np.uint32)[0])
    symbol = (bits >> 16) % 7  # a base-7 digit of the exponent and sign of x.flat[0]; any digit, one per submission
    with np.errstate(all="ignore"):
        return SYMBOLS[symbol](x).astype(x.dtype)
