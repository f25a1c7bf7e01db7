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

import array
import contextlib
import json
import os
import socket
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

from grader.errors import UsageError
from grader.results import UNJAILED, Status
from grader.run import capture, reap, sandbox
from grader.run.confine import GRADED_TREE_CAP
from grader.run.jail import cgroups, staging
from grader.run.jail.job import Job
from grader.run.jail.mounts import UID_INSIDE, Settings, runtime
from grader.run.jail.preflight import require
from grader.run.jail.spare import adopt, prestart
from grader.run.jail.spawn import Box, JailError, start
from grader.run.protocol import Call, Limits, Outcome

REFERENCES_ROOM = 8 << 20  # bytes of references and common/ cuts a student/ may hold above intake's cap


class Jail:
    """One submission's jail, started on first use and reused by each `run` (one per stage); `close` ends it."""

    def __init__(self, root: Path, settings: Settings | None = None, *, unsandboxed: bool = False,
                 warm: bool = False) -> None:
        """`warm`: adopt this process's spare jail if one is ready, and start the next one (a batch's workers)."""
        require(unsandboxed)  # JailUnavailable names what to install, unless the caller chose --unsandboxed
        self.root, self.settings, self.unsandboxed, self.warm = Path(root), settings or Settings(), unsandboxed, warm
        self.stats: list[dict[str, Any]] = []  # one entry per jail ended
        self._box: Box | None = None
        self._staging: Path | None = None
        self._layout = None if unsandboxed else cgroups.detect()
        if not unsandboxed:  # a jail's init outlives bubblewrap's own process by a moment: it is handed to us, reaped
            reap.become_subreaper()
        self._limits_said: list[str] = []
        self._uid: int | None = None
        self._cap = GRADED_TREE_CAP  # bytes of student/ the staging folder takes (more while references stand in)
        self.stuck: dict[tuple[str, str], str] = {}  # `once`: (module, function) -> the case it timed out on

    def __enter__(self) -> Jail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the running jail (if any) and delete the staging folder; JailStuck if its processes do not end."""
        try:
            self._end_box()
        finally:
            if self._staging is not None:
                staging.remove(self._staging)
                self._staging = None

    def settle(self) -> None:
        """Between a submission's public and hidden passes: keep the jail only if its resident alone is left in it.

        Otherwise it ends here (Box.kill waits until it is empty), and the next call starts one.
        The resident kills every process a job leaves before it says the job ended, so after a public pass that ended
        cleanly nothing of it runs: the hidden pass needs no new interpreter. Nothing of the hidden pass can reach a
        public case, since none runs after it in this jail.
        """
        if self._box is not None and not self._box.idle():
            self._end_box()

    @contextlib.contextmanager
    def files_of(self, root: Path) -> Iterator[None]:
        """Grade from another student/ in this jail (earlier stages' references standing in); the jail then ends.

        Between two jobs nothing of the first runs (the resident kills what a job leaves before it says the job ended; a
        jail where more than the resident runs, a worker past a forged `ended`, ends first), and each job's worker
        imports student/ afresh, so the files are swapped in the staging folder the jail reads. A jail of its own for
        each stage graded with references, started after the submission's had ended, cost two jail starts (~150 ms of
        CPU apiece) for each such stage; this costs one. The jail ends when the references leave it, with whatever its
        processes wrote: red team round 21 copied them to /tmp and passed the failing stage's hidden cases with them. A
        timeout in it is its own (`stuck`), as before.
        """
        own, stuck = self.root, self.stuck
        self.settle()  # a worker that forged its `ended` and lives on would read them (red team round 32): jail ends
        self._refill(Path(root), GRADED_TREE_CAP + REFERENCES_ROOM)  # the references are the grader's bytes: a
        # submission at intake's cap lost files of its own to them (red team round 29)
        self.stuck = {}
        try:
            yield
        finally:
            self.stuck = stuck
            try:  # nothing written beside the references (its /tmp, /var/tmp, /dev/shm: a copy of them, red team
                self._end_box()  # round 21) may reach the submission's own later jobs: this jail ends with them
            finally:
                self._refill(own)

    def _refill(self, root: Path, cap: int = GRADED_TREE_CAP) -> None:
        self.root, self._cap = root, cap
        if self._staging is not None:
            staging.refill(self._staging, root, cap)

    def isolation(self) -> str:
        """What kept the submission apart from the grading machine, in one line (for StageResult.notes)."""
        if self.unsandboxed:
            return UNJAILED
        found = runtime(self.settings.packages).packages
        # Not the uid itself: which jail ran a case is no learner's to read (red team round 25 told whether a hidden
        # call had ended its jail from the uid a hidden-only stage's note named)
        user = ("a fresh uid outside for each jail" if self._uid is not None
                else f"this grader's uid {os.getuid()} outside")
        return (f"jail: bubblewrap; new user, mount, pid, network, ipc, uts and cgroup namespaces; no network; sees "
                f"only /usr, Python, {', '.join(found)} (and what they need), the grader's code, a read-only copy of "
                f"student/ and this run's inputs; /tmp a {self.settings.tmp_mb} MiB tmpfs; {user}, uid {UID_INSIDE} "
                f"inside, no capabilities; cgroup v{self._layout.version if self._layout else '?'}: "
                f"{', '.join(self._limits_said) or 'not started yet'}")

    def run(self, calls: list[Call], limits: Limits, *, cancel: Callable[[], bool] | None = None,
            cpu_seconds: float | None = None, substitutes: dict[str, Any] | None = None, once: bool = False,
            **unsandboxed: Any) -> Generator[Outcome, None, None]:
        """Yield one Outcome per call, in order, as sandbox.run does; a call that kills its jail costs only itself.

        `limits.timeout` is per call (wall clock, enforced from here), `limits.memory_mb` caps the jail's processes
        together (cgroup) and each one alone (RLIMIT_AS); `cpu_seconds` caps one call's CPU time (cgroup); each
        call's result may carry at most its `max_bytes`. `cancel` is polled; when it returns True the jail is killed
        and the run ends. `once`: a function that timed out is not called again, in this run or this jail's later
        ones; its later calls come back SKIPPED at once, as sandbox.run's `once` does. `unsandboxed` holds
        sandbox.run's `hide` and `forget`, for the --unsandboxed setting, which alone takes `substitutes` (trusted
        submissions: the forked child runs them).
        """
        if substitutes and not self.unsandboxed:
            raise UsageError("--isolate puts the course's reference code in place of earlier stages, and graded "
                             "mode never runs reference code beside a submission (the jail refuses it): grade "
                             "without --isolate")
        if self.unsandboxed:
            for outcome in sandbox.run(self.root, calls, limits, substitutes, cancel=cancel, graded=True, once=once,
                                       stuck=self.stuck, **unsandboxed):
                outcome.isolation = f"{UNJAILED}: {outcome.isolation or 'a forked child'}"
                yield outcome
            return
        todo = list(calls)
        stuck = self.stuck if once else {}  # kept across runs: a stage's public and hidden passes
        while todo and not (cancel is not None and cancel()):
            while todo and (todo[0].module, todo[0].function) in stuck:  # a timeout ended the jail: not again
                call = todo.pop(0)
                yield Outcome(call.case, Status.SKIPPED, message=sandbox.not_again(call, stuck))
            if not todo:
                return
            job = self._send_job(self._ensure_box(limits.memory_mb),
                                 [c for c in todo if (c.module, c.function) not in stuck], limits, cpu_seconds)
            try:
                for outcome in job.watch(cancel):
                    while (todo[0].module, todo[0].function) in stuck:  # in order, between the job's calls
                        skipped = todo.pop(0)
                        yield Outcome(skipped.case, Status.SKIPPED, message=sandbox.not_again(skipped, stuck))
                    call = todo.pop(0)
                    if once and outcome.status is Status.TIMEOUT:
                        stuck[call.module, call.function] = outcome.case
                    outcome.isolation = self.isolation()
                    yield outcome
            finally:
                job.close()
                if job.end not in ("done", "retired"):
                    self._end_box()

    def _ensure_box(self, memory_mb: int) -> Box:
        if self._box is not None and self._box.memory_mb != memory_mb:  # a stage of another memory: a jail whose
            self._end_box()  # /proc/meminfo stand-in, written at its start, says this one (red team round 27)
        if self._box is None:
            self._box = self._start(memory_mb)
        self._limits_said, self._uid = self._box.cgroup.limits, self._box.uid
        return self._box

    def _end_box(self) -> None:
        box, self._box = self._box, None
        if box is not None:
            self.stats.append(box.kill())

    def _start(self, memory_mb: int) -> Box:
        """A jail for the calls to come: this process's warm spare (when asked for and ready), else a new one.

        The spare is taken whenever one is ready: for the submission's first jail, its hidden pass's, and the one
        that goes on after a timeout or a crash ended a jail mid-pass (its staging folder then replaces this one).
        """
        assert self._layout is not None
        adopted = adopt(self.settings, memory_mb) if self.warm else None
        if adopted is not None:
            if self._staging is not None:
                staging.remove(self._staging)
            self._staging = adopted.staging
            staging.fill(self._staging, self.root, self._cap)  # the running spare sees the files as they land
        elif self._staging is None:
            self._staging = staging.new()
            staging.fill(self._staging, self.root, self._cap)
        box = adopted or start(self._staging, self._layout, self.settings, memory_mb)
        if self.warm:
            try:
                prestart(self._layout, self.settings, memory_mb)  # the next jail's, while this one grades
            except BaseException:
                box.kill()  # held by nothing yet: it would run on
                raise
        return box

    def _send_job(self, box: Box, calls: list[Call], limits: Limits, cpu_seconds: float | None) -> Job:
        """Write the calls' inputs into the staging folder, then hand the jail the job and its capture files."""
        assert self._staging is not None
        box.jobs += 1
        name = f"{len(self.stats)}-{box.jobs}"
        folder = self._staging / "jobs" / name
        inputs = staging.write_job(folder, calls, limits)
        fds = capture.make()
        handed: list[int] = []
        try:
            try:
                staging.as_made(inputs)
                handed.extend(staging.handed(fd) for fd in inputs)
            except OSError as e:  # the grader's own copies: its failure, never the submission's timeout
                for fd in fds:
                    os.close(fd)
                raise JailError(f"could not hand the job its inputs: {e}") from e
            try:  # never waiting: a resident that takes no job (a worker forged its `ended` and lives on, red
                # team round 25) would hold the batch here. sendmsg, as socket.send_fds drops its flags (Python 3.11)
                box.command.sendmsg([json.dumps({"run": name, "inputs": len(inputs)}).encode()],
                                    [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [*fds, *handed]))],
                                    socket.MSG_DONTWAIT)
            except BlockingIOError:
                box.stalled = True
                box.cgroup.kill()  # every process of the jail: the job sees its result pipe close and says why
            except OSError:
                pass  # the jail is gone: the job sees its result pipe close and says how
        finally:
            for fd in handed:
                os.close(fd)
        return Job(box, calls, limits, folder, fds, str(self._staging / "student"), cpu_seconds,
                   self.settings.startup_timeout)


def one_shot(root: Path, calls: list[Call], limits: Limits, *, settings: Settings | None = None,
             unsandboxed: bool = False, **options: Any) -> Iterator[Outcome]:
    """One Jail for these calls only (`Jail.run` has the options)."""
    with Jail(root, settings, unsandboxed=unsandboxed) as jail:
        yield from jail.run(calls, limits, **options)

