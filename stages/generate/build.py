"""The generate stage's artifacts: the course's own small GPT-2, trained on Python's documentation, and its tokenizer.

Fixture builds copy the committed files in artifacts-src/ (no torch needed, byte for byte the same every time):

- model.safetensors, config.json: a GPT2LMHeadModel (n_embd 128, 4 blocks of 4 heads, n_positions 128, vocab
  2048), keys prefixed `transformer.` as save_pretrained writes them, the head tied to wte;
- vocab.json, merges.txt (tokenizer_config.json): its byte-level BPE in GPT-2's layout; `GPT2TokenizerFast` and
  `AutoTokenizer` load them;
- merges.json: merges.txt as a JSON list of [a, b] pairs in rank order (what a `json:` case input reads).

How they were made, and how to make them again (train.py has the details; training.json what came out):

    python stages/generate/build.py --gather   # the corpus, from the running interpreter's own documentation
    python stages/generate/build.py --train    # tokenizer + model from the committed corpus, ~5 minutes on 2 cores
"""

import shutil
import sys
from pathlib import Path

if __name__ == "__main__":  # run by hand: the course folder on the path, so `common` imports as in the grader
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from common.artifacts import copy_artifacts  # noqa: E402

SRC = Path(__file__).resolve().parent / "artifacts-src"
FILES = ("model.safetensors", "config.json", "vocab.json", "merges.txt", "tokenizer_config.json")


def build(dest):
    copy_artifacts(SRC, dest, FILES)  # and merges.json


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gather", action="store_true", help="remake corpus.jsonl.gz from this interpreter")
    parser.add_argument("--train", action="store_true", help="retrain the tokenizer and the model")
    parser.add_argument("--steps", type=int, default=None, help="training steps (default: train.STEPS)")
    parser.add_argument("--out", type=Path, default=SRC, help="folder to write (default: artifacts-src/)")
    args = parser.parse_args(argv)
    if not (args.gather or args.train):
        parser.error("say --gather, --train or both")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import train

    args.out.mkdir(parents=True, exist_ok=True)
    if args.gather:
        train.run_gather(args.out)
    if args.train:
        if args.out != SRC and not (args.out / "corpus.jsonl.gz").exists():
            shutil.copyfile(SRC / "corpus.jsonl.gz", args.out / "corpus.jsonl.gz")
        train.run_train(args.out, args.steps or train.STEPS)


if __name__ == "__main__":
    main()
