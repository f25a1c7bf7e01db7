"""Greedy generation with GPT-2: run the model on the tokens so far, append the most likely next token, repeat.

`params` holds a checkpoint's tensors under their Hugging Face names without the `transformer.` prefix
(`wte.weight`, `wpe.weight`, `h.{i}.ln_1.weight`, ..., `ln_f.bias`), as in the gpt2 stage; the model is
common/gpt2.py's `gpt2`. `greedy_check` (common/greedy.py) is how a learner's tokens are judged: each must be a
greedy choice of this reference given the learner's own tokens before it, up to a tolerance τ for float32
near-ties (docs: stages/generate/instructions.md).

References: openai/gpt-2 src/sample.py `sample_sequence` (greedy is top_k=1); jaymody/picoGPT gpt2.py `generate`
and `gpt2`; transformers GenerationMixin `generate(do_sample=False)` (greedy search: argmax of the last position's
logits); Radford et al. (2019), "Language Models are Unsupervised Multitask Learners".
"""

import numpy as np

from common.gpt2 import gpt2
from common.greedy import TAU_ABS, TAU_REL, greedy_check

__all__ = ["generate", "greedy_check", "gpt2", "TAU_REL", "TAU_ABS"]  # stage.yaml's reference and check; the rule


def generate(token_ids, params, n_head, n_new):
    ids = [int(i) for i in token_ids]
    for _ in range(n_new):
        logits = gpt2(np.array(ids), params, n_head)  # [n_seq, n_vocab]: every position's next-token logits
        ids.append(int(np.argmax(logits[-1])))  # greedy: the most likely token after the last position
    return np.array(ids[len(token_ids):], dtype=np.int64)  # [n_new]: the new tokens only
