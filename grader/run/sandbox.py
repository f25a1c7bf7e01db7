"""Runs the learner's functions in a child process and returns their outputs as plain arrays; never prints.

This module is the grader's side: it forks one child per run of a stage's calls (grader/run/child.py is what that
child does), reads the frames it sends back (grader/run/protocol.py), enforces the timeout and kills what the child
started (grader/run/reap.py). The child is forked after numpy is imported (so a grade costs a fork, not an
interpreter start) and before any expected output is read: only the inputs exist in its memory. Outputs come back
over a private pipe as .npy bytes read with allow_pickle=False, so nothing the child sends can run code in the
grader. A call's printed output comes back in its own result frame (grader/run/capture.py), so it is never shown
under another case; a call stopped at its timeout is first asked for its stack, to say which line it was on.

The child may only report statuses that describe its own failure (an exception, a bad value...): PASS and FAIL
are the grader's to decide, and frames out of order are refused, so writing into the result pipe cannot forge
a verdict.

`graded=True` is the setting for untrusted submissions (SECURITY.md; grader/run/confine.py does the confining).
Every outcome is then collected before the first is yielded, so no expected value of this stage is read while
one of its children lives.

A timeout, a crash or an exit ends that call only: the next call gets a new child.
"""

from __future__ import annotations

import fcntl
import os
import select
import sys
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from grader.errors import GraderError
from grader.records import Record, field
from grader.results import Status
from grader.run import capture, child, confine, reap
from grader.run.protocol import Call, Frames, Limits, Outcome, ended, result_of, timeout_message
from grader.run.safetext import safe_text

Substitutes = dict[str, dict[str, Callable[..., Any]]]


def run(root: Path, calls: list[Call], limits: Limits, substitutes: Substitutes | None = None,
        cancel: Callable[[], bool] | None = None, graded: bool = False, hide: Sequence[Path] | None = None,
        forget: Callable[[], None] | None = None, once: bool = False,
        stuck: dict[tuple[str, str], str] | None = None) -> Generator[Outcome, None, None]:
    """Yield one Outcome per call, in order; a call that kills its child costs only itself.

    `graded` selects the setting for untrusted submissions (module docstring, SECURITY.md). `hide` (graded) lists
    folders the child must not see; by default the fixtures/, stages/ and .grader/ of the course found upward from
    the current folder and from `root`. `forget` (graded) is called in each child before the submission's code
    runs, to drop the caller's caches. `substitutes` maps a student module name to functions that stand in for it
    (`--isolate`). `cancel` is polled while waiting; when it returns True the child is killed and the run ends.
    `once`: a function that timed out is not called again; its later calls come back SKIPPED at once, without
    waiting for another timeout (the other functions' calls still run). `stuck` (module, function -> case) carries
    what timed out from one run to the next (a graded stage's public and hidden passes); its own by default.
    """
    reap.become_subreaper()
    plan = confine.make_plan(root, hide, forget) if graded else None
    outcomes = _run(root, calls, limits, substitutes or {}, cancel, plan, once, {} if stuck is None else stuck)
    if plan is None:
        yield from outcomes
    else:  # every child has ended before the caller reads a single expected value
        yield from list(outcomes)


def _run(root: Path, calls: list[Call], limits: Limits, substitutes: Substitutes,
         cancel: Callable[[], bool] | None, plan: confine.Plan | None, once: bool = False,
         stuck: dict[tuple[str, str], str] | None = None) -> Iterator[Outcome]:
    done = 0
    stuck = {} if stuck is None else stuck  # (module, function) -> the case it timed out on
    while done < len(calls):
        while once and done < len(calls) and (calls[done].module, calls[done].function) in stuck:  # an earlier run's
            yield Outcome(calls[done].case, Status.SKIPPED, message=not_again(calls[done], stuck))
            done += 1
        if done == len(calls):
            return
        for outcome in _one_child(root, calls[done:], limits, substitutes, cancel, plan):
            done += 1
            if once and outcome.status is Status.TIMEOUT:
                stuck[calls[done - 1].module, calls[done - 1].function] = outcome.case
            yield outcome
        if cancel is not None and cancel():
            return
        while done < len(calls) and (calls[done].module, calls[done].function) in stuck:  # a timeout ended the child
            call = calls[done]
            yield Outcome(call.case, Status.SKIPPED, message=not_again(call, stuck))
            done += 1


def not_again(call: Call, stuck: dict[tuple[str, str], str]) -> str:
    """Why a call of a function that timed out earlier in the run is not made (`once`)."""
    return (f"not run: {call.function} timed out on case '{stuck[call.module, call.function]}', so its other cases "
            "were not run (each would have waited for the timeout again)")


class _Child(Record):
    """The grader's handle on one forked child: its pid, the read end of its result pipe, its capture files."""

    pid: int
    results: int
    output: int
    stack: int
    student_dirs: list[str]
    scratch: Path | None
    known: set[int]  # the grader's children before this one: any other is this child's, and is reaped
    isolation: str | None = None
    fatal: str = ""
    frames: Frames = field(default_factory=Frames)


def _one_child(root: Path, calls: list[Call], limits: Limits, substitutes: Substitutes,
               cancel: Callable[[], bool] | None, plan: confine.Plan | None) -> Iterator[Outcome]:
    proc = _start(root, calls, limits, substitutes, plan)
    try:
        yield from _Reader(proc, calls, limits, cancel, str(root / "student")).outcomes()
    finally:
        reap.end(proc.pid)
        reap.escaped(proc.known)
        for fd in (proc.results, proc.output, proc.stack):
            os.close(fd)
        if proc.scratch is not None:
            import shutil  # graded runs only: kept off the self-paced grade's start-up

            shutil.rmtree(proc.scratch, ignore_errors=True)


def _start(root: Path, calls: list[Call], limits: Limits, substitutes: Substitutes,
           plan: confine.Plan | None) -> _Child:
    """Fork the child; a machine out of processes, descriptors or disk is said as such, and leaks nothing."""
    known = reap.children()
    scratch, fds = None, []
    try:
        scratch = confine.make_scratch(plan) if plan is not None else None
        res_r, res_w = os.pipe()
        fds += [res_r, res_w]
        out, stack = capture.make()
        fds += [out, stack]
        try:  # a [64, 3072] output crosses in a few writes, not a dozen 64 KiB round trips
            fcntl.fcntl(res_w, _F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
    except OSError as e:
        for fd in fds:
            os.close(fd)
        if scratch is not None:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)
        raise GraderError(f"cannot start a process for the learner's code ({e.strerror or e}); the machine is "
                          "out of processes, file descriptors or disk space: free some and grade again") from e
    if pid == 0:  # the child never returns from here
        os.close(res_r)
        child.main(root, calls, limits, substitutes, (res_w, out, stack), plan, scratch)
    os.close(res_w)
    try:
        os.setpgid(pid, pid)  # also done in the child; whichever runs first wins the race
    except OSError:
        pass
    dirs = [str(root / "student")] + ([str(scratch / "student")] if scratch is not None else [])
    return _Child(pid, res_r, out, stack, dirs, scratch, known)


class _Reader:
    """Reads one child's frames: `start i`, then call i's result, in order; watches the clock meanwhile."""

    def __init__(self, proc: _Child, calls: list[Call], limits: Limits, cancel: Callable[[], bool] | None,
                 source_dir: str) -> None:
        self.proc, self.calls, self.limits, self.cancel, self.source_dir = proc, calls, limits, cancel, source_dir
        self.reported, self.awaiting, self.started = 0, False, time.monotonic()

    def outcomes(self) -> Iterator[Outcome]:
        """One Outcome per call this child reports, then (if it stopped early) how it ended."""
        fd = self.proc.results
        while True:
            if self.cancel is not None and self.cancel():
                return
            wait = self.started + self.limits.timeout - time.monotonic()
            if wait <= 0:
                yield self._timeout()
                return
            ready, _, _ = select.select([fd], [], [], min(wait, 0.005) if self.cancel else wait)
            if not ready:
                continue
            frames = self.proc.frames.read(fd)
            if frames is None:
                break
            for header, parts in frames:
                outcome = self._frame(header, parts)
                if outcome is not None:
                    yield outcome
                    if self.reported == len(self.calls):
                        return  # a straggler holding the pipe open must not keep us waiting
                    # the caller's judging was not the child's time: a `start` frame not read yet would otherwise
                    # be timed from the last call's start
                    self.started = time.monotonic()
                if self.proc.frames.broken:
                    break
            if self.proc.frames.broken:  # between calls, a new child simply runs the rest
                if self.awaiting or self.reported == 0:
                    yield self._final(Status.BAD_OUTPUT, self.proc.frames.broken)
                return
        if self.reported < len(self.calls):
            yield self._death()

    def _frame(self, header: dict[str, Any], parts: list[memoryview]) -> Outcome | None:
        """Act on one frame; the Outcome of a call when this frame is its result."""
        frames = self.proc.frames
        if self.reported == 0 and not self.awaiting and ("isolation" in header or "fatal" in header):
            if isinstance(header.get("isolation"), list):
                self.proc.isolation = ", ".join(safe_text(x, 200) for x in header["isolation"][:20])
            self.proc.fatal = safe_text(header.get("fatal", ""))
            return None
        if "start" in header:  # strictly: start i, result i, start i+1, ...
            if self.awaiting or type(header["start"]) is not int or header["start"] != self.reported:
                frames.broken = "sent frames out of order (was the grader's pipe written to?)"
                return None
            self.started, self.awaiting = time.monotonic(), True
            frames.limit = self.calls[self.reported].max_bytes
            return None
        if not self.awaiting:
            frames.broken = "sent a result the grader did not ask for (pipe written to?)"
            return None
        outcome = result_of(self.calls[self.reported], header, parts, time.monotonic() - self.started)
        outcome.isolation = self.proc.isolation
        self.reported, self.awaiting = self.reported + 1, False
        frames.limit = 0  # nothing may carry a payload until the next call starts
        return outcome

    def _final(self, status: Status, message: str, where: str | None = None) -> Outcome:
        """An outcome the grader decides (timeout, crash, exit, unreadable), with what the call printed."""
        output, cut = capture.read(self.proc.output)
        return Outcome(self.calls[self.reported].case, status, message=message, output=output, output_cut=cut,
                       seconds=time.monotonic() - self.started, where=where, isolation=self.proc.isolation)

    def _timeout(self) -> Outcome:
        where = capture.ask_stack(self.proc.pid, self.proc.stack, self.proc.student_dirs, self.source_dir)
        return self._final(Status.TIMEOUT, timeout_message(self.limits.timeout, where), where)

    def _death(self) -> Outcome:
        """The child closed its pipe before reporting the current call: say how it ended."""
        status = _wait(self.proc.pid, self.started + self.limits.timeout)
        if status is None:
            return self._final(Status.TIMEOUT, f"closed its output and then ran for longer than "
                               f"{self.limits.timeout:g} s; it was stopped")
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        if self.proc.fatal and code == child.SETUP_FAILED:
            return self._final(Status.CRASHED, f"was not run: the grader could not set up its sandbox "
                               f"({self.proc.fatal}). This is a problem with the grading machine, not with your code.")
        return self._final(*ended(os.WTERMSIG(status) if os.WIFSIGNALED(status) else None, code))


def _wait(pid: int, deadline: float) -> int | None:
    """The child's wait status, or None if it is still running at the deadline."""
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return 0
        if done:
            return status
        if time.monotonic() > deadline:
            return None
        time.sleep(0.002)


_F_SETPIPE_SZ = 1031
