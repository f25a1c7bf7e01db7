"""Two small GPT-2 checkpoints, tiny/ and trained-like/, each a model.safetensors and config.json.

common/checkpoints.py makes them (the gpt2 stage builds the same two): tiny/ is the checkpoint stage's model, with
the published file's causal-mask buffers; trained-like/ has the magnitudes of a trained GPT-2. Its docstring says
how each is drawn.
"""

from common.checkpoints import build_tiny_and_trained_like as build

__all__ = ["build"]  # stage.yaml's `artifacts:`
