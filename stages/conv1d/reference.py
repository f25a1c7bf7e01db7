"""Conv1D, GPT-2's linear layer: x @ w + b with the weight stored [nx, nf] (in, out). common/gpt2.py's `linear`.

References: openai/gpt-2 src/model.py `conv1d`; transformers pytorch_utils.Conv1D (weight `[nx, nf]`, forward
`addmm(bias, x.view(-1, nx), weight)`); jaymody/picoGPT gpt2.py `linear`.
"""

from common.gpt2 import linear as conv1d

__all__ = ["conv1d"]  # stage.yaml's reference
