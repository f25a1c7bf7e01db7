"""One submission's jail: started on first use, reused by every stage's `run`, ended by `close`.

The grader's private staging folder holds what the jail may read: a copy of the submission's student/ (regular files
only, 32 MiB) and, per job, the calls' inputs (verified fixture files copied by the kernel, arrays written as .npy,
input files linked or copied) with a job.json naming them. Expected outputs are never written there. Each `run`
(one stage's calls) is one job: the jail's resident process forks a worker for it (grader/run/jail/inside.py). A
timeout, a crash, a memory kill or a broken frame ends the whole jail; the remaining calls get a new one.

`unsandboxed=True` (the CLI's --unsandboxed) runs the calls in grader/run/sandbox.py's forked graded child instead,
and every outcome's isolation note says NOT jailed.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from grader.errors import GraderError, UsageError
from grader.results import UNJAILED
from grader.run import capture, confine, reap, sandbox
from grader.run.jail import cgroups
from grader.run.jail.job import Job
from grader.run.jail.mounts import JOBS_IN_JAIL, ROOT_IN_JAIL, UID_INSIDE, Bind, Settings, runtime
from grader.run.jail.preflight import require
from grader.run.jail.spawn import Box, as_seen, fresh_uid, spawn
from grader.run.protocol import Call, Limits, NpyFile, Outcome


class Jail:
    """One submission's jail, started on first use and reused by each `run` (one per stage); `close` ends it."""

    def __init__(self, root: Path, settings: Settings | None = None, *, unsandboxed: bool = False) -> None:
        require(unsandboxed)  # JailUnavailable names what to install, unless the caller chose --unsandboxed
        self.root, self.settings, self.unsandboxed = Path(root), settings or Settings(), unsandboxed
        self.stats: list[dict[str, Any]] = []  # one entry per jail ended
        self._box: Box | None = None
        self._staging: Path | None = None
        self._layout = None if unsandboxed else cgroups.detect()
        if not unsandboxed:  # a jail's init outlives bubblewrap's own process by a moment: it is handed to us, reaped
            reap.become_subreaper()
        self._files = 0
        self._limits_said: list[str] = []
        self._uid: int | None = None

    def __enter__(self) -> Jail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the running jail (if any) and delete the staging folder."""
        self._end_box()
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None

    def isolation(self) -> str:
        """What kept the submission apart from the grading machine, in one line (for StageResult.notes)."""
        if self.unsandboxed:
            return UNJAILED
        found = runtime(self.settings.packages).packages
        user = (f"uid {self._uid} outside (a fresh one per jail)" if self._uid is not None
                else f"this grader's uid {os.getuid()} outside")
        return (f"jail: bubblewrap; new user, mount, pid, network, ipc, uts and cgroup namespaces; no network; sees "
                f"only /usr, Python, {', '.join(found)}, the grader's code, a read-only copy of student/ and this "
                f"run's inputs; /tmp a {self.settings.tmp_mb} MiB tmpfs; {user}, uid {UID_INSIDE} inside, no "
                f"capabilities; cgroup v{self._layout.version if self._layout else '?'}: "
                f"{', '.join(self._limits_said) or 'not started yet'}")

    def run(self, calls: list[Call], limits: Limits, *, cancel: Callable[[], bool] | None = None,
            cpu_seconds: float | None = None, substitutes: dict[str, Any] | None = None,
            **unsandboxed: Any) -> Generator[Outcome, None, None]:
        """Yield one Outcome per call, in order, as sandbox.run does; a call that kills its jail costs only itself.

        `limits.timeout` is per call (wall clock, enforced from here), `limits.memory_mb` caps the jail's processes
        together (cgroup) and each one alone (RLIMIT_AS); `cpu_seconds` caps one call's CPU time (cgroup); each
        call's result may carry at most its `max_bytes`. `cancel` is polled; when it returns True the jail is killed
        and the run ends. `unsandboxed` holds sandbox.run's `hide` and `forget`, for the --unsandboxed setting.
        """
        if substitutes:
            raise UsageError("--isolate puts the course's reference code in place of earlier stages, and graded "
                             "mode never runs reference code beside a submission (the jail refuses it): grade "
                             "without --isolate")
        if self.unsandboxed:
            for outcome in sandbox.run(self.root, calls, limits, cancel=cancel, graded=True, **unsandboxed):
                outcome.isolation = f"{UNJAILED}: {outcome.isolation or 'a forked child'}"
                yield outcome
            return
        todo = list(calls)
        while todo and not (cancel is not None and cancel()):
            job = self._send_job(self._ensure_box(limits.memory_mb), list(todo), limits, cpu_seconds)
            try:
                for outcome in job.watch(cancel):
                    todo.pop(0)
                    outcome.isolation = self.isolation()
                    yield outcome
            finally:
                job.close()
                if job.end not in ("done", "retired"):
                    self._end_box()

    def _ensure_box(self, memory_mb: int) -> Box:
        if self._box is not None and self._box.memory_mb != memory_mb:
            try:
                self._box.cgroup.set_memory(memory_mb)
                self._box.memory_mb = memory_mb
            except OSError:  # v1 refuses a limit below what the group holds: start afresh
                self._end_box()
        if self._box is None:
            self._box = self._start(memory_mb)
        return self._box

    def _end_box(self) -> None:
        box, self._box = self._box, None
        if box is not None:
            self.stats.append(box.kill())

    def _stage(self) -> Path:
        """The private folder the jail's read-only files come from: student/ (copied once) and jobs/."""
        if self._staging is None:
            staging = Path(tempfile.mkdtemp(prefix="grader-jail-"))
            try:
                _mkdir(staging / "jobs")
                _mkdir(staging / "student")
                for rel, data in confine.read_tree(self.root / "student").items():  # regular files, no links
                    target = staging / rel
                    for parent in reversed(target.relative_to(staging).parents[:-1]):
                        _mkdir(staging / parent)
                    _write_file(target, data)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            self._staging = staging
        return self._staging

    def _start(self, memory_mb: int) -> Box:
        """Start one jail: its cgroup, then bubblewrap (exec'd, joined to the cgroup, as a fresh uid when root)."""
        assert self._layout is not None
        staging = self._stage()
        rt = runtime(self.settings.packages)
        root = os.geteuid() == 0  # bubblewrap runs as a fresh uid, and reaches its sources through the view
        binds, view = as_seen((*rt.binds, Bind(str(staging / "student"), f"{ROOT_IN_JAIL}/student"),
                               Bind(str(staging / "jobs"), JOBS_IN_JAIL)), root)
        uid = fresh_uid() if root else None
        cgroups.sweep(self._layout)
        cg = cgroups.Cgroup(self._layout, memory_mb, self.settings.pids, self.settings.cpus)
        self._limits_said, self._uid = cg.limits, uid
        try:
            return spawn(cg, uid, rt, binds, view, self.settings, memory_mb)
        except BaseException:
            cg.kill()
            cg.remove()
            raise

    def _send_job(self, box: Box, calls: list[Call], limits: Limits, cpu_seconds: float | None) -> Job:
        """Write the calls' inputs into the staging folder, then hand the jail the job and its capture files."""
        staging = self._stage()
        box.jobs += 1
        name = f"{len(self.stats)}-{box.jobs}"
        folder = staging / "jobs" / name
        _mkdir(folder)
        written: dict[Any, str] = {}  # id(array) or fixture path -> file: written once, loaded afresh by each call
        specs = [{"case": c.case, "module": c.module, "function": c.function, "returns": c.returns,
                  "inputs": {k: self._input(folder, v, written) for k, v in c.inputs.items()}} for c in calls]
        _write_file(folder / "job.json", json.dumps({"calls": specs, "memory_mb": limits.memory_mb}).encode())
        fds = capture.make()
        try:
            socket.send_fds(box.command, [json.dumps({"run": name}).encode()], list(fds))
        except OSError:
            pass  # the jail is gone: the job sees its result pipe close and says how
        return Job(box, calls, limits, folder, fds, str(staging / "student"), cpu_seconds,
                   self.settings.startup_timeout)

    def _input(self, folder: Path, value: Any, written: dict[Any, str]) -> dict[str, Any]:
        """How the jail gets one input: an .npy file (copied or written), an input file, a dict of those, a value."""
        if isinstance(value, NpyFile | np.ndarray | np.generic):
            key = value.path if isinstance(value, NpyFile) else id(value)
            if key not in written:
                written[key] = f"{len(written)}.npy"
                _write_array(folder / written[key], value)
            return {"npy": written[key], "scalar": isinstance(value, np.generic)}
        if isinstance(value, str) and os.path.isfile(value):  # an artifact (a checkpoint) from the fixtures
            if value not in written:
                self._files += 1
                written[value] = f"file-{self._files}-{os.path.basename(value)}"
                _link_or_copy(value, folder / written[value])
            return {"file": written[value]}
        if isinstance(value, dict) and all(isinstance(v, np.ndarray) for v in value.values()):
            return {"dict": {str(k): self._input(folder, v, written) for k, v in value.items()}}
        try:
            json.dumps(value, allow_nan=True)
        except (TypeError, ValueError) as e:
            raise GraderError(f"an input of type {type(value).__name__} cannot be passed into the jail") from e
        return {"value": value}


def _write_array(path: Path, value: NpyFile | np.ndarray | np.generic) -> None:
    if isinstance(value, NpyFile):
        shutil.copyfile(value.path, path)  # sendfile: no copy through Python
        os.chmod(path, 0o644)
        return
    with open(path, "xb") as f:
        os.fchmod(f.fileno(), 0o644)
        np.lib.format.write_array(f, np.asarray(value), allow_pickle=False)  # a 0-d array for a scalar


def _link_or_copy(source: str, target: Path) -> None:
    """The same inode where it is readable by others (shown read-only); a copy otherwise, or across file systems."""
    try:
        os.link(source, target)
        if not os.stat(target).st_mode & 0o004:
            raise OSError("not readable by others")
    except OSError:
        target.unlink(missing_ok=True)
        shutil.copyfile(source, target)
        os.chmod(target, 0o644)


def _mkdir(path: Path) -> None:
    """A folder the jail's uid can enter, whatever the umask (an existing one is left as it is)."""
    try:
        path.mkdir()
    except FileExistsError:
        return
    os.chmod(path, 0o755)


def _write_file(path: Path, data: bytes) -> None:
    """A file readable by the jail's uid, whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.fchmod(fd, 0o644)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def one_shot(root: Path, calls: list[Call], limits: Limits, *, settings: Settings | None = None,
             unsandboxed: bool = False, **options: Any) -> Iterator[Outcome]:
    """One Jail for these calls only (`Jail.run` has the options)."""
    with Jail(root, settings, unsandboxed=unsandboxed) as jail:
        yield from jail.run(calls, limits, **options)

