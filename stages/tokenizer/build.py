"""The tokenizer stage's artifacts: the byte-level BPE of the course's small GPT-2 (the generate stage's model).

artifacts-src/ holds copies of stages/generate/artifacts-src/vocab.json and merges.txt (a test keeps them equal;
generate's build.py says how they were trained). A fixture build copies them and adds merges.json, merges.txt as a
JSON list of [a, b] pairs in rank order, which a `json:` case input reads (common/artifacts.py).
"""

from pathlib import Path

from common.artifacts import copy_artifacts

SRC = Path(__file__).resolve().parent / "artifacts-src"
FILES = ("vocab.json", "merges.txt")


def build(dest):
    copy_artifacts(SRC, dest, FILES)
