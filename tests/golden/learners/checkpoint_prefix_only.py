"""Only the GPT2LMHeadModel key prefix: the published-layout cases raise, with tracebacks that differ by a number."""

import math

import numpy as np
from safetensors import safe_open

KEYS = ("c_fc.weight", "c_fc.bias", "c_proj.weight", "c_proj.bias")


def run_load_mlp_weights(checkpoint, layer):
    with safe_open(checkpoint, framework="numpy") as f:
        return {k: f.get_tensor(f"transformer.h.{layer}.mlp.{k}") for k in KEYS}


def run_checkpoint_mlp(checkpoint, layer, x):
    w = run_load_mlp_weights(checkpoint, layer)
    # in float64, cast once at the end: float32 tanh and sgemm round differently on different CPUs (AVX2, AVX-512)
    # and BLAS thread counts, and a golden file must not depend on the machine
    w = {k: v.astype(np.float64) for k, v in w.items()}
    h = x.astype(np.float64) @ w["c_fc.weight"] + w["c_fc.bias"]
    h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
    return (h @ w["c_proj.weight"] + w["c_proj.bias"]).astype(np.float32)
