"""The only module that reads or writes fixture files.

Layout, per stage: fixtures/<id>/MANIFEST.json, fixtures/<id>/<case>/<input>.npy, fixtures/<id>/<case>/expected.npy
(or expected.<key>.npy for dict outputs) and fixtures/<id>/artifacts/* (files a stage's build.py makes, such as a
checkpoint). The manifest holds the sha256 of every file; every grade checks it before anything runs.

Random inputs come from numpy's legacy RandomState, whose stream numpy promises to keep, so a rebuild is
byte-for-byte identical across numpy versions. Writes go to a temporary folder that replaces the old one at the end:
a killed build leaves the previous fixtures in place.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from grader import stagecode
from grader.course import Case, Course, InputSpec, Stage
from grader.errors import FixtureError

MANIFEST = "MANIFEST.json"
FORMAT = 1


def stage_dir(course: Course, stage: Stage) -> Path:
    """Where a stage's fixtures live."""
    return course.root / "fixtures" / stage.id


def rebuild_hint(stage: Stage) -> str:
    """The command that rebuilds a stage's fixtures, for messages."""
    return f"rebuild with `python -m grader fixtures build --stage {stage.id}`"


# --- making inputs -------------------------------------------------------------------------------------------


def make_input(stage: Stage, spec: InputSpec, artifacts: Path) -> Any:
    """The value of one input as the case declares it (arrays in their declared dtype)."""
    s = spec.spec
    if spec.kind == "values":
        return np.asarray(s["values"], dtype=s.get("dtype", "float32"))
    if spec.kind == "value":
        return s["value"]
    if spec.kind == "artifact":
        return str(artifacts / s["artifact"])
    rng = np.random.RandomState(s["seed"])
    if spec.kind == "random":
        shape = tuple(s["shape"])
        if s["random"] == "normal":
            x = rng.normal(s.get("loc", 0.0), s.get("scale", 1.0), size=shape)
        else:
            x = rng.uniform(s["low"], s["high"], size=shape)
        return x.astype(s.get("dtype", "float32"))
    kwargs = {k: v for k, v in s.items() if k not in ("generate", "seed")}
    gen = stagecode.function(stage, "inputs.py", s["generate"])
    return np.asarray(gen(rng, **kwargs))


def _npy_bytes(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _case_digest(case: Case) -> str:
    """What the case's fixture was built from; a change means the fixture is stale."""
    spec = {"function": case.function, "inputs": [[i.name, i.kind, i.spec] for i in case.inputs]}
    return _sha(json.dumps(spec, sort_keys=True).encode())


def _code_digest(stage: Stage) -> str | None:
    """The digest of the stage's reference code, or None where it is not shipped (a learner's handout)."""
    parts = [stage.dir / n for n in ("reference.py", "inputs.py", "build.py")]
    if not parts[0].exists():
        return None
    return _sha(b"".join(p.read_bytes() for p in parts if p.exists()))


def upcast(value: Any) -> Any:
    """Floating arrays promoted to float64, so references and decoys compute at full precision."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(np.float64)
    return value


def output_dtype(stage: Stage, case: Case, inputs: dict[str, Any]) -> str | None:
    """The dtype a learner should return: the function's declared one, else that of its float inputs."""
    fn = stage.function(case.function)
    if fn.dtype:
        return fn.dtype
    floats = [v.dtype for v in inputs.values() if isinstance(v, np.ndarray) and v.dtype.kind == "f"]
    return str(np.result_type(*floats)) if floats else None


def outputs_of(stage: Stage, case: Case, result: Any) -> dict[str, np.ndarray]:
    """A reference's return value as named float64 arrays ('' for a single array)."""
    fn = stage.function(case.function)
    if fn.returns == "dict":
        if not isinstance(result, dict) or set(result) != set(fn.keys):
            got = sorted(result) if isinstance(result, dict) else type(result).__name__
            raise FixtureError(f"{stage.dir / 'reference.py'}: {fn.reference} must return a dict with keys "
                               f"{sorted(fn.keys)}, got {got}")
        return {k: np.asarray(result[k], dtype=np.float64) for k in fn.keys}
    return {"": np.asarray(result, dtype=np.float64)}


# --- building ------------------------------------------------------------------------------------------------


def recover(course: Course, stage: Stage) -> str | None:
    """Undo what a build killed between its two renames left: fixtures/.<id>.old without fixtures/<id>."""
    final = stage_dir(course, stage)
    old = final.with_name(f".{stage.id}.old")
    if final.exists() or not old.is_dir():
        return None
    try:
        os.replace(old, final)
    except OSError as e:
        raise FixtureError(f"{final}: missing after an interrupted build, and {old} could not be put back "
                           f"({e.strerror or e}); {rebuild_hint(stage)}") from e
    return f"fixtures/{stage.id} was restored from the previous fixtures: a build was interrupted"


def build(course: Course, stage: Stage, notes: list[str] | None = None) -> Path:
    """Run the reference on every case and write inputs, expected outputs and the manifest.

    Everything is written into a temporary folder that replaces fixtures/<id> only once complete, so a build
    killed or out of space leaves the previous fixtures as they were; the next build says what it cleaned up.
    """
    import shutil
    import tempfile

    notes = notes if notes is not None else []
    final = stage_dir(course, stage)
    old = final.with_name(f".{stage.id}.old")
    tmp: Path | None = None
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        restored = recover(course, stage)
        notes.extend([restored] if restored else [])
        for litter in final.parent.glob(f".{stage.id}.building-*"):
            shutil.rmtree(litter, ignore_errors=True)
            notes.append(f"removed {litter.name}, left by an interrupted build")
        tmp = Path(tempfile.mkdtemp(prefix=f".{stage.id}.building-", dir=final.parent))
        tmp.chmod(0o755)  # mkdtemp makes it private; fixtures are meant to be read
        _written.clear()
        manifest: dict[str, Any] = {"format": FORMAT, "stage": stage.id, "code": _code_digest(stage),
                                    "artifacts": {}, "cases": {}}
        if stage.artifacts:
            (tmp / "artifacts").mkdir()
            stagecode.function(stage, "build.py", stage.artifacts)(tmp / "artifacts")
            for p in sorted((tmp / "artifacts").rglob("*")):
                if p.is_file():
                    manifest["artifacts"][p.relative_to(tmp / "artifacts").as_posix()] = _sha(p.read_bytes())
        for case in stage.cases:
            manifest["cases"][case.id] = _build_case(stage, case, tmp)
        _write(tmp / MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
        _fsync_dir(tmp)
        if old.exists():
            shutil.rmtree(old)
        if final.exists():
            os.replace(final, old)  # a kill between these two renames is undone by recover()
        os.replace(tmp, final)
        _fsync_dir(final.parent)
        shutil.rmtree(old, ignore_errors=True)
    except OSError as e:
        where = e.filename or final
        raise FixtureError(f"{where}: cannot write fixtures ({e.strerror or e}); the previous fixtures of "
                           f"'{stage.id}' are unchanged. Free some space or fix the permissions, then "
                           f"`python -m grader fixtures build --stage {stage.id}` again") from e
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return final


def _build_case(stage: Stage, case: Case, tmp: Path) -> dict[str, Any]:
    (tmp / case.id).mkdir()
    inputs = {}
    for spec in case.inputs:
        try:
            inputs[spec.name] = make_input(stage, spec, tmp / "artifacts")
        except (ValueError, TypeError, OverflowError) as e:  # e.g. a generator's keyword the YAML misspelt
            raise FixtureError(f"{stage.file}:{case.line}: case '{case.id}', input '{spec.name}': cannot make it: "
                               f"{type(e).__name__}: {e}") from e
    entry: dict[str, Any] = {"hidden": case.hidden, "digest": _case_digest(case), "inputs": {}, "expected": {},
                             "dtype": output_dtype(stage, case, inputs)}
    for spec in case.inputs:
        value = inputs[spec.name]
        if isinstance(value, np.ndarray):
            entry["inputs"][spec.name] = _write_array(tmp, f"{case.id}/{spec.name}.npy", value)
        elif spec.kind == "artifact":
            entry["inputs"][spec.name] = {"artifact": spec.spec["artifact"]}
        else:
            entry["inputs"][spec.name] = {"value": value}
    ref = stagecode.reference(stage, case.function)
    try:
        result = ref(**{k: upcast(v) for k, v in inputs.items()})
    except Exception as e:
        raise FixtureError(f"{stage.dir / 'reference.py'}: the reference failed on case '{case.id}': "
                           f"{type(e).__name__}: {e}") from e
    for key, array in outputs_of(stage, case, result).items():
        name = f"{case.id}/expected.npy" if key == "" else f"{case.id}/expected.{key}.npy"
        entry["expected"][key] = _write_array(tmp, name, array)
    return entry


_written: dict[str, str] = {}  # sha256 -> file, within one build: an array shared by cases is stored once


def _write_array(root: Path, name: str, array: np.ndarray) -> dict[str, Any]:
    data = _npy_bytes(array)
    digest = _sha(data)
    if digest not in _written:
        _write(root / name, data)
        _written[digest] = name
    return {"file": _written[digest], "sha256": digest, "shape": list(array.shape), "dtype": str(array.dtype)}


def _write(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --- reading and verifying -----------------------------------------------------------------------------------


def _manifest_ok(m: Any, stage_id: str) -> bool:
    """The shape of MANIFEST.json, checked field by field (no assert: `python -O` would skip it)."""
    def meta_ok(meta: Any) -> bool:
        return isinstance(meta, dict) and ("value" in meta or isinstance(meta.get("artifact"), str) or (
            isinstance(meta.get("file"), str) and isinstance(meta.get("sha256"), str)))

    if not (isinstance(m, dict) and m.get("format") == FORMAT and m.get("stage") == stage_id):
        return False
    cases, artifacts = m.get("cases"), m.get("artifacts", {})
    if not (isinstance(cases, dict) and isinstance(artifacts, dict)):
        return False
    if not all(isinstance(d, str) for d in artifacts.values()):
        return False
    for entry in cases.values():
        if not (isinstance(entry, dict) and isinstance(entry.get("inputs"), dict)
                and isinstance(entry.get("expected"), dict)):
            return False
        if not all(meta_ok(x) for x in [*entry["inputs"].values(), *entry["expected"].values()]):
            return False
    return True


class StageFixtures:
    """A stage's verified fixture set. Construction checks the manifest and every digest."""

    def __init__(self, course: Course, stage: Stage, cases: tuple[Case, ...] | None = None) -> None:
        self.stage, self.dir = stage, stage_dir(course, stage)
        restored = recover(course, stage)
        self.notices = [restored] if restored else []
        self._hashed: dict[str, tuple[int, int, int, int, str]] = {}
        self._inputs: dict[str, dict[str, Any]] = {}
        self.manifest = self._manifest()
        for case in cases if cases is not None else stage.cases:
            self._check_case(case)
            for meta in self.manifest["cases"][case.id]["expected"].values():  # checked now, read later
                self._check_digest(meta["file"], meta["sha256"], f"expected output of case '{case.id}'")
        for name, digest in self.manifest.get("artifacts", {}).items():
            self._verify_file(f"artifacts/{name}", digest, what=f"artifact {name}")

    def _fail(self, what: str) -> FixtureError:
        return FixtureError(f"{self.dir / MANIFEST}: {what}; {rebuild_hint(self.stage)}")

    def _manifest(self) -> dict[str, Any]:
        path = self.dir / MANIFEST
        if not path.exists():
            raise FixtureError(f"{path}: fixtures for stage '{self.stage.id}' are missing; "
                               f"build them with `python -m grader fixtures build --stage {self.stage.id}`")
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
            if not _manifest_ok(manifest, self.stage.id):
                raise ValueError("not a manifest")
        except (ValueError, UnicodeDecodeError, OSError, RecursionError):
            raise self._fail("the manifest is damaged or from another grader")
        code = _code_digest(self.stage)
        if code is not None and manifest.get("code") != code:
            raise self._fail(f"fixtures were built from another version of {self.stage.dir}'s reference code")
        return manifest

    def _check_case(self, case: Case) -> None:
        entry = self.manifest["cases"].get(case.id)
        if entry is None:
            raise self._fail(f"no fixture for case '{case.id}'")
        if entry.get("digest") != _case_digest(case):
            raise self._fail(f"the fixture for case '{case.id}' was built from a different definition in "
                             f"{self.stage.file}")

    def _check_digest(self, name: str, digest: str, what: str) -> None:
        """Verify a file without keeping its bytes: read through one buffer, zeroed afterwards.

        Expected outputs are checked before the learner's code runs, in the process that forks it: no copy of
        them may be left in its memory for the child to find.
        """
        path = self.dir / name
        buf = bytearray(1 << 16)
        h = hashlib.sha256()
        try:
            with open(path, "rb", buffering=0) as f:
                st = os.fstat(f.fileno())
                size = 0
                while n := f.readinto(buf):
                    h.update(memoryview(buf)[:n])
                    size += n
        except OSError:
            raise FixtureError(f"{path}: {what} is missing; {rebuild_hint(self.stage)}")
        finally:
            buf[:] = bytes(len(buf))
        if size != st.st_size or h.hexdigest() != digest:
            raise FixtureError(f"{path}: {what} does not match its digest in {MANIFEST} (edited or truncated); "
                               f"{rebuild_hint(self.stage)}")
        self._hashed[name] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, digest)

    def _verify_file(self, name: str, digest: str, what: str) -> bytes:
        path = self.dir / name
        try:
            with open(path, "rb") as f:
                st = os.fstat(f.fileno())
                data = f.read()
        except OSError:
            raise FixtureError(f"{path}: {what} is missing; {rebuild_hint(self.stage)}")
        # Hashed once per file and version: a long-lived grader (watch, a batch worker) re-reads expected outputs
        # for every grade, and the same file, untouched since it was hashed, need not be hashed again.
        seen = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, digest)
        if self._hashed.get(name) != seen:
            if len(data) != st.st_size or _sha(data) != digest:
                raise FixtureError(f"{path}: {what} does not match its digest in {MANIFEST} (edited or "
                                   f"truncated); {rebuild_hint(self.stage)}")
            self._hashed[name] = seen
        return data

    def _array(self, meta: dict[str, Any], what: str) -> np.ndarray:
        data = self._verify_file(meta["file"], meta["sha256"], what)
        return np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)

    def inputs(self, case: Case) -> dict[str, Any]:
        """The case's inputs, checked against their digests; read once, then kept.

        A watch session and a batch worker grade the same case again and again.
        """
        if case.id not in self._inputs:
            self._inputs[case.id] = self._read_inputs(case)
        return dict(self._inputs[case.id])

    def _read_inputs(self, case: Case) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, meta in self.manifest["cases"][case.id]["inputs"].items():
            if "file" in meta:
                out[name] = self._array(meta, f"input '{name}' of case '{case.id}'")
            elif "artifact" in meta:
                out[name] = str(self.dir / "artifacts" / meta["artifact"])
            else:
                out[name] = meta["value"]
        return out

    def expected(self, case: Case) -> dict[str, np.ndarray]:
        """The case's expected outputs, checked against their digests."""
        metas = self.manifest["cases"][case.id]["expected"]
        return {k: self._array(m, f"expected output of case '{case.id}'") for k, m in metas.items()}

    def input_digest(self, case: Case) -> str:
        """One digest for all of a case's inputs, from the manifest (what decoy outputs can be cached under)."""
        entry = self.manifest["cases"][case.id]
        return _sha(json.dumps([self.manifest.get("code"), entry["inputs"]], sort_keys=True).encode())

    def dtype(self, case: Case) -> str | None:
        return self.manifest["cases"][case.id].get("dtype")

    def verify_all(self) -> None:
        """Check every file the manifest names (what `fixtures verify` runs)."""
        for case_id, entry in self.manifest["cases"].items():
            for name, meta in {**entry["inputs"], **{f"expected {k}": m for k, m in entry["expected"].items()}}.items():
                if "file" in meta:
                    self._verify_file(meta["file"], meta["sha256"], f"{name} of case '{case_id}'")
