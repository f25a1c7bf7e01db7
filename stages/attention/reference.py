"""Causal multi-head self-attention, GPT-2's `attn`: c_attn to q, k, v; n_head heads of scaled dot-product
attention, each position seeing itself and the positions before it; the heads side by side; c_proj.
common/gpt2.py's `mha` (and `attention`, one head).

References: openai/gpt-2 src/model.py `attn` (split_heads, mask_attn_weights, merge_heads); transformers models/gpt2
GPT2Attention (`scaling = head_dim**-0.5`); jaymody/picoGPT gpt2.py `attention` and `mha`; Vaswani et al. (2017),
"Attention Is All You Need", section 3.2.
"""

from common.gpt2 import mha

__all__ = ["mha"]  # stage.yaml's reference
