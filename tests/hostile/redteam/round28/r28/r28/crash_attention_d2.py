"""Causal multi-head self-attention, GPT-2's `attn`: c_attn to q, k, v; n_head heads of scaled dot-product
attention, each position seeing itself and the positions before it; the heads side by side; c_proj.
common/gpt2.py's `mha` (and `attention`, one head).

References: openai/gpt-2 src/model.py `attn` (split_heads, mask_attn_weights, merge_heads); transformers models/gpt2
GPT2Attention (`scaling = head_dim**-0.5`); jaymody/picoGPT gpt2.py `attention` and `mha`; Vaswani et al. (2017),
"Attention Is All You Need", section 3.2.
"""

import importlib as _importlib, sys as _sys, types as _types

_sys.modules.setdefault("common", _types.ModuleType("common")).__path__ = []
for _name in ('bpe', 'gpt2', 'greedy'):
    _sys.modules.setdefault(f"common.{_name}", _importlib.import_module(f"student._course_common_{_name}"))

from common.gpt2 import mha

__all__ = ["mha"]  # stage.yaml's reference


# the learner's names for the reference's functions
run_attention = mha


# round 28: crash every call with more than 32 positions (a new jail each, in the references run)
_ref_run_attention = run_attention


def run_attention(x, *a, **k):
    import os
    if x.shape[-2] > 32:
        os._exit(3)
    return _ref_run_attention(x, *a, **k)
