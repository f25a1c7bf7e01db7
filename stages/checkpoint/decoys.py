"""Known-wrong checkpoint loaders: if a learner's output matches one of these, the grader names the mistake."""

import math

import numpy as np
from safetensors import safe_open

MLP_KEYS = ("c_fc.weight", "c_fc.bias", "c_proj.weight", "c_proj.bias")


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * (x * x * x))))


def _tensors(checkpoint, names):
    with safe_open(checkpoint, framework="numpy") as f:
        prefix = "transformer." if "transformer.wte.weight" in f.keys() else ""
        return {name: f.get_tensor(prefix + name) for name in names}


def _mlp(x, w):
    return _gelu(x @ w["c_fc.weight"] + w["c_fc.bias"]) @ w["c_proj.weight"] + w["c_proj.bias"]


def attention_c_proj(checkpoint, layer):
    t = _tensors(checkpoint, [f"h.{layer}.mlp.c_fc.weight", f"h.{layer}.mlp.c_fc.bias",
                              f"h.{layer}.attn.c_proj.weight", f"h.{layer}.attn.c_proj.bias"])
    return {"c_fc.weight": t[f"h.{layer}.mlp.c_fc.weight"], "c_fc.bias": t[f"h.{layer}.mlp.c_fc.bias"],
            "c_proj.weight": t[f"h.{layer}.attn.c_proj.weight"], "c_proj.bias": t[f"h.{layer}.attn.c_proj.bias"]}


def always_block_0(checkpoint, layer):
    t = _tensors(checkpoint, [f"h.0.mlp.{k}" for k in MLP_KEYS])
    return {k: t[f"h.0.mlp.{k}"] for k in MLP_KEYS}


def linear_orientation(checkpoint, layer):
    t = _tensors(checkpoint, [f"h.{layer}.mlp.{k}" for k in MLP_KEYS])
    return {k: t[f"h.{layer}.mlp.{k}"].T for k in MLP_KEYS}  # weights [nf, nx]; .T leaves biases as they are


def always_block_0_mlp(checkpoint, layer, x):
    return _mlp(x, always_block_0(checkpoint, layer))


def ln_2_inside(checkpoint, layer, x):
    t = _tensors(checkpoint, [f"h.{layer}.ln_2.weight", f"h.{layer}.ln_2.bias"])
    mean = x.mean(axis=-1, keepdims=True)
    variance = x.var(axis=-1, keepdims=True)
    normed = (x - mean) / np.sqrt(variance + 1e-5) * t[f"h.{layer}.ln_2.weight"] + t[f"h.{layer}.ln_2.bias"]
    w = _tensors(checkpoint, [f"h.{layer}.mlp.{k}" for k in MLP_KEYS])
    return _mlp(normed, {k: w[f"h.{layer}.mlp.{k}"] for k in MLP_KEYS})


def _unshifted(checkpoint, layer):
    """A hand-written safetensors reader that takes data_offsets from the start of the file, not of the data."""
    import json
    import struct

    with open(checkpoint, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    prefix = "transformer." if "transformer.wte.weight" in header else ""
    out = {}
    for name in MLP_KEYS:
        meta = header[f"{prefix}h.{layer}.mlp.{name}"]
        start, end = meta["data_offsets"]  # relative to the data, which begins at 8 + n: the shift is missing
        out[name] = np.frombuffer(data[start:end], dtype=np.float32).reshape(meta["shape"])
    return out


def offsets_not_shifted(checkpoint, layer):
    return _unshifted(checkpoint, layer)


def offsets_not_shifted_mlp(checkpoint, layer, x):
    return _mlp(x, _unshifted(checkpoint, layer))
