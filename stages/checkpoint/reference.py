"""Loading one block's MLP from a Hugging Face GPT-2 checkpoint (model.safetensors), and running it.

References: the safetensors format (huggingface/safetensors README: 8-byte little-endian header length, JSON
header, raw little-endian data); transformers models/gpt2 (key names `h.{i}.mlp.c_fc.weight`, the `transformer.`
prefix of GPT2LMHeadModel); jaymody/picoGPT utils.py and gpt2.py `ffn` (common/gpt2.py's).
"""

from safetensors import safe_open

from common.gpt2 import ffn

MLP_KEYS = ("c_fc.weight", "c_fc.bias", "c_proj.weight", "c_proj.bias")


def load_mlp_weights(checkpoint, layer):
    with safe_open(checkpoint, framework="numpy") as f:  # reads the header; get_tensor reads one tensor
        prefix = "transformer." if "transformer.wte.weight" in f.keys() else ""
        block = f"{prefix}h.{layer}.mlp."
        return {name: f.get_tensor(block + name) for name in MLP_KEYS}  # c_fc.weight [n_embd, 4*n_embd] ...


def checkpoint_mlp(checkpoint, layer, x):
    w = load_mlp_weights(checkpoint, layer)
    return ffn(x, w["c_fc.weight"], w["c_fc.bias"], w["c_proj.weight"], w["c_proj.bias"])  # [..., n_embd]
