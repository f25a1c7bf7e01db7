"""A learner's own GPT-2 checkpoint (`--checkpoint PATH`), checked from its safetensors header alone.

`read_gpt2(given)` finds the file (a model.safetensors, or the Hugging Face model folder holding one), reads its
header, and checks that it is a complete float32 GPT-2 in the Hugging Face layout: every tensor of every block
present, at GPT-2's shapes for its width. It returns what the stages' external.py need to describe the file and
shape their cases, or raises ValueError with a message that says what to pass instead. Public (course.yaml
`common: public:`): a learner's handout holds it, as it holds the external.py files that use it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

PREFIX = "transformer."  # GPT2LMHeadModel.save_pretrained; the published gpt2 file and GPT2Model have none
WHERE = "the model.safetensors of a GPT-2 model, e.g. from https://huggingface.co/openai-community/gpt2"


def read_gpt2(given: str) -> dict[str, Any]:
    """The checked file: {"path", "header" (name -> (dtype, shape)), "prefix", "n_embd", "n_layer"}."""
    path = Path(given).expanduser().resolve()
    if path.is_dir() and (path / "model.safetensors").is_file():
        path = path / "model.safetensors"  # a Hugging Face model folder
    if not path.is_file():
        what = "is a folder without a model.safetensors" if path.is_dir() else "does not exist"
        raise ValueError(f"{what}. Pass {WHERE}.")
    header = _header(path)
    if PREFIX + "wte.weight" in header:
        prefix = PREFIX
    elif "wte.weight" in header:
        prefix = ""
    else:
        raise ValueError(f"a safetensors file, but not a GPT-2 checkpoint: it has no 'wte.weight' (token embedding), "
                         f"with or without the '{PREFIX}' prefix. Its first keys: "
                         f"{', '.join(sorted(header)[:5]) or 'none'}. Pass {WHERE}.")
    n_embd = int(header[prefix + "wte.weight"][1][-1])
    layers = {int(m.group(1)) for k in header if (m := re.match(re.escape(prefix) + r"h\.(\d+)\.", k))}
    n_layer = next(i for i in range(len(layers) + 1) if i not in layers)
    c_fc = header.get(f"{prefix}h.0.mlp.c_fc.weight", ("", [n_embd, 4 * n_embd]))[1]
    n_inner = int(c_fc[-1]) if len(c_fc) == 2 else 4 * n_embd
    _check(header, prefix, n_embd, n_layer, n_inner)
    return {"path": path, "header": header, "prefix": prefix, "n_embd": n_embd, "n_layer": n_layer}


def described(checkpoint: dict[str, Any]) -> str:
    """The start of a report's line about the file: its path, size, key layout, width and depth."""
    path, prefix = checkpoint["path"], checkpoint["prefix"]
    layout = f"keys prefixed '{prefix}'" if prefix else "unprefixed keys"
    return (f"{path} ({path.stat().st_size / 1e6:,.0f} MB, {layout}, n_embd {checkpoint['n_embd']}, "
            f"{checkpoint['n_layer']} blocks")


def expected_shapes(n_embd: int, n_layer: int, n_inner: int) -> dict[str, tuple[int, ...]]:
    """Every tensor GPT-2 has (unprefixed name -> shape; -1 for any size), for this width and depth."""
    n, k = n_embd, n_inner
    shapes: dict[str, tuple[int, ...]] = {"wte.weight": (-1, n), "wpe.weight": (-1, n),
                                          "ln_f.weight": (n,), "ln_f.bias": (n,)}
    for i in range(n_layer):
        block = {"ln_1.weight": (n,), "ln_1.bias": (n,), "attn.c_attn.weight": (n, 3 * n),
                 "attn.c_attn.bias": (3 * n,), "attn.c_proj.weight": (n, n), "attn.c_proj.bias": (n,),
                 "ln_2.weight": (n,), "ln_2.bias": (n,), "mlp.c_fc.weight": (n, k), "mlp.c_fc.bias": (k,),
                 "mlp.c_proj.weight": (k, n), "mlp.c_proj.bias": (n,)}
        shapes.update({f"h.{i}.{name}": shape for name, shape in block.items()})
    return shapes


def _check(header: dict[str, tuple[str, list[int]]], prefix: str, n_embd: int, n_layer: int, n_inner: int) -> None:
    if n_layer == 0:
        raise ValueError(f"has embeddings but no transformer blocks ('{prefix}h.0.ln_1.weight' and so on). "
                         f"Pass {WHERE}.")
    missing, wrong, dtypes = [], [], set()
    for name, want in expected_shapes(n_embd, n_layer, n_inner).items():
        key = prefix + name
        if key not in header:
            missing.append(key)
            continue
        dtype, shape = header[key]
        dtypes.add(dtype)
        if len(shape) != len(want) or any(w not in (-1, s) for w, s in zip(want, shape, strict=False)):
            wrong.append(f"{key} is {list(shape)}, expected {[w if w >= 0 else 'any' for w in want]}")
    if missing:
        raise ValueError(f"not a complete GPT-2 checkpoint: {len(missing)} tensors are missing, such as "
                         f"{', '.join(missing[:3])}. Pass {WHERE}.")
    if wrong:
        linear = any("mlp.c_fc.weight" in w for w in wrong)
        why = (" (weights stored [out, in], as nn.Linear does: GPT-2 checkpoints store Conv1D weights [in, out])"
               if linear else "")
        raise ValueError(f"tensors have shapes GPT-2 does not use{why}: {'; '.join(wrong[:3])}. Pass {WHERE}.")
    if dtypes != {"F32"}:
        raise ValueError(f"holds {', '.join(sorted(dtypes))} tensors; this stage grades float32 checkpoints (F32), "
                         "such as the published gpt2 model.safetensors. Convert it to float32, or pass that file.")


def _header(path: Path) -> dict[str, tuple[str, list[int]]]:
    """Name -> (dtype, shape) for every tensor, read from the file's header alone."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as f:
            out = {}
            for key in f.keys():
                tensor = f.get_slice(key)
                out[key] = (str(tensor.get_dtype()), [int(d) for d in tensor.get_shape()])
            return out
    except OSError as e:
        raise ValueError(f"cannot read it: {e.strerror or e}") from e
    except Exception as e:  # safetensors raises its own SafetensorError for anything malformed  # noqa: BLE001
        with path.open("rb") as raw:
            start = raw.read(4)
        kind = {b"PK\x03\x04": " (it looks like a PyTorch pytorch_model.bin, a zip of pickles)",
                b"\x89HDF": " (it looks like an HDF5 / Keras .h5 file)"}.get(start, "")
        raise ValueError(f"not a safetensors file{kind}: {e}. Pass {WHERE}.") from e
