"""Runs the learner's functions in a child process and returns their outputs as plain arrays; never prints.

The child is forked from the grader after numpy is imported (so a grade costs a fork, not an interpreter
start), and before any expected output is read: only the inputs exist in its memory. In the child: its own
process group, stdin on /dev/null, stdout and stderr captured, an address-space cap, the learner's modules
compiled from source (never a stale __pycache__: its key is whole-second mtimes and sizes, which two quick
saves can share). Outputs come back over a private pipe as .npy bytes read with allow_pickle=False, so nothing
the child sends can run code in the grader. After each child its whole process group is killed, and the
grader, a child subreaper, kills and reaps any descendant that left the group (setsid) and was handed to it:
nothing the child started survives.

The child may only report statuses that describe its own failure (an exception, a bad value...): PASS and FAIL
are the grader's to decide, and frames out of order are refused, so writing into the result pipe cannot forge
a verdict. A file size cap (RLIMIT_FSIZE) applies in both settings.

`graded=True` is the setting for untrusted submissions (see SECURITY.md): the student/ folder is copied into a
scratch folder that becomes the child's cwd and HOME; the environment is cleared; where the system allows, the
child gets a new network namespace (no network) and a new mount namespace in which the course's fixtures/,
stages/ and .grader/ are covered by empty tmpfs mounts and the scratch folder is a size-capped tmpfs; running
as root, it drops to the unprivileged user `nobody`. Every outcome is collected before the first is yielded,
so no expected value of this stage is read while one of its children lives. `isolation()` says which of these
were in force.

A timeout, a crash or an exit ends that call only: the next call gets a new child.
"""

from __future__ import annotations

import ctypes
import errno
import faulthandler
import fcntl
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import pwd
import resource
import select
import shutil
import signal
import stat
import struct
import sys
import tempfile
import time
import traceback
import types
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grader.results import Status

STREAM_CAP = 8 * 1024  # bytes of stdout / stderr kept per call
FRAME_CAP = 1 << 30  # the most a call may send back
MESSAGE_CAP = 16 * 1024  # characters of a child's message kept
FILE_CAP = 1 << 30  # RLIMIT_FSIZE, self-paced: the largest file a learner's call may write
GRADED_FILE_CAP = 64 << 20  # RLIMIT_FSIZE and scratch tmpfs size, graded
GRADED_TREE_CAP = 32 << 20  # bytes of student/ copied into the scratch folder
GRADED_NPROC = 256  # processes the sandbox user may have, graded (when dropping to it)
SANDBOX_USER = "nobody"
_HEADER = struct.Struct("<Q")
# The statuses a child may report about itself. PASS and FAIL are decided by the grader's comparison, and
# TIMEOUT / CRASHED / SKIPPED by the grader watching the child: a child claiming any of them is lying.
_CHILD_STATUSES = frozenset({Status.TODO, Status.SYNTAX_ERROR, Status.IMPORT_ERROR, Status.EXCEPTION,
                             Status.MEMORY, Status.EXITED, Status.BAD_OUTPUT})
_SETUP_FAILED = 71  # exit code of a child whose graded isolation could not be set up


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
        hide: Sequence[Path] | None = None) -> Generator[Outcome, None, None]:
    """Yield one Outcome per call, in order; a call that kills its child costs only itself.

    `graded` selects the setting for untrusted submissions (module docstring, SECURITY.md).
    `hide` (graded) lists folders the child must not see; by default the fixtures/, stages/ and .grader/ of
    the course found upward from the current folder and from `root`.

    `substitutes` maps a student module name to functions that stand in for it (`--isolate`).
    `cancel` is polled while waiting; when it returns True the child is killed and the run ends.
    """
    _become_subreaper()
    plan = _plan(root, hide) if graded else None
    outcomes = _run(root, calls, limits, substitutes or {}, cancel, plan)
    if plan is None:
        yield from outcomes
    else:  # every child has ended before the caller reads a single expected value
        yield from list(outcomes)


def _run(root: Path, calls: list[Call], limits: Limits, substitutes: dict[str, Any],
         cancel: Callable[[], bool] | None, plan: _Plan | None) -> Iterator[Outcome]:
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


# --- the grader's side --------------------------------------------------------------------------------------


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
               cancel: Callable[[], bool] | None, plan: _Plan | None) -> Iterator[Outcome]:
    global _last_isolation
    known = _children()
    scratch = _scratch(plan) if plan is not None else None
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:  # a [64, 3072] output crosses in a few writes, not a dozen 64 KiB round trips
        fcntl.fcntl(res_w, _F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child never returns from here
        for fd in (res_r, out_r, err_r):
            os.close(fd)
        _child(root, calls, limits, substitutes, res_w, out_w, err_w, plan, scratch)
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
    if not _subreaper:
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


_subreaper = False


def _become_subreaper() -> None:
    """PR_SET_CHILD_SUBREAPER: orphaned descendants become the grader's children, so they can be found."""
    global _subreaper
    if not _subreaper and sys.platform.startswith("linux"):
        _subreaper = _libc().prctl(36, 1, 0, 0, 0) == 0


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


class _Frames:
    """Splits the child's byte stream into (JSON header, [payloads]) frames; refuses anything malformed."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.broken: str | None = None
        self.pending: tuple[dict[str, Any], list[int], int] | None = None  # a parsed header awaiting its payload

    def feed(self, data: bytes) -> Iterator[tuple[dict[str, Any], list[bytes]]]:
        self.buf += data
        while self.broken is None and len(self.buf) >= _HEADER.size:
            if self.pending is None:
                (n,) = _HEADER.unpack_from(self.buf)
                if n > 1 << 20:
                    self.broken = "sent something the grader could not read (was the grader's pipe written to?)"
                    return
                if len(self.buf) < _HEADER.size + n:
                    return
                try:
                    header = json.loads(bytes(self.buf[_HEADER.size:_HEADER.size + n]))
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
            end = _HEADER.size + n + sum(sizes)
            if len(self.buf) < end:
                return  # parsed once; the payload arrives in pipe-sized pieces
            self.pending = None
            parts, at = [], _HEADER.size + n
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
    if fatal and code == _SETUP_FAILED:
        return _final(call, Status.CRASHED, streams, started, f"was not run: the grader could not set up its "
                      f"sandbox ({fatal}). This is a problem with the grading machine, not with your code.")
    return _final(call, Status.EXITED, streams, started, f"ended the process (exit code {code}) instead of "
                  "returning: remove calls to exit(), sys.exit() or os._exit(), and closing the grader's "
                  "pipes.")


# --- the child's side ---------------------------------------------------------------------------------------


class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles from the source file every time: no stat, so no stale bytecode can be used."""

    def path_stats(self, path: str) -> Any:
        raise OSError("always compile learner code from source")


class _StudentFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != "student" and not name.startswith("student."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            spec.loader = _SourceOnlyLoader(name, spec.origin)
        return spec


def _child(root: Path, calls: list[Call], limits: Limits, substitutes: dict[str, Any],
           res_w: int, out_w: int, err_w: int, plan: _Plan | None, scratch: Path | None) -> None:
    code = 0
    grader = os.getppid()
    try:
        os.setpgid(0, 0)
        # Only fds 0-2 and the result pipe survive: a fork inherits every fd the grader holds (a gradebook, a
        # progress file, a test runner's capture), close-on-exec or not, and the learner could write to any.
        res_w = _keep_fds(res_w, out_w, err_w)
        out_w, err_w = res_w + 1, res_w + 2
        if plan is not None:
            try:
                root, got = _isolate(plan, root, scratch, calls)
            except Exception as e:  # noqa: BLE001 - never run untrusted code with less isolation than promised
                _send(res_w, {"fatal": f"{type(e).__name__}: {e}"})
                os._exit(_SETUP_FAILED)
            _send(res_w, {"isolation": got})
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in (devnull, out_w, err_w):
            os.close(fd)
        # Fresh Python streams on fds 0-2: the grader's own may be anything (a test runner's capture, a UI).
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        faulthandler.enable(sys.stderr)  # a segfault shows the learner where, in their captured stderr
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write raises OSError(EFBIG), not a kill
        fsize = GRADED_FILE_CAP if plan is not None else FILE_CAP
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        cap = limits.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        sys.dont_write_bytecode = True
        sys.path.insert(0, str(root))
        sys.meta_path.insert(0, _StudentFinder())
        # If the grader dies (killed, its terminal closed), this child dies with it rather than spin on alone.
        # Set after the credential change of graded mode, which clears it.
        _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != grader:
            os._exit(code)
        for name, functions in substitutes.items():
            stand_in = types.ModuleType(name)
            stand_in.__dict__.update(functions)
            sys.modules[name] = stand_in
        for i, call in enumerate(calls):
            _send(res_w, {"start": i})
            header, parts = _call(root, call)
            sys.stdout.flush()
            sys.stderr.flush()
            _send(res_w, header, parts)
    except BaseException:  # noqa: BLE001 - the child must end here whatever happened, never return into the grader
        code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _keep_fds(res_w: int, out_w: int, err_w: int) -> int:
    """Move the three pipes to fds 3, 4, 5 (result, stdout, stderr), close everything above; return 3."""
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 6) for fd in (res_w, out_w, err_w)]  # clear of 3-5
    for target, fd in zip((3, 4, 5), moved, strict=True):
        os.dup2(fd, target, inheritable=False)
    os.closerange(6, max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1024))
    return 3


# --- graded isolation ---------------------------------------------------------------------------------------

_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 1 << 18
_MS_RDONLY, _MS_REMOUNT, _MS_BIND = 0x1, 0x20, 0x1000
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_PDEATHSIG = 1
_F_SETPIPE_SZ = 1031


@dataclass
class _Plan:
    """What a graded child should do to itself, worked out once per run in the grader."""

    hide: list[str]
    uid: int | None  # the unprivileged user to become (running as root), else None
    gid: int | None
    keep: list[str]  # folders that must stay visible (the Python installation, numpy, the grader)
    unblock: dict[str, list[str]]  # a folder `nobody` cannot enter -> the kept folders below it


def _plan(root: Path, hide: Sequence[Path] | None) -> _Plan:
    needed = [sys.prefix, sys.base_prefix, os.path.dirname(np.__file__),
              os.path.dirname(os.path.dirname(__file__)), *(p for p in sys.path if p and os.path.isdir(p))]
    keep = sorted({os.path.realpath(k) for k in needed})
    if hide is None:
        hide = []
        for start in (Path.cwd(), Path(root)):
            for folder in [start.resolve(), *start.resolve().parents]:
                if (folder / "course.yaml").exists():
                    hide.extend(folder / name for name in ("fixtures", "stages", ".grader"))
                    break
    paths = sorted({os.path.realpath(h) for h in hide if Path(h).is_dir()})
    paths = [h for h in paths if not any(k == h or k.startswith(h + os.sep) for k in keep)]
    uid = gid = None
    if os.geteuid() == 0:
        try:
            user = pwd.getpwnam(SANDBOX_USER)
            uid, gid = user.pw_uid, user.pw_gid
        except KeyError:
            pass
    unblock: dict[str, list[str]] = {}
    if uid is not None:  # e.g. Python installed under /root (pyenv): `nobody` could not import the stdlib
        for k in keep:
            closed = next((str(a) for a in reversed(Path(k).parents) if not os.stat(a).st_mode & 0o001), None)
            if closed is not None:
                unblock.setdefault(closed, []).append(k)
    return _Plan(hide=paths, uid=uid, gid=gid, keep=keep, unblock=unblock)


def _scratch(plan: _Plan) -> Path:
    scratch = Path(tempfile.mkdtemp(prefix="grader-scratch-"))
    if plan.uid is not None:
        os.chown(scratch, plan.uid, plan.gid or 0)
    return scratch


def _read_tree(folder: Path) -> dict[str, bytes]:
    """Regular files under student/, read without following links.

    A symlink or a hard link in a submission could otherwise make the (still privileged) child copy a fixture
    into the scratch folder.
    """
    files: dict[str, bytes] = {}
    total = 0
    for top, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not os.path.islink(os.path.join(top, d))]
        for name in names:
            path = os.path.join(top, name)
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue  # a symlink or unreadable: not copied
            with os.fdopen(fd, "rb") as f:
                st = os.fstat(f.fileno())
                if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or total + st.st_size > GRADED_TREE_CAP:
                    continue
                data = f.read(GRADED_TREE_CAP - total + 1)
            total += len(data)
            files[os.path.relpath(path, folder.parent)] = data
    return files


def _unshare(flags: int) -> bool:
    return bool(_libc().unshare(flags) == 0)


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    libc = _libc()
    if libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None,
                  ctypes.c_ulong(flags), data.encode() if data else None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"mount {target}: {os.strerror(e)}")


def _isolate(plan: _Plan, root: Path, scratch: Path | None, calls: list[Call]) -> tuple[Path, list[str]]:
    """In the graded child, before any learner code: namespaces, scratch folder, environment, user."""
    assert scratch is not None
    got: list[str] = []
    files = _read_tree(root / "student")
    # Input files (a stage's artifacts, such as a checkpoint) live in the fixtures folder about to be hidden:
    # opened inside the new mount namespace before hiding, then bound read-only into the scratch folder.
    inputs = sorted({p for c in calls for p in c.inputs.values() if isinstance(p, str) and os.path.isfile(p)})
    shared: dict[str, int] = {}
    privileged = os.geteuid() == 0
    if not privileged:  # an unprivileged grader may still own a user namespace, and in it net and mount ones
        uid, gid = os.getuid(), os.getgid()
        if _unshare(_CLONE_NEWUSER):
            for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
                with open(f"/proc/self/{name}", "w") as f:
                    f.write(text)
            privileged = True
            got.append("user namespace")
    if privileged and _unshare(_CLONE_NEWNET):
        got.append("network namespace (no network)")
    mounted = False
    if privileged and _unshare(_CLONE_NEWNS):
        _mount("none", "/", None, _MS_REC | _MS_PRIVATE, None)
        shared = {p: os.open(p, os.O_RDONLY) for p in inputs}
        _reopen(plan.unblock)
        owner = f",uid={plan.uid},gid={plan.gid}" if plan.uid is not None else ""
        _mount("tmpfs", str(scratch), "tmpfs", _MS_NOSUID | _MS_NODEV,
               f"size={GRADED_FILE_CAP},mode=0700{owner}")
        for path in plan.hide:
            _mount("tmpfs", path, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "size=4k,mode=0")
        if os.path.isdir("/dev/shm"):
            _mount("tmpfs", "/dev/shm", "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC,
                   f"size={1 << 20},mode=1777")
        mounted = True
        got.append(f"mount namespace ({len(plan.hide)} course folders hidden, scratch is a "
                   f"{GRADED_FILE_CAP >> 20} MiB tmpfs)")
    elif plan.unblock:
        plan.uid = None  # the sandbox user could not even import Python's standard library
        got.append(f"not {SANDBOX_USER}: Python lives below {', '.join(plan.unblock)}, which it cannot enter")
    moved = _share_inputs(shared, scratch / "inputs", bind=mounted)
    for call in calls:
        call.inputs = {k: moved.get(v, v) if isinstance(v, str) else v for k, v in call.inputs.items()}
    if moved:
        got.append(f"{len(moved)} input file(s) read-only in the scratch folder")
    for rel, data in files.items():
        target = scratch / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if plan.uid is not None:
            os.chown(target.parent, plan.uid, plan.gid or 0)
            os.chown(target, plan.uid, plan.gid or 0)
    os.chdir(scratch)
    got.append(f"scratch folder as cwd ({len(files)} files of student/ copied)")
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "LC_CTYPE")
            or k.startswith(("OPENBLAS_", "OMP_", "MKL_"))}
    os.environ.clear()
    os.environ.update(keep, HOME=str(scratch), TMPDIR=str(scratch))
    got.append("cleared environment")
    _scrub()
    if plan.uid is not None and os.geteuid() == 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (GRADED_NPROC, GRADED_NPROC))
        os.setgroups([])
        os.setresgid(plan.gid or plan.uid, plan.gid or plan.uid, plan.gid or plan.uid)
        os.setresuid(plan.uid, plan.uid, plan.uid)
        if os.geteuid() == 0 or os.getuid() == 0:
            raise OSError(errno.EPERM, "could not drop root")
        got.append(f"user {SANDBOX_USER} (uid {plan.uid})")
    elif os.geteuid() != 0 or not mounted:
        got.append(f"own user (uid {os.getuid()}): files it can read, the submission can read")
    _libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if os.geteuid() == 0 and "user namespace" not in got:  # last line of defence: never run a submission as root
        raise OSError(errno.EPERM, "refusing to run a submission as root: no sandbox user could be used "
                      "(run the grader as an ordinary user, or see SECURITY.md)")
    return scratch, got


def _share_inputs(shared: dict[str, int], folder: Path, bind: bool) -> dict[str, str]:
    """Each input file at a path inside the scratch folder: bound read-only, or left where it is if not hidden."""
    if not bind:
        for fd in shared.values():
            os.close(fd)
        return {}
    moved: dict[str, str] = {}
    folder.mkdir(mode=0o755, exist_ok=True)
    for i, (path, fd) in enumerate(sorted(shared.items())):
        target = folder / f"{i}-{os.path.basename(path)}"
        target.touch(mode=0o444)
        _mount(f"/proc/self/fd/{fd}", str(target), None, _MS_BIND, None)
        _mount("none", str(target), None, _MS_BIND | _MS_REMOUNT | _MS_RDONLY, None)
        os.close(fd)
        moved[path] = str(target)
    return moved


def _reopen(unblock: dict[str, list[str]]) -> None:
    """Cover each closed folder with an enterable tmpfs and bind only the kept folders below it back in."""
    for closed, kept in unblock.items():
        fds = [(os.open(k, os.O_PATH), k) for k in kept]
        _mount("tmpfs", closed, "tmpfs", _MS_NOSUID | _MS_NODEV, "size=64k,mode=0755")
        for fd, k in fds:
            os.makedirs(k, mode=0o755, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", k, None, _MS_BIND | _MS_REC, None)
            os.close(fd)


def _scrub() -> None:
    """Forget, in the child's copy of the grader's memory, what earlier grades left there.

    That is result records (mismatches quote expected values) and the course's reference modules.
    """
    from grader import grade
    from grader.results import LIVE, CaseResult, Comparison

    for name in [m for m in sys.modules if m.startswith("_grader_stage_")]:  # references, decoys, generators
        del sys.modules[name]
    for obj in list(LIVE.values()):
        if isinstance(obj, CaseResult):
            obj.comparisons = []
        elif isinstance(obj, Comparison):
            obj.worst, obj.first = None, []
    grade._DECOY_CACHE.clear()  # decoy outputs on hidden cases are as telling as expected values


def _send(fd: int, header: dict[str, Any], parts: list[bytes] = ()) -> None:  # type: ignore[assignment]
    head = json.dumps({**header, "parts": [len(p) for p in parts]}).encode()
    data = _HEADER.pack(len(head)) + head + b"".join(parts)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _student_modules() -> list[str]:
    return sorted(m for m in sys.modules if m == "student" or m.startswith("student."))


def _call(root: Path, call: Call) -> tuple[dict[str, Any], list[bytes]]:
    """Import and call one learner function; every way it can go wrong becomes a status and a message."""
    try:
        module = importlib.import_module(call.module)
    except SyntaxError as e:
        where = f"{_rel(root, e.filename)}:{e.lineno}" if e.filename else call.module
        text = f"\n    {e.text.rstrip()}" if e.text else ""
        return _err(Status.SYNTAX_ERROR, f"{where}: {type(e).__name__}: {e.msg}{text}")
    except ModuleNotFoundError as e:
        if e.name in (call.module, "student"):
            path = call.module.replace(".", "/") + ".py"
            return _err(Status.IMPORT_ERROR, f"{path} is missing. Restore the stub with "
                        f"`python -m grader reset {call.module.rsplit('.', 1)[-1]}`.")
        return _err(Status.IMPORT_ERROR, _trimmed(root, e, "importing your module failed"))
    except NotImplementedError as e:
        return _err(Status.TODO, str(e) or "not started yet")
    except MemoryError:
        return _err(Status.MEMORY, "ran out of memory while importing your module")
    except SystemExit as e:
        return _err(Status.EXITED, f"your module called exit({e.code!r}) while being imported")
    except BaseException as e:
        return _err(Status.IMPORT_ERROR, _trimmed(root, e, "importing your module failed"))
    fn = getattr(module, call.function, None)
    if not callable(fn):
        return _err(Status.IMPORT_ERROR, f"{call.module.replace('.', '/')}.py has no function "
                    f"{call.function}(). Keep the name and parameters of the stub.")
    inputs = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in call.inputs.items()}
    t0 = time.perf_counter()
    try:
        result = fn(**inputs)
    except NotImplementedError as e:
        return _err(Status.TODO, str(e) or "not started yet")
    except MemoryError:
        return _err(Status.MEMORY, "ran out of memory (MemoryError). Check the size of the arrays you "
                    "create.")
    except SystemExit as e:
        return _err(Status.EXITED, f"called exit({e.code!r}) instead of returning a value")
    except BaseException as e:
        return _err(Status.EXCEPTION, _trimmed(root, e, "raised an exception"))
    seconds = time.perf_counter() - t0
    try:
        keys, parts = _encode(result, call.returns)
    except _BadOutput as e:
        return _err(Status.BAD_OUTPUT, str(e))
    except BaseException as e:
        return _err(Status.BAD_OUTPUT, f"returned a value that could not be turned into an array: "
                    f"{type(e).__name__}: {e}")
    return {"status": "ok", "keys": keys, "modules": _student_modules(), "call_seconds": seconds}, parts


def _err(status: Status, message: str) -> tuple[dict[str, Any], list[bytes]]:
    return {"status": status.value, "message": message, "modules": _student_modules()}, []


class _BadOutput(Exception):
    pass


def _encode(result: Any, returns: str) -> tuple[list[str], list[bytes]]:
    if returns == "dict":
        if not isinstance(result, dict):
            raise _BadOutput(f"returned {_describe(result)}; expected a dict of arrays")
        items = [(str(k), v) for k, v in result.items()]
    else:
        items = [("", result)]
    keys, parts = [], []
    for key, value in items:
        array = _as_array(value, key)
        buf = io.BytesIO()
        np.lib.format.write_array(buf, array, allow_pickle=False)
        keys.append(key)
        parts.append(buf.getvalue())
    return keys, parts


def _as_array(value: Any, key: str) -> np.ndarray:
    what = f"the value for '{key}'" if key else "your function"
    if value is None:
        raise _BadOutput(f"{what} returned None. Is a `return` statement missing?")
    if isinstance(value, str | bytes):
        raise _BadOutput(f"{what} returned text ({value[:40]!r}); return an array of numbers")
    if type(value).__module__.split(".")[0] == "torch" and hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if not isinstance(value, np.ndarray | list | tuple | int | float | np.generic):
        raise _BadOutput(f"{what} returned {_describe(value)}; return a numpy array (a nested list or a "
                         "torch tensor also works)")
    odd = _not_plain(value)
    if odd is not None:  # numpy may read a float subclass through __float__ or through its value: ambiguous
        raise _BadOutput(f"{what} returned a value holding {_describe(odd)}; return plain numbers (floats, "
                         "ints or numpy arrays)")
    try:
        array = np.array(value, subok=False)
    except (ValueError, TypeError) as e:
        raise _BadOutput(f"{what} returned a sequence that is not a rectangular array of numbers ({e})")
    if array.dtype.kind not in "biufc":
        raise _BadOutput(f"{what} returned an array of {array.dtype} values; it must hold numbers")
    return np.ascontiguousarray(array)


_PLAIN = (float, int, bool, complex)


def _not_plain(value: Any) -> Any:
    """The first item of a (nested) list or tuple, or the scalar itself, that is not a plain number or array."""
    todo = [value]
    while todo:
        v = todo.pop()
        t = type(v)
        if t in (list, tuple):
            todo.extend(v)
        elif not (t in _PLAIN or isinstance(v, np.ndarray) or (isinstance(v, np.generic) and
                                                                t.__module__ == "numpy")):
            return v
    return None


def _describe(value: Any) -> str:
    return f"a {type(value).__module__}.{type(value).__qualname__}".replace("builtins.", "")


def _rel(root: Path, filename: str) -> str:
    try:
        return str(Path(filename).resolve().relative_to(root))
    except (ValueError, OSError):
        return filename


def _trimmed(root: Path, e: BaseException, what: str) -> str:
    """The traceback cut down to the learner's own frames (and the library line that raised, if any)."""
    student = str(root / "student")
    frames = traceback.extract_tb(e.__traceback__)
    mine = [f for f in frames if f.filename.startswith(student)]
    keep = list(mine)
    if frames and frames[-1] not in mine:
        keep.append(frames[-1])
    lines = [f"{what}:"]
    for f in keep:
        lines.append(f"  {_rel(root, f.filename)}:{f.lineno}, in {f.name}")
        if f.line:
            lines.append(f"    {f.line}")
    lines.append("".join(traceback.format_exception_only(type(e), e)).strip())
    return "\n".join(lines)
