"""Softmax over the last axis, computed the numerically stable way (the row's maximum subtracted first).

common/gpt2.py's `softmax`. References: jaymody/picoGPT gpt2.py `softmax`; openai/gpt-2 src/model.py `softmax`;
transformers models/gpt2 (`nn.functional.softmax(attn_weights, dim=-1)`); Goodfellow, Bengio & Courville, Deep
Learning, section 4.1.
"""

from common.gpt2 import softmax

__all__ = ["softmax"]  # stage.yaml's reference
