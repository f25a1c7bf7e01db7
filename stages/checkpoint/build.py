"""A small GPT-2 checkpoint in the real Hugging Face layout, built deterministically with numpy.

Every tensor of GPT-2 (wte, wpe, ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj, ln_f), float32, all
biases non-zero, at a width where activations have GPT-2's scale: common/checkpoints.py's tiny model (n_embd 64,
4 blocks of 4 heads, vocab 512, 128 positions, seed 2019, the year GPT-2 came out), the block and gpt2 stages'
tiny/. Two files hold the same weights:

- model.safetensors: keys prefixed `transformer.`, as `GPT2LMHeadModel.save_pretrained` writes them;
- published-layout.safetensors: no prefix, plus the `h.N.attn.bias` causal-mask buffers, like the published gpt2.
"""

import numpy as np

from common.checkpoints import TINY, causal_masks, shape_of, tiny_tensors, write


def build(dest):
    shape = shape_of(TINY)
    tensors = tiny_tensors(np.random.RandomState(TINY["seed"]), **shape)
    write(dest, {"model.safetensors": {"transformer." + k: v for k, v in tensors.items()},
                 "published-layout.safetensors": {**tensors, **causal_masks(**shape)}}, shape)
