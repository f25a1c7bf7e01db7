"""Known-wrong linear layers: if a learner's output matches one of these, the grader names the mistake."""


def no_bias(x, weight, bias):
    return x @ weight


def transposed_weight(x, weight, bias):
    return x @ weight.T + bias  # nn.Linear's x @ W.T + b on a Conv1D weight: a shape error unless square


def flattened_leading_axes(x, weight, bias):
    return x.reshape(-1, x.shape[-1]) @ weight + bias  # [B, T, nx] -> [B*T, nf], never reshaped back

