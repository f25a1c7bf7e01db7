"""`--checkpoint PATH` for this stage: check that a learner's own file is a float32 GPT-2 in the Hugging Face layout.

The grader calls `open_checkpoint(path)` before grading against the file; it reads only the safetensors header
(common/checkpoint_file.py). It returns what the grader needs (the file, a description for the report, the width
generated inputs take, and bounds on integer inputs such as `layer`) or raises ValueError with a message that says
what to pass instead.
"""

from __future__ import annotations

from typing import Any

from common.checkpoint_file import described, read_gpt2


def open_checkpoint(given: str) -> dict[str, Any]:
    """The checked file: {"path", "description", "last_axis": n_embd, "bounds": {"layer": n_layer}, "key_prefix"}."""
    checkpoint = read_gpt2(given)
    description = f"{described(checkpoint)}; expected values computed by the reference on this machine)"
    return {"path": str(checkpoint["path"]), "description": description, "last_axis": checkpoint["n_embd"],
            "bounds": {"layer": checkpoint["n_layer"]}, "key_prefix": checkpoint["prefix"]}
