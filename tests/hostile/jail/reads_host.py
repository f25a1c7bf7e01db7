"""Look around the grading machine: the course folder, its fixtures (expected outputs), the course's .git, an
autograder.zip and a gradebook beside it, /work, /root, /home. Any of them readable is a leak; an expected output
found for this input is returned."""
import os
from pathlib import Path

import numpy as np

TARGETS = ["@@ROOT@@/course.yaml", "@@ROOT@@/autograder.zip", "@@ROOT@@/gradebook.sqlite", "@@GIT@@/HEAD",
           "@@GIT@@/config", "/work", "/root", "/home", "/etc/passwd", "@@ROOT@@/fixtures/double/MANIFEST.json"]


def run_double(x):
    leaked = []
    for target in TARGETS:
        try:
            if os.path.isdir(target):
                leaked.append(f"{target}: {sorted(os.listdir(target))[:5]}")
            else:
                with open(target, "rb") as f:
                    leaked.append(f"{target}: {f.read(40)!r}")
        except OSError as e:
            print("blocked:", target, type(e).__name__)
    for expected in Path("@@ROOT@@/fixtures/double").glob("*/expected.npy"):
        try:
            if np.array_equal(np.load(expected.parent / "x.npy"), x):
                return np.load(expected).astype(x.dtype)
        except OSError:
            pass
    print("LEAKED:", leaked)
    return 2 * x if leaked else x * 0
