"""Runs the learner's functions in a child process and returns their outputs as plain arrays; never prints.

This module is the grader's side: it forks one child per run of a stage's calls (grader/child.py is what that
child does), reads the frames it sends back, enforces the timeout and kills what the child started. The child is
forked after numpy is imported (so a grade costs a fork, not an interpreter start) and before any expected output
is read: only the inputs exist in its memory. Outputs come back over a private pipe as .npy bytes read with
allow_pickle=False, so nothing the child sends can run code in the grader. After each child its whole process
group is killed, and the grader, a child subreaper, kills and reaps any descendant that left the group (setsid)
and was handed to it: nothing the child started survives.

The child may only report statuses that describe its own failure (an exception, a bad value...): PASS and FAIL
are the grader's to decide, and frames out of order are refused, so writing into the result pipe cannot forge
a verdict.

`graded=True` is the setting for untrusted submissions (SECURITY.md; grader/confine.py does the confining).
Every outcome is then collected before the first is yielded, so no expected value of this stage is read while
one of its children lives. `isolation()` says which confinements were in force.

A timeout, a crash or an exit ends that call only: the next call gets a new child.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grader.errors import GraderError
from grader.results import Status
from grader.run import child, confine

STREAM_CAP = 8 * 1024  # bytes of stdout / stderr kept per call


FRAME_CAP = 1 << 30  # the most a call may send back


MESSAGE_CAP = 16 * 1024  # characters of a child's message kept


# The statuses a child may report about itself. PASS and FAIL are decided by the grader's comparison, and
# TIMEOUT / CRASHED / SKIPPED by the grader watching the child: a child claiming any of them is lying.
_CHILD_STATUSES = frozenset({Status.TODO, Status.SYNTAX_ERROR, Status.IMPORT_ERROR, Status.EXCEPTION,
                             Status.MEMORY, Status.EXITED, Status.BAD_OUTPUT})


@dataclass
class Call:
    """One call of a learner function with named inputs."""

    case: str
    module: str
    function: str
    inputs: dict[str, Any]
    returns: str = "array"


@dataclass
class Limits:
    """What one call may use."""

    timeout: float = 10.0
    memory_mb: int = 4096


@dataclass
class Outcome:
    """What one call did: a value to compare (status None) or a final status with a message."""

    case: str
    status: Status | None
    value: dict[str, np.ndarray] | None = None
    message: str = ""
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    modules: list[str] = field(default_factory=list)


def run(root: Path, calls: list[Call], limits: Limits,
        substitutes: dict[str, dict[str, Callable[..., Any]]] | None = None,
        cancel: Callable[[], bool] | None = None, graded: bool = False,
        hide: Sequence[Path] | None = None,
        forget: Callable[[], None] | None = None) -> Generator[Outcome, None, None]:
    """Yield one Outcome per call, in order; a call that kills its child costs only itself.

    `graded` selects the setting for untrusted submissions (module docstring, SECURITY.md).
    `hide` (graded) lists folders the child must not see; by default the fixtures/, stages/ and .grader/ of
    the course found upward from the current folder and from `root`.

    `forget` (graded) is called in each child before the submission's code runs, to drop the caller's caches.
    `substitutes` maps a student module name to functions that stand in for it (`--isolate`).
    `cancel` is polled while waiting; when it returns True the child is killed and the run ends.
    """
    _become_subreaper()
    plan = confine.make_plan(root, hide, forget) if graded else None
    outcomes = _run(root, calls, limits, substitutes or {}, cancel, plan)
    if plan is None:
        yield from outcomes
    else:  # every child has ended before the caller reads a single expected value
        yield from list(outcomes)


def _run(root: Path, calls: list[Call], limits: Limits, substitutes: dict[str, Any],
         cancel: Callable[[], bool] | None, plan: confine.Plan | None) -> Iterator[Outcome]:
    done = 0
    while done < len(calls):
        for outcome in _one_child(root, calls[done:], limits, substitutes, cancel, plan):
            done += 1
            yield outcome
        if cancel is not None and cancel():
            return


def isolation() -> str:
    """What kept the last graded child apart from the grader, in one line (for StageResult.notes)."""
    if _last_isolation is None:
        return "sandbox: self-paced setting (own process group, stdin closed, memory and file size caps)"
    return "sandbox (graded): " + ", ".join(_last_isolation)


_last_isolation: list[str] | None = None


class _Stream:
    def __init__(self) -> None:
        self.kept = bytearray()
        self.dropped = 0

    def add(self, data: bytes) -> None:
        room = STREAM_CAP - len(self.kept)
        self.kept += data[:room]
        self.dropped += max(0, len(data) - room)

    def text(self) -> str:
        text = self.kept.decode("utf-8", errors="replace")
        if self.dropped:
            text += f"\n[... {self.dropped} more bytes of output not shown]"
        return text


def _one_child(root: Path, calls: list[Call], limits: Limits, substitutes: dict[str, Any],
               cancel: Callable[[], bool] | None, plan: confine.Plan | None) -> Iterator[Outcome]:
    global _last_isolation
    known = _children()
    scratch, fds = None, []
    try:
        scratch = confine.make_scratch(plan) if plan is not None else None
        res_r, res_w = os.pipe()
        fds += [res_r, res_w]
        out_r, out_w = os.pipe()
        fds += [out_r, out_w]
        err_r, err_w = os.pipe()
        fds += [err_r, err_w]
        try:  # a [64, 3072] output crosses in a few writes, not a dozen 64 KiB round trips
            fcntl.fcntl(res_w, _F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
    except OSError as e:  # out of processes, descriptors or disk: the machine's problem, said as such
        for fd in fds:
            os.close(fd)
        if scratch is not None:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)
        raise GraderError(f"cannot start a process for the learner's code ({e.strerror or e}); the machine is "
                          "out of processes, file descriptors or disk space: free some and grade again") from e
    if pid == 0:  # the child never returns from here
        for fd in (res_r, out_r, err_r):
            os.close(fd)
        child.main(root, calls, limits, substitutes, res_w, out_w, err_w, plan, scratch)
    for fd in (res_w, out_w, err_w):
        os.close(fd)
    try:
        os.setpgid(pid, pid)  # also done in the child; whichever runs first wins the race
    except OSError:
        pass
    streams = {out_r: _Stream(), err_r: _Stream()}
    frames = _Frames()
    started = time.monotonic()
    open_fds = [res_r, out_r, err_r]
    reported, awaiting, fatal = 0, False, ""
    try:
        while open_fds:
            if cancel is not None and cancel():
                return
            wait = started + limits.timeout - time.monotonic()
            if wait <= 0:
                yield _final(calls[reported], Status.TIMEOUT, streams, started,
                             f"took longer than {limits.timeout:g} s and was stopped. Look for a loop that "
                             "never ends, or work that grows much faster than the input.")
                return
            ready, _, _ = select.select(open_fds, [], [], min(wait, 0.005) if cancel else wait)
            for fd in ready:
                data = os.read(fd, 1 << 20)
                if not data:
                    open_fds.remove(fd)
                elif fd != res_r:
                    streams[fd].add(data)
                else:
                    for header, parts in frames.feed(data):
                        if reported == 0 and not awaiting and ("isolation" in header or "fatal" in header):
                            if plan is not None and isinstance(header.get("isolation"), list):
                                _last_isolation = [str(x)[:200] for x in header["isolation"]][:20]
                            fatal = str(header.get("fatal", ""))[:MESSAGE_CAP]
                            continue
                        if "start" in header:  # strictly: start i, result i, start i+1, ...
                            if awaiting or header["start"] != reported or type(header["start"]) is not int:
                                frames.broken = "sent frames out of order (was the grader's pipe written to?)"
                                break
                            started, awaiting = time.monotonic(), True
                            for s in streams.values():
                                s.kept.clear()
                                s.dropped = 0
                            continue
                        if not awaiting:
                            frames.broken = "sent a result the grader did not ask for (pipe written to?)"
                            break
                        _drain(streams, [f for f in open_fds if f != res_r])
                        yield _outcome(calls[reported], header, parts, streams, started)
                        reported, awaiting = reported + 1, False
                        if reported == len(calls):
                            return  # a straggler holding the pipes open must not keep us waiting
                    if frames.broken:  # between calls, a new child simply runs the rest
                        if awaiting or reported == 0:
                            yield _final(calls[reported], Status.BAD_OUTPUT, streams, started, frames.broken)
                        return
        if reported < len(calls):
            yield _death(calls[reported], pid, streams, started, limits.timeout, fatal)
    finally:
        _end(pid)
        _reap_escaped(known)
        for fd in (res_r, out_r, err_r):
            os.close(fd)
        if scratch is not None:
            import shutil  # graded runs only: kept off the self-paced grade's start-up

            shutil.rmtree(scratch, ignore_errors=True)


def _drain(streams: dict[int, _Stream], fds: list[int]) -> None:
    while fds:
        ready, _, _ = select.select(fds, [], [], 0)
        if not ready:
            return
        for fd in ready:
            data = os.read(fd, 1 << 20)
            if data:
                streams[fd].add(data)
            else:
                fds.remove(fd)


def _end(pid: int) -> None:
    """Kill the child's whole process group and reap the child."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _children() -> set[int]:
    """The grader's own children, from /proc (empty where /proc is missing); about 0.5 ms."""
    me, out = str(os.getpid()).encode(), set[int]()
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name[0].isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
        except OSError:
            continue
        try:
            data = os.read(fd, 512)
        except OSError:
            continue
        finally:
            os.close(fd)
        # "pid (comm) S ppid ...": comm may hold spaces and parentheses, so split after the last ')'
        if data[data.rfind(b")") + 4:].split(b" ", 1)[0] == me:
            out.add(int(name))
    return out


def _reap_escaped(known: set[int]) -> None:
    """Kill and reap the child's descendants that left its process group and were handed to us (subreaper)."""
    if _subreaper != os.getpid():
        return
    for _ in range(64):  # each round kills one generation; their own children are handed to us next
        escaped = _children() - known
        if not escaped:
            return
        for pid in escaped:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for pid in escaped:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


_subreaper = 0  # the pid that is a subreaper: the setting is per process and not inherited by a fork


def _become_subreaper() -> None:
    """PR_SET_CHILD_SUBREAPER: orphaned descendants become the grader's children, so they can be found."""
    global _subreaper
    if _subreaper != os.getpid() and sys.platform.startswith("linux"):
        _subreaper = os.getpid() if confine.libc().prctl(36, 1, 0, 0, 0) == 0 else 0


class _Frames:
    """Splits the child's byte stream into (JSON header, [payloads]) frames; refuses anything malformed."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.broken: str | None = None
        self.pending: tuple[dict[str, Any], list[int], int] | None = None  # a parsed header awaiting its payload

    def feed(self, data: bytes) -> Iterator[tuple[dict[str, Any], list[bytes]]]:
        self.buf += data
        while self.broken is None and len(self.buf) >= child.HEADER.size:
            if self.pending is None:
                (n,) = child.HEADER.unpack_from(self.buf)
                if n > 1 << 20:
                    self.broken = "sent something the grader could not read (was the grader's pipe written to?)"
                    return
                if len(self.buf) < child.HEADER.size + n:
                    return
                try:
                    header = json.loads(bytes(self.buf[child.HEADER.size:child.HEADER.size + n]))
                    sizes = [int(s) for s in header.get("parts", [])]
                    assert isinstance(header, dict) and all(s >= 0 for s in sizes)
                except (ValueError, AssertionError, TypeError, AttributeError, RecursionError):
                    self.broken = "sent something the grader could not read (was the grader's pipe written to?)"
                    return
                if sum(sizes) > FRAME_CAP:
                    self.broken = f"returned more than {FRAME_CAP >> 20} MiB of output"
                    return
                self.pending = (header, sizes, n)
            header, sizes, n = self.pending
            end = child.HEADER.size + n + sum(sizes)
            if len(self.buf) < end:
                return  # parsed once; the payload arrives in pipe-sized pieces
            self.pending = None
            parts, at = [], child.HEADER.size + n
            for s in sizes:
                parts.append(bytes(self.buf[at:at + s]))
                at += s
            del self.buf[:end]
            yield header, parts


def _final(call: Call, status: Status, streams: dict[int, _Stream], started: float, message: str) -> Outcome:
    out, err = streams.values()
    return Outcome(call.case, status, message=message, stdout=out.text(), stderr=err.text(),
                   seconds=time.monotonic() - started)


def _outcome(call: Call, header: dict[str, Any], parts: list[bytes], streams: dict[int, _Stream],
             started: float) -> Outcome:
    out, err = streams.values()
    modules = header.get("modules", [])
    modules = [str(m)[:200] for m in modules[:1000]] if isinstance(modules, list) else []
    common: dict[str, Any] = {"stdout": out.text(), "stderr": err.text(), "modules": modules,
                              "seconds": time.monotonic() - started}
    if header.get("status") != "ok":
        try:
            status = Status(header.get("status"))
        except (ValueError, TypeError):
            status = Status.BAD_OUTPUT
        if status not in _CHILD_STATUSES:
            return Outcome(call.case, Status.BAD_OUTPUT, message=f"claimed the status '{status.value}' for "
                           "itself; only the grader decides that (was the grader's pipe written to?)",
                           **common)
        return Outcome(call.case, status, message=str(header.get("message", ""))[:MESSAGE_CAP], **common)
    keys = header.get("keys", [])
    if not isinstance(keys, list) or len(keys) != len(parts) or len(set(map(str, keys))) != len(keys):
        return Outcome(call.case, Status.BAD_OUTPUT, message="sent an output the grader could not read",
                       **common)
    value = {}
    for key, data in zip(keys, parts, strict=True):
        try:
            value[str(key)] = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
        except Exception:  # any malformed bytes: the child's problem, never the grader's
            return Outcome(call.case, Status.BAD_OUTPUT, message="returned a value the grader could not read "
                           "as an array of numbers", **common)
    return Outcome(call.case, None, value=value, **common)


def _death(call: Call, pid: int, streams: dict[int, _Stream], started: float, timeout: float,
           fatal: str = "") -> Outcome:
    """The child closed every pipe before reporting the current call: say how it ended."""
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done:
            break
        if time.monotonic() > started + timeout:
            return _final(call, Status.TIMEOUT, streams, started, f"closed its output and then ran for "
                          f"longer than {timeout:g} s; it was stopped")
        time.sleep(0.002)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        if sig == signal.SIGKILL:
            return _final(call, Status.CRASHED, streams, started, "was killed (SIGKILL): by the system for "
                          "using too much memory, or by the code itself. Check the size of the arrays you "
                          "create.")
        return _final(call, Status.CRASHED, streams, started, f"crashed: the process was killed by {name}. "
                      "This happens with a segmentation fault in native code or an abort().")
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    if fatal and code == child.SETUP_FAILED:
        return _final(call, Status.CRASHED, streams, started, f"was not run: the grader could not set up its "
                      f"sandbox ({fatal}). This is a problem with the grading machine, not with your code.")
    return _final(call, Status.EXITED, streams, started, f"ended the process (exit code {code}) instead of "
                  "returning: remove calls to exit(), sys.exit() or os._exit(), and closing the grader's "
                  "pipes.")


_F_SETPIPE_SZ = 1031
