"""`python -m grader generate "PROMPT"`: the learner's own tokenizer, GPT-2 and generator writing text.

Called by the grader (docs/authoring.md, "A demo") once the generate stage and the stages it uses pass. Every step is
the learner's code in the sandbox: run_bpe_encode turns the prompt into ids; each new token is their run_generate's
(greedy, one token a call, so the text streams) or, with --temperature, drawn from their run_gpt2's last row of
logits; run_bpe_decode turns the ids back into text. --compare runs the references on the same prompt and marks the
first token where the two part. The model is the course's tiny GPT-2 trained on Python's docstrings, or the
learner's own folder (--checkpoint: model.safetensors, config.json, vocab.json, merges.txt).
"""

import json
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file


def _model(folder):
    """The weights (without the `transformer.` prefix or mask buffers), n_head, the vocabulary and the merges."""
    folder = Path(folder)
    every = load_file(str(folder / "model.safetensors"))
    prefix = "transformer." if "transformer.wte.weight" in every else ""
    params = {k[len(prefix):]: v for k, v in every.items()
              if k.startswith(prefix) and not k.endswith((".attn.bias", ".attn.masked_bias"))}
    n_head = json.loads((folder / "config.json").read_text())["n_head"]
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    if (folder / "merges.json").exists():
        merges = [tuple(m) for m in json.loads((folder / "merges.json").read_text(encoding="utf-8"))]
    else:  # merges.txt: a version line, then one "a b" pair a line, in rank order
        lines = (folder / "merges.txt").read_text(encoding="utf-8").splitlines()[1:]
        merges = [tuple(line.split(" ")) for line in lines if line]
    return params, n_head, vocab, merges


def _next(options, learner, ids, params, n_head, rng):
    """One new token: the learner's greedy generator, or a draw from their model's logits."""
    if options.temperature <= 0:
        [token] = learner("generate", "run_generate", token_ids=np.asarray(ids, dtype=np.int64), params=params,
                          n_head=n_head, n_new=1)
        return int(token)
    logits = np.asarray(learner("gpt2", "run_gpt2", token_ids=np.asarray(ids, dtype=np.int64), params=params,
                                n_head=n_head), dtype=np.float64)[-1] / options.temperature
    if options.top_k:
        logits[np.argsort(logits)[:-options.top_k]] = -np.inf
    p = np.exp(logits - logits.max())
    return int(rng.choice(len(p), p=p / p.sum()))


def demo(options, learner, reference, emit, artifacts):
    params, n_head, vocab, merges = _model(artifacts)
    n_positions = params["wpe.weight"].shape[0]
    ids = [int(i) for i in learner("tokenizer", "run_bpe_encode", text=options.prompt, vocab=vocab, merges=merges)]
    emit(options.prompt)
    rng = np.random.default_rng(options.seed)
    shown, mine = options.prompt, []
    for _ in range(min(options.tokens, n_positions - len(ids))):
        mine.append(_next(options, learner, ids + mine, params, n_head, rng))
        text = learner("tokenizer", "run_bpe_decode", ids=np.asarray(ids + mine, dtype=np.int64), vocab=vocab)
        emit(text[len(shown):] if text.startswith(shown) else "\n" + text)
        shown = text
    emit("\n")
    if options.compare:
        _compare(options, reference, emit, ids, mine, params, n_head, vocab, merges)


def _compare(options, reference, emit, ids, mine, params, n_head, vocab, merges):
    """The references' continuation of the same prompt, and the first token where the learner's parts from it."""
    theirs = [int(t) for t in reference("generate", "run_generate")(np.asarray(ids), params, n_head, len(mine))]
    decode = reference("tokenizer", "run_bpe_decode")
    emit("reference: " + decode(np.asarray(ids + theirs), vocab) + "\n")
    parted = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b), None)
    if parted is None:
        emit(f"yours and the reference's agree on all {len(mine)} new tokens\n")
    else:
        emit(f"they part at new token {parted}: yours {mine[parted]} "
             f"({decode(np.asarray([mine[parted]]), vocab)!r}), the reference's {theirs[parted]} "
             f"({decode(np.asarray([theirs[parted]]), vocab)!r})"
             + (" (sampling: expected)" if options.temperature > 0 else "") + "\n")
