"""Fixture design for the generate and kvcache stages: which prompts to grade on, and why (an author's tool).

    python stages/generate/design.py            # the candidates below: kept or not, margins, decoys, YAML lines
    python stages/generate/design.py --generate # the same for the generate stage's shorter public cases
    python stages/generate/design.py --survey   # how often a random docstring opening is rejected

A prompt is kept when the float64 greedy path has a top-2 gap of at least GAP at every step: there no float32
implementation can pick the other token (the largest float32 logit error measured on this model is far below it),
so the stored expected ids are what every correct learner gets, and decoys are named by exact comparison. The
grading itself does not depend on this (greedy_check accepts near-ties within τ); it only keeps the rule's use rare.
Needs the test extra (transformers, for the tokenizer).
"""

import argparse
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE / "artifacts-src"
GAP = 1e-4
CANDIDATES = [  # (case id, prompt text, n_new)
    ("return_the", "Return the", 32),
    ("raise_valueerror", "Raise ValueError if", 24),
    ("this_module", "This module provides", 24),
    ("return_true_if", "Return True if the", 28),
    ("convert_the_given", "Convert the given", 24),
    ("open_the_file", "Open the file and", 24),
    ("if_the_value_is", "If the value is", 24),
    ("eot_only", "<|endoftext|>", 24),
]
N_POSITIONS_CASE = ("ends_at_n_positions", 32)  # prompt: json.dumps's docstring, cut to n_positions - 32 tokens
# The generate stage's public cases stop sooner: without a cache each token costs a whole forward pass, and a save in
# watch mode should grade in well under 0.1 s. Every decoy still differs within the first three steps (--generate).
# The kvcache stage's cases run the lengths above (a cached step costs one position).
GENERATE_N_NEW = {"return_the": 12, "raise_valueerror": 8, "this_module": 8, "eot_only": 8, "ends_at_n_positions": 8}


def load(path, name):
    if str(HERE.parents[1]) not in sys.path:  # the course folder: reference.py imports its common/ modules
        sys.path.insert(0, str(HERE.parents[1]))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def params64():
    from safetensors.numpy import load_file

    return {k[len("transformer."):]: v.astype(np.float64) for k, v in load_file(str(SRC / "model.safetensors")).items()}


def tokenizer():
    from transformers import GPT2TokenizerFast

    return GPT2TokenizerFast(str(SRC / "vocab.json"), str(SRC / "merges.txt"))


def path_margins(ref, ids, params, n_head, n_new):
    """Per step of the float64 greedy path: (top-2 gap, τ, max|logit|); and the new ids."""
    new = ref.generate(ids, params, n_head, n_new)
    logits = ref.gpt2(np.concatenate([ids, new[:-1]]), params, n_head)[len(ids) - 1:]
    top2 = np.sort(logits, axis=-1)[:, -2:]
    scale = np.abs(logits).max(axis=-1)
    return top2[:, 1] - top2[:, 0], ref.TAU_REL * scale + ref.TAU_ABS, scale, new


def n_positions_prompt(tok, n_prompt):
    """The opening n_prompt tokens of json.dumps's docstring (a stdlib docstring the model was trained on)."""
    import inspect

    ids = tok(inspect.cleandoc(json.dumps.__doc__))["input_ids"][:n_prompt]
    return tok.decode(ids), np.array(ids)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--survey", type=int, default=0, help="test N random docstring openings instead")
    ap.add_argument("--generate", action="store_true", help="the generate stage's public cases (GENERATE_N_NEW)")
    args = ap.parse_args(argv)
    ref = load(HERE / "reference.py", "generate_reference")
    decoys = load(HERE / "decoys.py", "generate_decoys")
    kv_decoys = load(HERE.parent / "kvcache" / "decoys.py", "kvcache_decoys")
    config = json.loads((SRC / "config.json").read_text())
    n_head, n_pos = config["n_head"], config["n_positions"]
    params, tok = params64(), tokenizer()
    if args.survey:
        return survey(ref, params, tok, n_head, args.survey)
    wanted = [(cid, text, GENERATE_N_NEW[cid] if args.generate else n_new) for cid, text, n_new in CANDIDATES
              if not args.generate or cid in GENERATE_N_NEW]
    cases = [(cid, text, np.array(tok(text)["input_ids"]), n_new) for cid, text, n_new in wanted]
    last = GENERATE_N_NEW[N_POSITIONS_CASE[0]] if args.generate else N_POSITIONS_CASE[1]
    text, ids = n_positions_prompt(tok, n_pos - last)
    cases.append((N_POSITIONS_CASE[0], text, ids, last))
    names = [n for n in dir(decoys) if not n.startswith("_") and callable(getattr(decoys, n))
             and n not in ("Path",) and getattr(getattr(decoys, n), "__module__", "") == decoys.__name__]
    kv_names = ["positions_restart_at_zero", "positions_count_new_tokens_only", "cache_not_updated"]
    p32 = {k: v.astype(np.float32) for k, v in params.items()}
    for cid, _text, ids, n_new in cases:
        gap, tau, scale, new = path_margins(ref, ids, params, n_head, n_new)
        f32 = ref.generate(ids, p32, n_head, n_new)
        keep = bool(gap.min() >= GAP)
        print(f"\n{cid}: {'KEEP' if keep else 'reject'}  prompt {len(ids)} tokens + {n_new} new = {len(ids) + n_new}"
              f"  min top-2 gap {gap.min():.3g} at step {int(gap.argmin())}  (τ there {tau[gap.argmin()]:.3g}, "
              f"max|logit| {scale.max():.2f})  float32 path equal: {bool((f32 == new).all())}")
        print(f"  text: {tok.decode(ids)!r} -> {tok.decode(new)!r}")
        print(f"  token_ids: {{values: {ids.tolist()}, dtype: int64}}")
        print(f"  new: {new.tolist()}")
        for name in names:
            out = getattr(decoys, name)(ids, params, n_head, n_new)
            print(f"  decoy {name:26} {_first_difference(out, new)}")
        for name in kv_names:
            out = getattr(kv_decoys, name)(ids, params, n_head, n_new)
            print(f"  kvcache decoy {name:32} {_first_difference(out, new)}")


def _first_difference(out, new):
    if out.shape != new.shape:
        return f"shape {out.shape}"
    diff = np.flatnonzero(out != new)
    return f"first differs at step {diff[0]}" if diff.size else "IDENTICAL"


def survey(ref, params, tok, n_head, n):
    """Share of random docstring openings (2-12 tokens, 24 new) whose greedy path has a gap below GAP."""
    import gzip

    with gzip.open(SRC / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        texts = [json.loads(line) for line in f]
    rng = np.random.RandomState(0)
    gaps, rel = [], []
    for i in rng.choice(len(texts), size=n, replace=False):
        ids = np.array(tok(texts[i])["input_ids"][:rng.randint(2, 13)])
        gap, tau, scale, _ = path_margins(ref, ids, params, n_head, 24)
        gaps.append(gap.min())
        rel.append((gap / tau).min())
    gaps, rel = np.array(gaps), np.array(rel)
    print(f"{n} prompts x 24 steps: min gap < {GAP}: {(gaps < GAP).sum()} ({(gaps < GAP).mean():.1%}); "
          f"min gap < τ: {(rel < 1).sum()}; smallest gap {gaps.min():.3g}; "
          f"median of per-prompt min {np.median(gaps):.3g}")


if __name__ == "__main__":
    sys.exit(main())
