"""Runs the learner's functions in a child process and brings back their outputs as plain arrays. Never prints.

The child is forked from the grader after numpy is imported (so a grade costs a fork, not an interpreter start),
and before any expected output is read: only the inputs exist in its memory. In the child: its own process group,
stdin on /dev/null, stdout and stderr captured, an address-space cap, the learner's modules compiled from source
(never a stale __pycache__: its key is whole-second mtimes and sizes, which two quick saves can share). Outputs come
back over a private pipe as .npy bytes read with allow_pickle=False, so nothing the child sends can run code in
the grader. After each child its whole process group is killed, so nothing it started survives.

A timeout, a crash or an exit ends that call only: the next call gets a new child.
"""

from __future__ import annotations

import faulthandler
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import resource
import select
import signal
import struct
import sys
import time
import traceback
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grader.results import Status

STREAM_CAP = 8 * 1024  # bytes of stdout / stderr kept per call
FRAME_CAP = 1 << 30  # the most a call may send back
_HEADER = struct.Struct("<Q")


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
        cancel: Callable[[], bool] | None = None, graded: bool = False) -> Iterator[Outcome]:
    """Yield one Outcome per call, in order; a call that kills its child costs only itself.

    `graded` selects the setting for untrusted submissions (not yet stricter than self-paced).

    `substitutes` maps a student module name to functions that stand in for it (`--isolate`).
    `cancel` is polled while waiting; when it returns True the child is killed and the run ends.
    """
    done = 0
    while done < len(calls):
        for outcome in _one_child(root, calls[done:], limits, substitutes or {}, cancel):
            done += 1
            yield outcome
        if cancel is not None and cancel():
            return


# --- the grader's side ---------------------------------------------------------------------------------------


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
               cancel: Callable[[], bool] | None) -> Iterator[Outcome]:
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child never returns from here
        os.close(res_r), os.close(out_r), os.close(err_r)
        _child(root, calls, limits, substitutes, res_w, out_w, err_w)
    os.close(res_w), os.close(out_w), os.close(err_w)
    try:
        os.setpgid(pid, pid)  # also done in the child; whichever runs first wins the race
    except OSError:
        pass
    streams = {out_r: _Stream(), err_r: _Stream()}
    frames = _Frames()
    current, started = 0, time.monotonic()
    open_fds = [res_r, out_r, err_r]
    reported = 0
    try:
        while open_fds:
            if cancel is not None and cancel():
                return
            wait = started + limits.timeout - time.monotonic()
            if wait <= 0:
                yield _final(calls[current], Status.TIMEOUT, streams, started,
                             f"took longer than {limits.timeout:g} s and was stopped. Look for a loop that never "
                             "ends, or work that grows much faster than the input.")
                return
            ready, _, _ = select.select(open_fds, [], [], min(wait, 0.05) if cancel else wait)
            for fd in ready:
                data = os.read(fd, 1 << 20)
                if not data:
                    open_fds.remove(fd)
                elif fd != res_r:
                    streams[fd].add(data)
                else:
                    for header, parts in frames.feed(data):
                        if "start" in header:
                            current, started = header["start"], time.monotonic()
                            for s in streams.values():
                                s.kept.clear()
                                s.dropped = 0
                            continue
                        _drain(streams, [f for f in open_fds if f != res_r])
                        yield _outcome(calls[current], header, parts, streams, started)
                        reported += 1
                        if reported == len(calls):
                            return  # a straggler holding the pipes open must not keep us waiting
                    if frames.broken:
                        yield _final(calls[current], Status.BAD_OUTPUT, streams, started, frames.broken)
                        return
        if current >= reported:
            yield _death(calls[current], pid, streams, started, limits.timeout)
    finally:
        _end(pid)
        for fd in (res_r, out_r, err_r):
            os.close(fd)


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


class _Frames:
    """Splits the child's byte stream into (JSON header, [payload bytes]) frames; refuses anything malformed."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.broken: str | None = None

    def feed(self, data: bytes) -> Iterator[tuple[dict[str, Any], list[bytes]]]:
        self.buf += data
        while self.broken is None and len(self.buf) >= _HEADER.size:
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
            except (ValueError, AssertionError, TypeError, AttributeError):
                self.broken = "sent something the grader could not read (was the grader's pipe written to?)"
                return
            if sum(sizes) > FRAME_CAP:
                self.broken = f"returned more than {FRAME_CAP >> 20} MiB of output"
                return
            end = _HEADER.size + n + sum(sizes)
            if len(self.buf) < end:
                return
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
    common = {"stdout": out.text(), "stderr": err.text(), "seconds": time.monotonic() - started,
              "modules": [str(m) for m in header.get("modules", [])]}
    if header.get("status") != "ok":
        try:
            status = Status(header.get("status"))
        except ValueError:
            status = Status.BAD_OUTPUT
        return Outcome(call.case, status, message=str(header.get("message", "")), **common)
    keys = header.get("keys", [])
    if len(keys) != len(parts):
        return Outcome(call.case, Status.BAD_OUTPUT, message="sent an output the grader could not read", **common)
    value = {}
    for key, data in zip(keys, parts, strict=True):
        try:
            value[str(key)] = np.lib.format.read_array(io.BytesIO(data), allow_pickle=False)
        except Exception:  # any malformed bytes: the child's problem, never the grader's
            return Outcome(call.case, Status.BAD_OUTPUT, message="returned a value the grader could not read as "
                           "an array of numbers", **common)
    return Outcome(call.case, None, value=value, **common)


def _death(call: Call, pid: int, streams: dict[int, _Stream], started: float, timeout: float) -> Outcome:
    """The child closed every pipe before reporting the current call: say how it ended."""
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done:
            break
        if time.monotonic() > started + timeout:
            return _final(call, Status.TIMEOUT, streams, started, f"closed its output and then ran for longer "
                          f"than {timeout:g} s; it was stopped")
        time.sleep(0.002)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        if sig == signal.SIGKILL:
            return _final(call, Status.CRASHED, streams, started, "was killed (SIGKILL): by the system for using "
                          "too much memory, or by the code itself. Check the size of the arrays you create.")
        return _final(call, Status.CRASHED, streams, started, f"crashed: the process was killed by {name}. "
                      "This happens with a segmentation fault in native code or an abort().")
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else status
    return _final(call, Status.EXITED, streams, started, f"ended the process (exit code {code}) instead of "
                  "returning: remove calls to exit(), sys.exit() or os._exit(), and closing the grader's pipes.")


# --- the child's side ----------------------------------------------------------------------------------------


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
           res_w: int, out_w: int, err_w: int) -> None:
    code = 0
    try:
        os.setpgid(0, 0)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in (devnull, out_w, err_w):
            os.close(fd)
        # Fresh Python streams on fds 0-2: the grader's own may be anything (a test runner's capture, a watch UI).
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        faulthandler.enable(sys.stderr)  # a segfault shows the learner where, in their captured stderr
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        cap = limits.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        sys.dont_write_bytecode = True
        sys.path.insert(0, str(root))
        sys.meta_path.insert(0, _StudentFinder())
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
        return _err(Status.IMPORT_ERROR, f"{call.module.replace('.', '/')}.py has no function {call.function}(). "
                    "Keep the name and parameters of the stub.")
    inputs = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in call.inputs.items()}
    t0 = time.perf_counter()
    try:
        result = fn(**inputs)
    except NotImplementedError as e:
        return _err(Status.TODO, str(e) or "not started yet")
    except MemoryError:
        return _err(Status.MEMORY, "ran out of memory (MemoryError). Check the size of the arrays you create.")
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
        raise _BadOutput(f"{what} returned {_describe(value)}; return a numpy array (a nested list or a torch "
                         "tensor also works)")
    try:
        array = np.array(value, subok=False)
    except (ValueError, TypeError) as e:
        raise _BadOutput(f"{what} returned a sequence that is not a rectangular array of numbers ({e})")
    if array.dtype.kind not in "biufc":
        raise _BadOutput(f"{what} returned an array of {array.dtype} values; it must hold numbers")
    return np.ascontiguousarray(array)


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
