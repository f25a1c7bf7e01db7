"""Stage checkpoint: Loading a real checkpoint.

Instructions: `python -m grader show checkpoint`    Grade: `python -m grader --stage checkpoint --watch`
Tolerance: |yours - expected| <= 0.0001 + 0.0001 * |expected|, elementwise.
"""

import numpy as np


def run_load_mlp_weights(checkpoint, layer):
    """Read block `layer`'s MLP weights from a GPT-2 checkpoint.

    checkpoint: the path of a Hugging Face model.safetensors (float32). Its keys may carry the prefix
                "transformer." (GPT2LMHeadModel) or not (the published gpt2 file, which also holds
                h.N.attn.bias mask buffers you can ignore).
    layer:      the block's index, 0 <= layer < n_layer.
    Returns {"c_fc.weight": [n_embd, 4*n_embd], "c_fc.bias": [4*n_embd],
             "c_proj.weight": [4*n_embd, n_embd], "c_proj.bias": [n_embd]}, in Conv1D orientation, as stored.
    """
    raise NotImplementedError("run_load_mlp_weights is not written yet: see `python -m grader show checkpoint`")


def run_checkpoint_mlp(checkpoint, layer, x):
    """Run block `layer`'s MLP, with its weights from the checkpoint, on x.

    checkpoint, layer: as for run_load_mlp_weights (call it).
    x: [..., n_embd] float32, what ln_2 hands the MLP.
    Returns [..., n_embd]: your run_mlp (stage mlp) with that block's weights. No ln_2 and no residual.
    """
    raise NotImplementedError("run_checkpoint_mlp is not written yet: see `python -m grader show checkpoint`")
