"""Known mistakes' outputs on a case, computed once and kept: the one decoy cache.

Decoy outputs depend only on a case's inputs, so a long-lived process (a watch session, a batch worker) keeps them,
keyed by the stage, the case, the decoy and the digest of the inputs: a cohort of wrong MLPs costs the decoys'
float64 matmuls once, not once per submission. Graded, hidden cases' decoy outputs are as telling as expected values:
they are kept on disk under the course's .grader/ (a folder graded children cannot see), never in a worker's memory,
and `forget` blanks the memory copy in a child before untrusted code runs.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from grader import fixtures, fsutil
from grader.course import stagecode
from grader.course.model import Case, Stage

Key = tuple[str, str, str, str]  # decoys.py version, case id, decoy function, input digest
Outputs = dict[str, np.ndarray]


class Lazy:
    """A value computed on first use (a case's upcast inputs: needed only if some decoy must really run)."""

    def __init__(self, make: Callable[[], dict[str, Any]]) -> None:
        self.make = make
        self.value: dict[str, Any] | None = None

    def get(self) -> dict[str, Any]:
        if self.value is None:
            self.value = self.make()
        return self.value


class DecoyCache:
    """Decoy outputs in memory (public and, self-paced, hidden cases) and on disk (hidden cases, graded)."""

    def __init__(self) -> None:
        self.memory: dict[Key, Outputs] = {}
        self.public: set[Key] = set()
        self.failed: set[Key] = set()  # decoys that cannot run on a case (or were not recorded for it): not retried
        self.disk: Path | None = None  # set for graded runs: hidden cases' outputs go there, not to memory

    def forget(self) -> None:
        """Drop every kept output (in a graded child, before the submission's code runs)."""
        self.memory.clear()
        self.public.clear()
        self.failed.clear()

    def public_since(self, known: set[Key]) -> dict[Key, Outputs]:
        """Public cases' outputs computed since `known` was taken (what a stage process sends back)."""
        return {k: v for k, v in self.memory.items() if k in self.public and k not in known}

    def absorb(self, public: dict[Key, Outputs]) -> None:
        """Keep public outputs another process computed."""
        self.memory.update(public)
        self.public.update(public)

    def producer(self, stage: Stage, case: Case, name: str, inputs: Lazy,
                 digest: str | None) -> Callable[[], Outputs]:
        """A function giving decoy `name`'s outputs on `case`, from memory, disk, or by running it once."""
        version = stagecode.load(stage, "decoys.py").__name__  # names the file's path, mtime and size: an edit
        key = (version, case.id, name, digest or "")  # of decoys.py is a new key, in memory and on disk
        disk = self.disk if digest and case.hidden else None

        def produce() -> Outputs:
            if digest and key in self.memory:
                return self.memory[key]
            if digest and key in self.failed:
                raise LookupError(f"decoy {name} does not run on case {case.id}")
            out = _load(disk, key) if disk is not None else None
            if out is None:
                try:
                    out = run_decoy(stage, case, name, inputs.get())
                except Exception:
                    if digest:  # the same inputs fail the same way: a handout's unrecorded decoy cost 100 ms a save
                        self.failed.add(key)
                    raise
                if disk is not None:
                    _save(disk, key, out)
            if digest and disk is None:
                self.memory[key] = out
                if not case.hidden:
                    self.public.add(key)
            return out
        return produce


def run_decoy(stage: Stage, case: Case, name: str, inputs: dict[str, Any]) -> Outputs:
    """Decoy `name` of the stage on float64 inputs, as named arrays (each call gets its own copies)."""
    fn = stagecode.function(stage, "decoys.py", name)
    with np.errstate(all="ignore"):  # decoys overflow where the real thing does not; that is their job
        raw = fn(**{k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()})
    return fixtures.outputs_of(stage, case, raw)


CACHE = DecoyCache()  # one per process


def _file(disk: Path, key: Key) -> Path:
    return disk / (hashlib.sha256("\0".join(key).encode()).hexdigest()[:32] + ".npz")


def _load(disk: Path, key: Key) -> Outputs | None:
    try:
        with np.load(_file(disk, key), allow_pickle=False) as data:
            return {("" if k == "_" else k): data[k] for k in data.files}
    except (OSError, ValueError, KeyError):
        return None


def _save(disk: Path, key: Key, out: Outputs) -> None:
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=False, **{(k or "_"): v for k, v in out.items()})
    try:
        disk.mkdir(parents=True, exist_ok=True, mode=0o700)
        fsutil.write_bytes(_file(disk, key), buf.getvalue())
    except OSError:
        pass  # a read-only course folder: recomputed next time, same verdicts
