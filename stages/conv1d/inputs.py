"""Inputs shaped like the activations a GPT-2 linear layer sees (common/activations.py)."""

from common.activations import gelu_hidden, layernormed

__all__ = ["gelu_hidden", "layernormed"]  # stage.yaml's generators
