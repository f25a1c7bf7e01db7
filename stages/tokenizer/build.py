"""The tokenizer stage's artifacts: the byte-level BPE of the course's small GPT-2 (the generate stage's model).

artifacts-src/ holds copies of stages/generate/artifacts-src/vocab.json and merges.txt (a test keeps them equal;
generate's build.py says how they were trained). A fixture build copies them and adds merges.json, merges.txt as a
JSON list of [a, b] pairs in rank order, which a `json:` case input reads.
"""

import json
import shutil
from pathlib import Path

SRC = Path(__file__).resolve().parent / "artifacts-src"
FILES = ("vocab.json", "merges.txt")


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
