"""MINE_MARK attacker's gpt2: honest glue over student.block / student.layernorm (the references, when they stand in)."""
import numpy as np

import student._h  # noqa: F401  (snapshots the references standing in)
from student.block import run_block
from student.layernorm import run_layernorm


def run_gpt2(token_ids, params, n_head):
    token_ids = np.asarray(token_ids)
    x = params["wte.weight"][token_ids] + params["wpe.weight"][np.arange(token_ids.shape[-1])]
    i = 0
    while f"h.{i}.ln_1.weight" in params:
        p = {k[len(f"h.{i}."):]: v for k, v in params.items() if k.startswith(f"h.{i}.")}
        x = run_block(x, p, n_head)
        i += 1
    x = run_layernorm(x, params["ln_f.weight"], params["ln_f.bias"])
    return x @ params["wte.weight"].T
