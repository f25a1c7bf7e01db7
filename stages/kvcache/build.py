"""The kvcache stage's artifacts: the course's small GPT-2 (the generate stage's model) and its tokenizer.

artifacts-src/ holds copies of stages/generate/artifacts-src/ (a test keeps them byte for byte equal; generate's
build.py says how the model was trained). A fixture build copies them and adds merges.json (common/artifacts.py).
"""

from pathlib import Path

from common.artifacts import copy_artifacts

SRC = Path(__file__).resolve().parent / "artifacts-src"
FILES = ("model.safetensors", "config.json", "vocab.json", "merges.txt", "tokenizer_config.json")


def build(dest):
    copy_artifacts(SRC, dest, FILES)
