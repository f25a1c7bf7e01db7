# module: gpt2 -- an honest learner's gpt2 with one ordinary mistake: the position embeddings are sliced by the
# first axis (ids.shape[0]) instead of the sequence axis, so the batched cases fail; every unbatched case passes.
import numpy as np
from student.common_gpt2 import attn, block_params, layer_norm, mlp, n_layer


def run_gpt2(token_ids, params, n_head):
    ids = np.asarray(token_ids)
    x = params["wte.weight"][ids] + params["wpe.weight"][: ids.shape[0]]  # the mistake: ids.shape[-1]
    for i in range(n_layer(params)):
        p = block_params(params, i)
        x = x + attn(layer_norm(x, p["ln_1.weight"], p["ln_1.bias"]), p, n_head)
        x = x + mlp(layer_norm(x, p["ln_2.weight"], p["ln_2.bias"]), p)
    return layer_norm(x, params["ln_f.weight"], params["ln_f.bias"]) @ params["wte.weight"].T
