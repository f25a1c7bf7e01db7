"""Artifacts copied from a stage's committed artifacts-src/: the course's small GPT-2 and its tokenizer.

The generate, kvcache and tokenizer stages' build.py copy their files with `copy_artifacts`, which also writes
merges.json (merges.txt as a JSON list of [a, b] pairs in rank order, what a `json:` case input reads). Public
(course.yaml `common: public:`): a learner's handout holds it, as it holds those build.py files.
"""

import json
import shutil
from pathlib import Path


def read_merges(path):
    """merges.txt -> [(a, b), ...] in rank order (the first line is the '#version' header)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [tuple(line.split(" ")) for line in lines if line and not line.startswith("#version")]


def copy_artifacts(src, dest, files):
    """The named files of src copied into dest, with merges.json beside them; every file readable."""
    for name in files:
        shutil.copyfile(src / name, dest / name)
    merges = [list(pair) for pair in read_merges(src / "merges.txt")]
    (dest / "merges.json").write_text(json.dumps(merges, ensure_ascii=False) + "\n", encoding="utf-8")
    for path in dest.iterdir():
        path.chmod(0o644)
