"""Inputs shaped like what the MLP sees: the output of ln_2 (common/activations.py)."""

from common.activations import layernormed

__all__ = ["layernormed"]  # stage.yaml's generator
