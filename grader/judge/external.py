"""`--checkpoint PATH`: grade a stage on a file of the learner's own instead of the fixture's artifact.

The stage says what that means (stage.yaml `external:`): which artifact the file stands in for, and a function of
its own (`external.py`) that checks the file and says how wide generated inputs must be, how far integer inputs
may go, and the prefix its tensor names carry (a `weights:` input then reads them without it). Nothing here knows
what is in the file. Expected values are computed on this machine by the stage's reference, on the file, with
floating inputs promoted to float64 (as a fixture build does); they are not cached.

The case inputs are the fixture's, made again from their definitions in stage.yaml: the same generators, seeds and
shapes, except that the last axis of every generated or random array becomes the file's width (so `x` is
[1, 8, 768] for gpt2 where the fixture model's is [1, 8, 64]). A file as wide as the fixture gets exactly the
fixture's inputs.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from grader import fixtures
from grader.course import stagecode
from grader.course.model import Artifact, Case, Course, Generate, InputSpec, Random, Stage, Value, Weights
from grader.errors import FixtureError, UsageError


def source_for(course: Course, stage: Stage, path: Path | str) -> ExternalSource:
    """A source of case data (inputs, expected outputs, dtypes) for `stage`, computed from the file at `path`."""
    if stage.external is None:
        ids = [s.id for s in course.stages if s.external is not None]
        which = f"`python -m grader --stage {ids[0]} --checkpoint {path}`" if ids else "a stage that reads one"
        raise UsageError(f"--checkpoint {path}: stage '{stage.id}' does not read a checkpoint, so there is nothing "
                         f"to grade against it; use {which}")
    if not (stage.dir / "reference.py").exists():
        raise UsageError(f"--checkpoint {path}: grading against your own checkpoint computes the expected values "
                         "with the stage's reference solution, which this copy of the course does not ship (a "
                         "learners' handout); grade the stage without --checkpoint")
    opener = stagecode.function(stage, "external.py", stage.external.open)
    try:
        info = opener(str(path))
    except ValueError as e:
        raise UsageError(f"--checkpoint {path}: {e}") from e
    return ExternalSource(stage, Path(info["path"]), str(info["description"]), info.get("last_axis"),
                          dict(info.get("bounds", {})), str(info.get("key_prefix", "")))


class ExternalSource:
    """Case data for a stage, from a learner's file: what `grade.grade_stage` reads from fixtures otherwise."""

    def __init__(self, stage: Stage, path: Path, description: str, last_axis: int | None,
                 bounds: dict[str, int], prefix: str = "") -> None:
        self.stage, self.path, self.last_axis, self.prefix = stage, path, last_axis, prefix
        self.notices: list[str] = []
        self._inputs: dict[str, dict[str, Any]] = {}
        for case in stage.cases:
            for spec in case.inputs:
                limit = bounds.get(spec.name)
                value = spec.source.value if isinstance(spec.source, Value) else None
                if limit is not None and isinstance(value, int) and not 0 <= value < limit:
                    raise UsageError(f"--checkpoint {path}: allows {spec.name} 0 to {limit - 1}, but case "
                                     f"'{case.id}' of {stage.file} uses {spec.name} {value}; use a file that "
                                     f"allows at least {spec.name} {value}")
        widened = any(self._spec(s) is not s for c in stage.cases for s in c.inputs)
        self.against: str | None = description + (f"; inputs made at width {last_axis}" if widened else "")

    def _spec(self, spec: InputSpec) -> InputSpec:
        """The input's definition with its last axis set to the file's width (generated and random arrays)."""
        s, width = spec.source, self.last_axis
        if isinstance(s, Random) and s.shape and width not in (None, s.shape[-1]):
            return replace(spec, source=replace(s, shape=(*s.shape[:-1], width)))
        if isinstance(s, Generate) and s.shape and width not in (None, s.shape[-1]):
            return replace(spec, source=replace(s, options={**s.options, "shape": [*s.shape[:-1], width]}))
        return spec

    def inputs(self, case: Case) -> dict[str, Any]:
        """The case's inputs, with the given file in place of the fixture's artifacts."""
        assert self.stage.external is not None
        mine = self.stage.external.artifacts
        if case.id not in self._inputs:
            out: dict[str, Any] = {}
            for spec in case.inputs:
                s = spec.source
                if isinstance(s, Artifact):
                    out[spec.name] = str(self.path if s.artifact in mine else self.path.parent / s.artifact)
                elif isinstance(s, Weights):
                    file = self.path if s.weights in mine else self.path.parent / s.weights
                    out[spec.name] = fixtures.read_weights(file, self.prefix + s.prefix, s.exclude)
                else:
                    out[spec.name] = fixtures.make_input(self.stage, self._spec(spec), self.path.parent)
            self._inputs[case.id] = out
        return dict(self._inputs[case.id])

    def expected(self, case: Case) -> dict[str, np.ndarray]:
        """The reference's output on this file, as float64 arrays (computed now, not cached)."""
        reference = stagecode.reference(self.stage, case.function)
        try:
            result = reference(**{k: fixtures.upcast(v) for k, v in self.inputs(case).items()})
        except Exception as e:
            raise FixtureError(f"{self.stage.dir / 'reference.py'}: the reference failed on case '{case.id}' with "
                               f"{self.path}: {type(e).__name__}: {e}") from e
        fn = self.stage.function(case.function)
        if fn.returns == "dict" and isinstance(result, dict) and set(result) == set(fn.keys):
            # one tensor at a time: its float32 copy is let go as soon as its float64 one exists
            return {key: np.asarray(result.pop(key), dtype=np.float64) for key in fn.keys}
        return fixtures.outputs_of(self.stage, case, result)

    def dtype(self, case: Case) -> str | None:
        return fixtures.output_dtype(self.stage, case, self.inputs(case))

    def input_files(self, case: Case) -> dict[str, Path]:
        return {}  # made in memory from the learner's file

    def input_digest(self, case: Case) -> str | None:
        return None  # computed from a learner's file: decoy outputs are not kept

    def output_size(self, case: Case) -> int | None:
        return None  # not known before the reference has run on the file
