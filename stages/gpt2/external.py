"""`--checkpoint PATH` for this stage: grade run_gpt2 on a learner's own GPT-2 (model.safetensors + config.json).

The grader calls `open_checkpoint(path)` before grading against the file; it reads only the safetensors header
(common/checkpoint_file.py) and the config.json beside it (n_head cannot be read from the weights). It returns what
the grader needs (the file, a description for the report, the key prefix, n_head) or raises ValueError with a
message that says what to pass. The cases' token ids (all below 2048) and lengths (at most 256) are the fixture's;
expected logits are computed by the reference on this machine, once per file digest. A 124M model at T=256 takes
under a second in numpy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from common.checkpoint_file import WHERE, described, read_gpt2


def open_checkpoint(given: str) -> dict[str, Any]:
    """The checked file: {"path", "description", "last_axis": None, "key_prefix", "values": {"n_head"}}."""
    checkpoint = read_gpt2(given)
    path, prefix = checkpoint["path"], checkpoint["prefix"]
    n_head = _n_head(path.parent / "config.json", checkpoint["n_embd"])
    vocab = int(checkpoint["header"][prefix + "wte.weight"][1][0])
    if vocab < 2048:
        raise ValueError(f"has a vocabulary of {vocab} tokens; the cases use token ids up to 2047. Pass {WHERE}.")
    description = f"{described(checkpoint)}, {n_head} heads; expected logits computed by the reference on this machine)"
    # numpy float32 at 124M takes about a second a case on two cores (T <= 256), much more on a busy machine
    timeout = max(60.0, 60.0 * path.stat().st_size / 5e8)
    return {"path": str(path), "description": description, "last_axis": None, "key_prefix": prefix,
            "values": {"n_head": n_head}, "timeout": timeout}


def _n_head(config: Path, n_embd: int) -> int:
    """n_head from the model's config.json (Hugging Face's `n_head`), checked to divide n_embd."""
    try:
        n_head = json.loads(config.read_text(encoding="utf-8"))["n_head"]
    except FileNotFoundError:
        raise ValueError(f"no config.json beside it ({config}): it says the model's n_head, which the weights "
                         "cannot. Download it with the weights.") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{config} does not give n_head ({type(e).__name__}: {e})") from None
    if not (isinstance(n_head, int) and n_head > 0 and n_embd % n_head == 0):
        raise ValueError(f"{config}: n_head {n_head!r} does not divide n_embd {n_embd}")
    return n_head
