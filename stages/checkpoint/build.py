"""A small GPT-2 checkpoint in the real Hugging Face layout, built deterministically with numpy.

Every tensor of GPT-2 (wte, wpe, ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj, ln_f), float32, all
biases non-zero, at a width where activations have GPT-2's scale. Two files hold the same weights:

- model.safetensors: keys prefixed `transformer.`, as `GPT2LMHeadModel.save_pretrained` writes them;
- published-layout.safetensors: no prefix, plus the `h.N.attn.bias` causal-mask buffers, like the published gpt2.

safetensors writes tensors sorted by name with a sorted JSON header, so a rebuild is byte-for-byte identical.
"""

import json

import numpy as np
from safetensors.numpy import save_file

N_EMBD = 64
N_HEAD = 4
N_LAYER = 4
N_POSITIONS = 128
VOCAB_SIZE = 512
SEED = 2019  # the year GPT-2 came out


def gpt2_tensors(rng):
    """Every GPT-2 weight, unprefixed, in a fixed order (each draw consumes the one RandomState)."""
    std = 0.02 * np.sqrt(768 / N_EMBD)  # GPT-2's 0.02 at width 768, scaled so activations keep GPT-2's size
    n_inner = 4 * N_EMBD

    def normal(scale, *shape):
        return rng.normal(0.0, scale, size=shape).astype(np.float32)

    def gain(n):
        return (1.0 + rng.normal(0.0, 0.1, size=n)).astype(np.float32)

    t = {"wte.weight": normal(0.02, VOCAB_SIZE, N_EMBD), "wpe.weight": normal(0.01, N_POSITIONS, N_EMBD)}
    for i in range(N_LAYER):
        h = f"h.{i}."
        t[h + "ln_1.weight"] = gain(N_EMBD)
        t[h + "ln_1.bias"] = normal(0.02, N_EMBD)
        t[h + "attn.c_attn.weight"] = normal(std, N_EMBD, 3 * N_EMBD)  # q, k, v side by side
        t[h + "attn.c_attn.bias"] = normal(0.02, 3 * N_EMBD)
        t[h + "attn.c_proj.weight"] = normal(std, N_EMBD, N_EMBD)
        t[h + "attn.c_proj.bias"] = normal(0.02, N_EMBD)
        t[h + "ln_2.weight"] = gain(N_EMBD)
        t[h + "ln_2.bias"] = normal(0.02, N_EMBD)
        t[h + "mlp.c_fc.weight"] = normal(std, N_EMBD, n_inner)  # [n_embd, 4*n_embd]: Conv1D, in x out
        t[h + "mlp.c_fc.bias"] = normal(0.02, n_inner)
        t[h + "mlp.c_proj.weight"] = normal(std, n_inner, N_EMBD)  # [4*n_embd, n_embd]
        t[h + "mlp.c_proj.bias"] = normal(0.02, N_EMBD)
    t["ln_f.weight"] = gain(N_EMBD)
    t["ln_f.bias"] = normal(0.02, N_EMBD)
    return t


def config():
    """config.json as Hugging Face writes it for GPT-2 (the keys a loader reads)."""
    return {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
            "n_embd": N_EMBD, "n_head": N_HEAD, "n_layer": N_LAYER, "n_positions": N_POSITIONS, "n_ctx": N_POSITIONS,
            "n_inner": None, "vocab_size": VOCAB_SIZE, "layer_norm_epsilon": 1e-05, "initializer_range": 0.02,
            "attn_pdrop": 0.1, "embd_pdrop": 0.1, "resid_pdrop": 0.1, "bos_token_id": 0, "eos_token_id": 0,
            "tie_word_embeddings": True, "torch_dtype": "float32"}


def build(dest):
    tensors = gpt2_tensors(np.random.RandomState(SEED))
    mask = np.tril(np.ones((N_POSITIONS, N_POSITIONS), dtype=np.float32))[None, None]  # [1, 1, n_pos, n_pos]
    masks = {f"h.{i}.attn.bias": mask for i in range(N_LAYER)}
    save_file({"transformer." + k: v for k, v in tensors.items()}, str(dest / "model.safetensors"),
              metadata={"format": "pt"})
    save_file({**tensors, **masks}, str(dest / "published-layout.safetensors"), metadata={"format": "pt"})
    (dest / "config.json").write_text(json.dumps(config(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    for path in dest.iterdir():
        path.chmod(0o644)  # safetensors creates its files private; fixtures are meant to be read
