"""The grader's side of one job in a jail: read its frames in order, watch the clock, turn each call into an Outcome.

Frames come on the jail's result pipe in grader/run/protocol.py's format, read by the one frame parser
(`protocol.Frames`): the resident process's `ready` (once per jail), then per call the worker's `start i` and its
result, then the resident's `ended` with how the worker ended. Anything else, or out of order, is a broken stream.
A frame may carry a payload only while a call runs, and at most that call's `max_bytes`.

Outcomes mean what they mean in the forked child (grader/run/sandbox.py): a result frame through
`protocol.result_of`; at a timeout, the learner's line (the worker's faulthandler stack, asked for with SIGUSR1) and
what the call printed so far (the job's output file, read by the grader itself); a worker that ended without
answering by its signal or exit code, unless the cgroup counted an OOM kill during the call (MEMORY).
"""

from __future__ import annotations

import os
import select
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from grader.results import Status
from grader.run import capture
from grader.run.jail.mounts import ROOT_IN_JAIL
from grader.run.jail.spawn import Box, JailError
from grader.run.protocol import Call, Limits, Outcome, ended, out_of_memory, result_of, timeout_message
from grader.run.safetext import safe_text

RETIRED = 75  # grader/run/jail/inside.py's worker exit code after a call that left threads or processes running
ENDED_WAIT = 10.0  # seconds for a worker to exit after its last result
GONE = ("ended the grading sandbox's own processes instead of returning (kill(-1)? closing every descriptor?)")
STALLED = ("left the grading sandbox unable to take its next job (a call that wrote the sandbox's own frames, "
           "then ran on?)")
WORKER_LOST = ("could not be started: an earlier call changed the grading sandbox's own processes (their limits? "
               "their signals?), so no new process could run it")


class Job:
    """One job: some of a stage's calls, run by one worker in one jail."""

    def __init__(self, box: Box, calls: list[Call], limits: Limits, folder: Path, fds: tuple[int, int],
                 source_dir: str, cpu_seconds: float | None, startup: float) -> None:
        self.box, self.calls, self.limits, self.folder = box, calls, limits, folder
        self.output, self.stack = fds  # the job's capture files (grader/run/capture.py), the grader's own
        self.source_dir, self.cpu_seconds = source_dir, cpu_seconds
        self.reported, self.awaiting, self.started = 0, False, time.monotonic()
        self.deadline = self.started + startup
        self.worker: int | None = None  # the worker's pid inside the jail, from its `start` frame
        self.oom0, self.cpu0, self.cpu_checked = box.cgroup.oom_kills(), 0.0, 0.0
        self.end: str | None = None  # done, retired (the rest need a new worker), dead (and the jail), cancelled

    def close(self) -> None:
        for fd in (self.output, self.stack):
            os.close(fd)
        shutil.rmtree(self.folder, ignore_errors=True)

    def watch(self, cancel: Callable[[], bool] | None) -> Iterator[Outcome]:
        """Read the jail's frames until the job ends; yield each call's outcome."""
        poller = select.poll()
        for fd in (self.box.results, self.box.diag):
            poller.register(fd, select.POLLIN)
        while self.end is None:
            if cancel is not None and cancel():
                self.end = "cancelled"
                return
            now = time.monotonic()
            if now >= self.deadline or self._over_cpu():
                yield from self._stop("timeout" if now >= self.deadline else "cpu")
                return
            wait = self.deadline - now
            if cancel is not None or self.cpu_seconds is not None:
                wait = min(wait, 0.02)
            for fd, _ in poller.poll(max(1, int(wait * 1000))):
                if fd == self.box.diag:
                    data = os.read(fd, 1 << 20)
                    self.box.hear(data)
                    if not data:
                        poller.unregister(fd)
                    continue
                yield from self._feed(self.box.frames.read(fd))
                if self.end is not None:
                    return

    def _feed(self, got: Iterator[tuple[dict[str, Any], list[memoryview]]] | None) -> Iterator[Outcome]:
        """What came on the result pipe: each complete frame in turn; EOF (None) means the resident process is gone."""
        if got is None:
            yield from self._stop("gone")
            return
        frames = self.box.frames
        for header, parts in got:
            out = self._frame(header, parts)
            if out is not None:
                yield out
                if not self.awaiting:  # the caller's judging was the grader's time, not the next call's (red team
                    self._next_deadline()  # round 9: a slow verdict timed the next call out before its start)
            if self.end is not None:
                return
        if frames.broken is not None:
            yield from self._stop("broken")

    def _frame(self, header: dict[str, Any], parts: list[memoryview]) -> Outcome | None:
        """One frame, strictly in order: (ready), start 0, result 0, start 1, ..., ended. Anything else is broken."""
        now, frames = time.monotonic(), self.box.frames
        if "ready" in header and not self.box.ready and self.reported == 0 and not self.awaiting:
            self.box.ready = True
            return None
        if "ended" in header:
            return self._ended(header)
        if "start" in header:
            pid = header.get("pid")
            if (self.awaiting or type(header["start"]) is not int or header["start"] != self.reported
                    or self.reported >= len(self.calls)):  # red team round 9: `start N` after the last result
                frames.broken = "sent frames out of order (was the grader's pipe written to?)"
                return None
            self.awaiting, self.started, self.deadline = True, now, now + self.limits.timeout
            self.box.ran = True
            self.worker = pid if type(pid) is int and 1 < pid < 1 << 22 else None
            frames.limit = self.calls[self.reported].max_bytes
            self.oom0, self.cpu0 = self.box.cgroup.oom_kills(), self.box.cgroup.cpu_seconds() or 0.0
            return None
        if not self.awaiting:
            frames.broken = "sent a result the grader did not ask for (was the grader's pipe written to?)"
            return None
        out = result_of(self.calls[self.reported], header, parts, now - self.started)
        if self.box.cgroup.oom_kills() > self.oom0:  # a process of this call was killed for memory: the verdict
            out = self._final(Status.MEMORY, out_of_memory(self.box.memory_mb))
        self.reported, self.awaiting, frames.limit = self.reported + 1, False, 0
        self._next_deadline()  # from now: reading the result was the grader's time
        return out

    def _next_deadline(self) -> None:
        """The next call's time starts now (loading its inputs takes milliseconds).

        After the last call, the worker's exit and the resident process's 'ended' are due.
        """
        self.deadline = time.monotonic() + (self.limits.timeout if self.reported < len(self.calls) else ENDED_WAIT)

    def _ended(self, header: dict[str, Any]) -> Outcome | None:
        """The worker ended: the job is done, the rest need a new worker, or it died before answering a call."""
        sig, code = header.get("signal"), header.get("code")
        sig = sig if type(sig) is int and 0 < sig < 65 else None
        code = code if type(code) is int and 0 <= code < 256 else None
        if not self.awaiting and self.reported == len(self.calls):
            self.end = "done"
            return None
        if not self.awaiting and self.reported > 0 and (sig, code) == (None, RETIRED):
            self.end = "retired"  # the last call left something running: the rest go to a new worker
            return None
        self.end = "dead"
        if self.box.cgroup.oom_kills() > self.oom0:  # memory the submission holds (its /tmp files too) ran out
            return self._final(Status.MEMORY, out_of_memory(self.box.memory_mb))
        if not self.awaiting and self.reported == 0 and not self.box.ran:  # no learner code has run in this jail
            raise JailError(f"the jail's worker ended before its first call (signal {sig}, exit code {code}): "
                            f"{self.box.diagnosis()}")
        if not self.awaiting:  # learner code that ran earlier in this jail changed what its workers start from
            return self._final(Status.CRASHED, WORKER_LOST)
        return self._final(*ended(sig, code))

    def _stop(self, why: str) -> Iterator[Outcome]:
        """The job cannot go on (timeout, CPU, broken frames, the jail gone): the current call's outcome, if due."""
        self.end = "dead"
        if self.reported >= len(self.calls):
            return
        if not self.box.ready and not self.box.stalled:
            raise JailError(f"the jail did not start: {self.box.diagnosis()}")
        if self.box.cgroup.oom_kills() > self.oom0 and (self.awaiting or why == "gone"):
            yield self._final(Status.MEMORY, out_of_memory(self.box.memory_mb))
        elif why == "gone":
            if self.awaiting or self.reported == 0:
                yield self._final(Status.CRASHED, STALLED if self.box.stalled else GONE)
        elif why == "broken":
            if self.awaiting or self.reported == 0:
                yield self._final(Status.BAD_OUTPUT, self.box.frames.broken or "")
        elif why == "cpu":
            yield self._final(Status.TIMEOUT, f"used more than {self.cpu_seconds:g} s of CPU time and was stopped "
                              "(all its processes and threads together). Look for work that grows much faster than "
                              "the input.")
        else:
            where = self._where() if self.awaiting else None
            yield self._final(Status.TIMEOUT, timeout_message(self.limits.timeout, where), where)

    def _final(self, status: Status, message: str, where: str | None = None) -> Outcome:
        """An outcome the grader decides, with what the call printed so far (read from the job's output file)."""
        output, cut = capture.read(self.output) if self.awaiting else ("", 0)
        return Outcome(self.calls[self.reported].case, status, message=safe_text(message), output=output,
                       output_cut=cut, seconds=time.monotonic() - self.started, where=where)

    def _where(self) -> str | None:
        """The learner's line the worker is on: its stack, asked for through its pid outside the jail."""
        worker = self.worker
        host = _host_pid(self.box.cgroup.members(), worker) if worker is not None else None
        if worker is None or host is None:
            return None
        try:
            pidfd = os.pidfd_open(host)
        except OSError:
            return None
        try:  # still the jail's worker once held: a pid freed meanwhile may be any process's on the machine
            if host not in self.box.cgroup.members() or _host_pid([host], worker) != host:
                return None
            return capture.ask_stack(host, self.stack, [f"{ROOT_IN_JAIL}/student"], self.source_dir, pidfd)
        finally:
            os.close(pidfd)

    def _over_cpu(self) -> bool:
        """Whether the current call has used more CPU time than allowed (checked at most every 20 ms)."""
        if self.cpu_seconds is None or not self.awaiting:
            return False
        now = time.monotonic()
        if now - self.cpu_checked < 0.02:
            return False
        self.cpu_checked = now
        used = self.box.cgroup.cpu_seconds()
        return used is not None and used - self.cpu0 > self.cpu_seconds


def _host_pid(members: list[int], inner: int) -> int | None:
    """The host pid of the jail's process whose pid in the jail's own namespace is `inner` (NSpid in /proc)."""
    for pid in members:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
                line = next((x for x in f if x.startswith("NSpid:")), "")
        except OSError:
            continue
        ids = line.split()[1:]
        if len(ids) > 1 and ids[-1] == str(inner):
            return pid
    return None
