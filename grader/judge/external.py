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

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from grader import fixtures, fsutil
from grader.course import layout, stagecode
from grader.course.model import Artifact, Case, Course, Generate, InputSpec, Random, Stage, Value, Weights
from grader.errors import FixtureError, UsageError
from grader.fixtures.store import case_digest, code_digest
from grader.records import replace


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
                          dict(info.get("bounds", {})), str(info.get("key_prefix", "")), dict(info.get("values", {})),
                          cache=layout.state(course.root) / "external", timeout=info.get("timeout"))


class ExternalSource:
    """Case data for a stage, from a learner's file: what `grade.grade_stage` reads from fixtures otherwise."""

    def __init__(self, stage: Stage, path: Path, description: str, last_axis: int | None,
                 bounds: dict[str, int], prefix: str = "", values: dict[str, Any] | None = None,
                 cache: Path | None = None, timeout: float | None = None) -> None:
        self.stage, self.path, self.last_axis, self.prefix = stage, path, last_axis, prefix
        self.values = values or {}  # value inputs the file decides (a model's head count, from its config)
        self.cache = cache  # where expected outputs are kept, per file digest, case and reference code
        self.timeout = float(timeout) if timeout else None  # a big model's calls may need longer than the stage's
        self.notices: list[str] = []
        self._inputs: dict[str, dict[str, Any]] = {}
        self._weights: dict[tuple[Path, str, tuple[str, ...]], dict[str, np.ndarray]] = {}
        self._digest: str | None = None
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
                    key = (file, self.prefix + s.prefix, s.exclude)
                    if key not in self._weights:  # read once, shared by every case (and, forked, by the child)
                        self._weights[key] = fixtures.read_weights(*key)
                    out[spec.name] = self._weights[key]
                elif spec.name in self.values and isinstance(s, Value):
                    out[spec.name] = self.values[spec.name]
                else:
                    out[spec.name] = fixtures.make_input(self.stage, self._spec(spec), self.path.parent)
            self._inputs[case.id] = out
        return dict(self._inputs[case.id])

    def expected(self, case: Case) -> dict[str, np.ndarray]:
        """The reference's output on this file, as float64 arrays: computed once per file digest, then kept."""
        kept = self._cached(case)
        if kept is not None:
            return kept
        out = self._compute(case)
        self._keep(case, out)
        return out

    def _cache_file(self, case: Case) -> Path | None:
        if self.cache is None:
            return None
        if self._digest is None:
            self._digest = file_digest(self.path, self.cache)
        key = json.dumps([self._digest, case_digest(case), code_digest(self.stage),
                          self.values, self.last_axis, self.prefix])
        return self.cache / hashlib.sha256(key.encode()).hexdigest()[:32]

    def _cached(self, case: Case) -> dict[str, np.ndarray] | None:
        """The kept output: one array (a model's logits) memory-mapped from its .npy, read only where compared."""
        path = self._cache_file(case)
        if path is None:
            return None
        try:
            if path.with_suffix(".npy").exists():
                return {"": np.load(path.with_suffix(".npy"), mmap_mode="r", allow_pickle=False)}
            with np.load(path.with_suffix(".npz"), allow_pickle=False) as data:
                return {("" if k == "_" else k): data[k] for k in data.files}
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _keep(self, case: Case, out: dict[str, np.ndarray]) -> None:
        path = self._cache_file(case)
        if path is None:
            return
        buf = io.BytesIO()
        if set(out) == {""}:
            np.lib.format.write_array(buf, np.ascontiguousarray(out[""]), allow_pickle=False)
        else:
            np.savez(buf, allow_pickle=False, **{(k or "_"): v for k, v in out.items()})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fsutil.write_bytes(path.with_suffix(".npy" if set(out) == {""} else ".npz"), buf.getvalue())
        except OSError:
            pass  # a read-only course folder: computed again next time

    def _compute(self, case: Case) -> dict[str, np.ndarray]:
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


def file_digest(path: Path, cache: Path) -> str:
    """The sha256 of a (large) file, kept beside the cache per path, size, mtime and inode: hashed once."""
    st = path.stat()
    stamp = f"{path}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    index = cache / "digests.json"
    try:
        known = json.loads(index.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    if isinstance(known.get(stamp), str):
        return str(known[stamp])
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    known[stamp] = h.hexdigest()
    try:
        index.parent.mkdir(parents=True, exist_ok=True)
        fsutil.write_text(index, json.dumps(known))
    except OSError:
        pass
    return h.hexdigest()

    def input_files(self, case: Case) -> dict[str, Path]:
        return {}  # made from the learner's file: no verified .npy files to hand on
