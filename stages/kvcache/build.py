"""The kvcache stage's artifacts: the course's small GPT-2 (the generate stage's model) and its tokenizer.

artifacts-src/ holds copies of stages/generate/artifacts-src/ (a test keeps them byte for byte equal; generate's
build.py says how the model was trained). A fixture build copies them and adds merges.json.
"""

import json
import shutil
from pathlib import Path

SRC = Path(__file__).resolve().parent / "artifacts-src"
FILES = ("model.safetensors", "config.json", "vocab.json", "merges.txt", "tokenizer_config.json")


def read_merges(path):
    """merges.txt -> [(a, b), ...] in rank order (the first line is the '#version' header)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [tuple(line.split(" ")) for line in lines if line and not line.startswith("#version")]


def build(dest):
    for name in FILES:
        shutil.copyfile(SRC / name, dest / name)
    merges = [list(pair) for pair in read_merges(SRC / "merges.txt")]
    (dest / "merges.json").write_text(json.dumps(merges, ensure_ascii=False) + "\n", encoding="utf-8")
    for path in dest.iterdir():
        path.chmod(0o644)
