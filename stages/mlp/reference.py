"""GPT-2's feed-forward network (the MLP of each block): c_fc, gelu_new, c_proj. common/gpt2.py's `ffn`.

References: openai/gpt-2 src/model.py `mlp`; transformers models/gpt2 GPT2MLP; jaymody/picoGPT gpt2.py `ffn`.
The layer norm before it (ln_2) and the residual after it belong to the block, not to the MLP.
"""

from common.gpt2 import ffn

__all__ = ["ffn"]  # stage.yaml's reference
