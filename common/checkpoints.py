"""Small GPT-2 checkpoints in the Hugging Face layout, built deterministically with numpy (the stages' build.py).

- tiny: the checkpoint stage's model, and tiny/ of the block and gpt2 stages (n_embd 64, 4 blocks of 4 heads, vocab
  512, 128 positions): initialisation-sized (weights N(0, 0.02) at width 768, scaled to the width), every bias
  non-zero; its logits are small (|logit| < 1).
- trained-like/ of the block and gpt2 stages: the magnitudes a trained GPT-2 has, at a size that keeps the file
  small (n_embd 128, 4 blocks of 4 heads, vocab 2048, 256 positions): sharp attention (q and k weights x4: a row's
  largest weight is 0.5 to 0.65 on average), layer-norm gains 0.5 to 2.5 and ln_f gains 1 to 4, biases N(0, 0.1),
  three residual channels carried large (about 300 at position 0, growing with depth: the "massive activations" of
  Sun et al. 2024), and token embeddings sharing an offset that ln_f's bias turns into logits between about -110
  and -50 (most within -100 to -60), where the published gpt2's logits for ordinary text sit.

Tensors are keyed unprefixed (`wte.weight`, `h.0.ln_1.weight`, ... as in the published gpt2 file and
`GPT2Model.save_pretrained`); `causal_masks` are the published file's `h.N.attn.bias` buffers, which are not weights.
`GPT2LMHeadModel.from_pretrained(folder)` loads a folder `write` made (the head is tied to wte). safetensors writes
tensors sorted by name with a sorted JSON header, so a rebuild is byte-for-byte identical. Public (course.yaml
`common: public:`): a learner's handout holds it, as it holds the build.py files that use it.
"""

import json

import numpy as np
from safetensors.numpy import save_file

TINY = {"n_embd": 64, "n_head": 4, "n_layer": 4, "n_positions": 128, "vocab_size": 512, "seed": 2019}
TRAINED_LIKE = {"n_embd": 128, "n_head": 4, "n_layer": 4, "n_positions": 256, "vocab_size": 2048, "seed": 2024}
MASSIVE = (10, 63, 122)  # residual channels carried large in trained-like/
LOGIT_SHIFT = -80.0  # what ln_f's bias adds to every logit of trained-like/, through the shared wte offset


def shape_of(model):
    """A model's sizes without its seed: what `config` and the tensor makers take."""
    return {k: v for k, v in model.items() if k != "seed"}


def tiny_tensors(rng, n_embd, n_layer, n_positions, vocab_size, **_):
    """Every GPT-2 weight at initialisation's scale, in a fixed order (each draw consumes the one RandomState)."""
    std = 0.02 * np.sqrt(768 / n_embd)  # GPT-2's 0.02 at width 768, scaled so activations keep GPT-2's size
    n_inner = 4 * n_embd

    def normal(scale, *shape):
        return rng.normal(0.0, scale, size=shape).astype(np.float32)

    def gain(n):
        return (1.0 + rng.normal(0.0, 0.1, size=n)).astype(np.float32)

    t = {"wte.weight": normal(0.02, vocab_size, n_embd), "wpe.weight": normal(0.01, n_positions, n_embd)}
    for i in range(n_layer):
        h = f"h.{i}."
        t[h + "ln_1.weight"] = gain(n_embd)
        t[h + "ln_1.bias"] = normal(0.02, n_embd)
        t[h + "attn.c_attn.weight"] = normal(std, n_embd, 3 * n_embd)  # q, k, v side by side
        t[h + "attn.c_attn.bias"] = normal(0.02, 3 * n_embd)
        t[h + "attn.c_proj.weight"] = normal(std, n_embd, n_embd)
        t[h + "attn.c_proj.bias"] = normal(0.02, n_embd)
        t[h + "ln_2.weight"] = gain(n_embd)
        t[h + "ln_2.bias"] = normal(0.02, n_embd)
        t[h + "mlp.c_fc.weight"] = normal(std, n_embd, n_inner)  # [n_embd, 4*n_embd]: Conv1D, in x out
        t[h + "mlp.c_fc.bias"] = normal(0.02, n_inner)
        t[h + "mlp.c_proj.weight"] = normal(std, n_inner, n_embd)  # [4*n_embd, n_embd]
        t[h + "mlp.c_proj.bias"] = normal(0.02, n_embd)
    t["ln_f.weight"] = gain(n_embd)
    t["ln_f.bias"] = normal(0.02, n_embd)
    return t


def trained_like_tensors(rng, n_embd, n_layer, n_positions, vocab_size, **_):
    """Weights with a trained GPT-2's magnitudes (see the module's docstring), in a fixed order of draws."""
    std = 0.02 * np.sqrt(768 / n_embd)
    n_inner = 4 * n_embd
    big = list(MASSIVE)

    def normal(scale, *shape):
        return rng.normal(0.0, scale, size=shape).astype(np.float32)

    def gain(low, high, n):
        return rng.uniform(low, high, size=n).astype(np.float32)

    offset = normal(0.12, n_embd)  # shared by every token's embedding
    t = {"wte.weight": normal(0.12, vocab_size, n_embd) + offset, "wpe.weight": normal(0.05, n_positions, n_embd)}
    t["wpe.weight"][:, big] += np.float32(3.0)
    t["wpe.weight"][0, big] += np.float32(300.0)  # the first position's massive activations
    for i in range(n_layer):
        h = f"h.{i}."
        t[h + "ln_1.weight"] = gain(0.5, 2.5, n_embd)
        t[h + "ln_1.bias"] = normal(0.1, n_embd)
        c_attn = normal(std, n_embd, 3 * n_embd)
        c_attn[:, : 2 * n_embd] *= np.float32(4.0)  # q and k: scores in the tens, sharp attention
        t[h + "attn.c_attn.weight"] = c_attn
        t[h + "attn.c_attn.bias"] = normal(0.1, 3 * n_embd)
        t[h + "attn.c_proj.weight"] = normal(std, n_embd, n_embd)
        t[h + "attn.c_proj.bias"] = normal(0.1, n_embd)
        t[h + "ln_2.weight"] = gain(0.5, 2.5, n_embd)
        t[h + "ln_2.bias"] = normal(0.1, n_embd)
        t[h + "mlp.c_fc.weight"] = normal(std, n_embd, n_inner)
        t[h + "mlp.c_fc.bias"] = normal(0.1, n_inner)
        t[h + "mlp.c_proj.weight"] = normal(std, n_inner, n_embd)
        t[h + "mlp.c_proj.bias"] = normal(0.1, n_embd)
        t[h + "mlp.c_proj.bias"][big] += np.float32(2.0)  # keeps feeding the large channels: they grow with depth
    t["ln_f.weight"] = gain(1.0, 4.0, n_embd)
    # along the shared offset: every logit moves by about LOGIT_SHIFT, as in the published gpt2's logits
    t["ln_f.bias"] = normal(0.1, n_embd) + np.float32(LOGIT_SHIFT) * offset / np.float32(offset @ offset)
    return t


def causal_masks(n_layer, n_positions, **_):
    """The published gpt2 file's `h.N.attn.bias` buffers: [1, 1, n_positions, n_positions], 1 where a key is seen."""
    mask = np.tril(np.ones((n_positions, n_positions), dtype=np.float32))[None, None]
    return {f"h.{i}.attn.bias": mask for i in range(n_layer)}


def config(n_embd, n_head, n_layer, n_positions, vocab_size, **_):
    """config.json as Hugging Face writes it for GPT-2 (the keys a loader reads)."""
    return {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
            "n_embd": n_embd, "n_head": n_head, "n_layer": n_layer, "n_positions": n_positions,
            "n_ctx": n_positions, "n_inner": None, "vocab_size": vocab_size, "layer_norm_epsilon": 1e-05,
            "initializer_range": 0.02, "attn_pdrop": 0.1, "embd_pdrop": 0.1, "resid_pdrop": 0.1, "bos_token_id": 0,
            "eos_token_id": 0, "tie_word_embeddings": True, "torch_dtype": "float32"}


def write(folder, files, shape):
    """Each of files (name -> tensors) as a safetensors file in folder, and config.json; every file readable."""
    for name, tensors in files.items():
        save_file(tensors, str(folder / name), metadata={"format": "pt"})
    (folder / "config.json").write_text(json.dumps(config(**shape), indent=2, sort_keys=True) + "\n",
                                        encoding="utf-8")
    for path in folder.iterdir():
        path.chmod(0o644)  # safetensors creates its files private; fixtures are meant to be read


def build_tiny_and_trained_like(dest):
    """dest/tiny/ (with the causal-mask buffers, as in the published file) and dest/trained-like/."""
    for name, model, make, masks in (("tiny", TINY, tiny_tensors, True),
                                     ("trained-like", TRAINED_LIKE, trained_like_tensors, False)):
        shape = shape_of(model)
        tensors = make(np.random.RandomState(model["seed"]), **shape)
        (dest / name).mkdir()
        write(dest / name, {"model.safetensors": {**tensors, **causal_masks(**shape)} if masks else tensors}, shape)
        (dest / name).chmod(0o755)
