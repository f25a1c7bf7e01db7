"""Round 31: a submission whose import lines name ~1.4 million distinct learner modules that do not exist.

loops.reachable (grader/judge/loops.py) reads at most 8 MiB a search, but `budget` falls only by what a file read
gives; each imported name that is no file costs an open() and nothing of the budget. 9 helper files of 1 MiB of
`from student import xAAAA,xAAAB,...` lines, and every stage file importing them: each search opens ~1.4M paths.
Usage: python import_scan_names.py DEST_SUBMISSION_FOLDER [--cjk]
--cjk: 1- and 2-character CJK names (re's \w; the caps count characters): ~2.8M names a search, ~540 MiB.
"""
import itertools
import string
import sys
from pathlib import Path

dest = Path(sys.argv[1]) / "student"
dest.mkdir(parents=True, exist_ok=True)
alpha = string.ascii_letters + string.digits + "_"
names = ("x" + "".join(p) for p in itertools.product(alpha, repeat=4))
if "--cjk" in sys.argv:
    cjk = [chr(c) for c in range(0x4E00, 0x9FA6)]
    names = itertools.chain(cjk, ("".join(p) for p in itertools.product(cjk, repeat=2)))
for i in range(9):
    parts, size = [], 0
    while size < (1 << 20) - 200:
        line = "from student import " + ",".join(next(names) for _ in range(1000)) + "\n"
        parts.append(line)
        size += len(line)
    (dest / f"h{i}.py").write_text("".join(parts)[: (1 << 20) - 100])
stages = ["gelu", "conv1d", "mlp", "checkpoint", "layernorm", "softmax", "attention", "block", "gpt2", "generate",
          "kvcache", "tokenizer"]
head = "".join(f"from student import h{i}  # noqa\n" for i in range(9))
for s in stages:
    (dest / f"{s}.py").write_text("if False:\n" + "".join("    " + l for l in head.splitlines(True)) + head)
