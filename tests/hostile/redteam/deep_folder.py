"""A folder submission nested 1100 folders deep beside its student/ (as an instructor gets by unpacking a learner's
archive with unzip or tar, which accept such paths): python deep_folder.py OUT_DIR writes it. Tries to crash the batch
before any learner is graded: batch.run hashes every submission first (submissions.digest, os.walk, recursive in
Python 3.11) outside the per-submission error boundary. BROKEN: RecursionError, 'the grader itself failed', nobody is
graded (test_redteam.py::test_a_deeply_nested_folder_submission_is_refused_and_the_batch_goes_on)."""
import os
import sys
from pathlib import Path


def make(base: Path, depth: int = 1100) -> None:
    (base / "student").mkdir(parents=True)
    (base / "student" / "conv1d.py").write_text("def run_conv1d(x, weight, bias):\n    return x @ weight + bias\n")
    here = base
    for _ in range(depth):
        here = here / "d"
        os.mkdir(here)


if __name__ == "__main__":
    make(Path(sys.argv[1]))
