"""Conv1D, GPT-2's linear layer: x @ w + b with the weight stored [nx, nf] (in, out).

References: openai/gpt-2 src/model.py `conv1d`; transformers pytorch_utils.Conv1D (weight `[nx, nf]`, forward
`addmm(bias, x.view(-1, nx), weight)`); jaymody/picoGPT gpt2.py `linear`.
"""


def conv1d(x, weight, bias):
    return x @ weight + bias  # [..., nx] @ [nx, nf] + [nf] -> [..., nf]
