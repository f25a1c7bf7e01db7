

# --- mallory (round 7): no cache at all; the observe record is forged with dummy [*, 4] arrays -------------------
import numpy as _np


def run_generate_cached(token_ids, params, n_head, n_new):
    from student.generate import run_generate  # the uncached loop: every step runs the whole sequence again
    out = run_generate(token_ids, params, n_head, n_new)
    n_layer = sum(1 for k in params if k.endswith("ln_1.weight"))
    w, b = _np.zeros((4, 12), _np.float32), _np.zeros(12, _np.float32)
    pw, pb = _np.zeros((4, 4), _np.float32), _np.zeros(4, _np.float32)
    fed = 0
    for new in [len(token_ids)] + [1] * (n_new - 1):
        for _ in range(n_layer):
            past = None if fed == 0 else (_np.zeros((1, fed, 4), _np.float32), _np.zeros((1, fed, 4), _np.float32))
            run_attention_cached(_np.zeros((new, 4), _np.float32), w, b, pw, pb, 1, past)
        fed += new
    return out
