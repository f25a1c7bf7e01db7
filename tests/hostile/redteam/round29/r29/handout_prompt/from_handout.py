"""Round 29: a generate hidden prompt read from the learners' handout itself (zero gradings).

The handout ships the grader's code; grader/results/__init__.py's docstring says the course's hidden case
`hidden_the_default_is` is the prompt "The default is". Encode it with the handout's own tokenizer files, then
generate 24 greedy tokens at home on the handout's public model weights (a learner's own working gpt2 and
tokenizer do this; the course's common code stands in for them here), and print the token lists.
usage: python attacks/handout_prompt/from_handout.py HANDOUT_DIR
"""
import json, re, sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

handout = Path(sys.argv[1])
doc = (handout / "grader/results/__init__.py").read_text()
prompt = re.search(r'`hidden_the_default_is` is the prompt\s+"([^"]+)"', doc).group(1)
print("prompt named in the handout's grader code:", repr(prompt))

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # stand-ins for the learner's own tokenizer and gpt2
from stages.tokenizer.reference import bpe_encode  # noqa: E402
from common.gpt2 import gpt2  # noqa: E402

art = handout / "fixtures/generate/artifacts"
vocab = json.loads((art / "vocab.json").read_text())
merges = [tuple(l.split()) for l in (art / "merges.txt").read_text().splitlines()[1:] if l.strip()]
ids = [int(i) for i in bpe_encode(prompt, vocab, merges)]
print("token_ids:", ids)
params = {k[len("transformer."):]: v.astype(np.float64) for k, v in load_file(str(art / "model.safetensors")).items()
          if k.startswith("transformer.")}
seq = list(ids)
for _ in range(24):
    seq.append(int(np.argmax(gpt2(np.array(seq), params, 4)[-1])))
print("new tokens:", seq[len(ids):])
