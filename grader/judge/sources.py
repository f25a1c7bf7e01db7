"""Where a grade's case data comes from: the verified fixtures, or a stand-in such as a learner's own checkpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

import numpy as np

from grader.course.model import Case


class CaseSource(Protocol):
    """Inputs, expected outputs and output dtypes of a stage's cases.

    `fixtures.StageFixtures` is the usual one; `judge.external.ExternalSource` computes them from a file the
    learner points the grader at. `against` says what the expected values came from when it is not the fixtures.
    """

    notices: list[str]
    against: str | None
    timeout: float | None  # seconds a call may take, when the source needs other than the stage's (a big model)

    def inputs(self, case: Case) -> dict[str, Any]:
        """The case's inputs, by parameter name."""

    def input_files(self, case: Case) -> dict[str, Path]:
        """The case's array inputs that are verified .npy files (the jail copies those instead of re-writing them)."""

    def expected(self, case: Case) -> dict[str, np.ndarray]:
        """The case's expected outputs, by key ('' for a single array)."""

    def dtype(self, case: Case) -> str | None:
        """The dtype the learner should return, if one is implied."""

    def input_digest(self, case: Case) -> str | None:
        """A digest of the case's inputs (decoy outputs are cached under it), or None: not cached."""

    def output_size(self, case: Case) -> int | None:
        """How many elements the case's expected outputs hold, if known (it bounds what a call may send)."""
