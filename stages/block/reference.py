"""One GPT-2 transformer block, pre-LN: x + attn(ln_1(x)), then + mlp(ln_2(x)).

`params` holds the block's tensors under their Hugging Face names without the `h.{i}.` prefix: `ln_1.weight`,
`ln_1.bias`, `attn.c_attn.weight`, `attn.c_attn.bias`, `attn.c_proj.weight`, `attn.c_proj.bias`, `ln_2.weight`,
`ln_2.bias`, `mlp.c_fc.weight`, `mlp.c_fc.bias`, `mlp.c_proj.weight`, `mlp.c_proj.bias`.

The block is common/gpt2.py's `transformer_block`; this file adds where its computation can first go wrong.

References: openai/gpt-2 src/model.py `block`; transformers models/gpt2 GPT2Block; jaymody/picoGPT gpt2.py
`transformer_block`; Radford et al. (2019), section 2.3 (layer norm moved to the input of each sub-block).
"""

from common.gpt2 import ffn, layer_norm, mha, transformer_block

__all__ = ["transformer_block", "block_sites"]  # stage.yaml's reference and drift sites


def block_sites(x, params, n_head):
    """Where a block's computation can first go wrong, for the grader's drift locator: ln_1, the attention, ln_2,
    the MLP, each with the reference's own input there (docs/authoring.md, "The drift locator")."""
    p = params
    h1 = layer_norm(x, p["ln_1.weight"], p["ln_1.bias"])
    a = mha(h1, p["attn.c_attn.weight"], p["attn.c_attn.bias"], p["attn.c_proj.weight"], p["attn.c_proj.bias"], n_head)
    x2 = x + a
    h2 = layer_norm(x2, p["ln_2.weight"], p["ln_2.bias"])
    m = ffn(h2, p["mlp.c_fc.weight"], p["mlp.c_fc.bias"], p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])
    return [
        {"name": "ln_1", "stage": "layernorm", "function": "run_layernorm",
         "inputs": {"x": x, "weight": p["ln_1.weight"], "bias": p["ln_1.bias"]}, "output": h1},
        {"name": "the attention", "stage": "attention", "function": "run_attention",
         "inputs": {"x": h1, "c_attn_weight": p["attn.c_attn.weight"], "c_attn_bias": p["attn.c_attn.bias"],
                    "c_proj_weight": p["attn.c_proj.weight"], "c_proj_bias": p["attn.c_proj.bias"],
                    "n_head": n_head}, "output": a},
        {"name": "ln_2", "stage": "layernorm", "function": "run_layernorm",
         "inputs": {"x": x2, "weight": p["ln_2.weight"], "bias": p["ln_2.bias"]}, "output": h2},
        {"name": "the MLP", "stage": "mlp", "function": "run_mlp",
         "inputs": {"x": h2, "c_fc_weight": p["mlp.c_fc.weight"], "c_fc_bias": p["mlp.c_fc.bias"],
                    "c_proj_weight": p["mlp.c_proj.weight"], "c_proj_bias": p["mlp.c_proj.bias"]}, "output": m},
    ]
