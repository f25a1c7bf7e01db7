"""The child's side of the sandbox: import the learner's code from source, call it, send back what it returned.

Runs only in a process forked by grader/sandbox.py, and never returns into the grader: `main` ends with
os._exit. In order: its own process group; only fds 0-2 and the result pipe kept; in graded mode the confinement
of grader/confine.py; stdin on /dev/null, stdout and stderr on the grader's pipes; file-size and address-space
caps; death with the grader; the learner's modules compiled from source (never a stale __pycache__: its key is
whole-second mtimes and sizes, which two quick saves can share). Each call is framed as `start i`, then its
result: a JSON header and .npy payloads.
"""

from __future__ import annotations

import faulthandler
import fcntl
import importlib
import importlib.machinery
import os
import resource
import signal
import sys
import time
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from grader.results import Status
from grader.run import capture, confine, failures, observe
from grader.run.protocol import Call, Limits, encode
from grader.run.values import BadOutput, Payload, encode_value

FILE_CAP = 1 << 30  # RLIMIT_FSIZE, self-paced: the largest file a learner's call may write
GRADED_FILES = 1024  # RLIMIT_NOFILE, graded: with the jail's 64 processes, at most 65,536 of the machine's files
SETUP_FAILED = 71  # exit code of a child whose graded isolation could not be set up
_PR_SET_PDEATHSIG = 1


class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles from the source file every time: no stat, so no stale bytecode can be used."""

    def path_stats(self, path: str) -> Mapping[str, Any]:
        raise OSError("always compile learner code from source")


class StudentFinder:  # a meta path finder by protocol: importlib.abc would pull in importlib.resources
    """Finds `student` modules with a loader that always compiles from source."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if name != "student" and not name.startswith("student."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            spec.loader = _SourceOnlyLoader(name, spec.origin)
        return spec


RES_FD, OUT_FD, STACK_FD = 3, 4, 5  # in the child: the result pipe, the output file, the stack file


def main(root: Path, calls: list[Call], limits: Limits, substitutes: dict[str, Any], fds: tuple[int, int, int],
         plan: confine.Plan | None, scratch: Path | None) -> None:
    """Run every call in this (forked) process, send each result, and exit: never returns into the grader.

    `fds` are the result pipe's write end, the output file and the stack file (grader/run/capture.py).
    """
    code = 0
    grader = os.getppid()
    try:
        os.setpgid(0, 0)
        # Only fds 0-2 and these three survive: a fork inherits every fd the grader holds (a gradebook, a progress
        # file, a test runner's capture), close-on-exec or not, and the learner could write to any.
        keep_fds(*fds)
        if plan is not None:
            try:
                root, got = confine.isolate(plan, root, scratch, calls)
            except Exception as e:  # noqa: BLE001 - never run untrusted code with less isolation than promised
                send(RES_FD, {"fatal": f"{type(e).__name__}: {e}"})
                os._exit(SETUP_FAILED)
            send(RES_FD, {"isolation": got})
        streams()
        set_limits(limits.memory_mb, graded=plan is not None)
        sys.path.insert(0, str(root))
        sys.meta_path.insert(0, StudentFinder())
        # If the grader dies (killed, its terminal closed), this child dies with it rather than spin on alone.
        # Set after the credential change of graded mode, which clears it.
        confine.libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != grader:
            os._exit(code)
        for name, functions in substitutes.items():
            stand_in = types.ModuleType(name)
            stand_in.__dict__.update(functions)
            sys.modules[name] = stand_in
        shared = _shared(calls)
        run_calls(root, calls, lambda c: (c, shared))
    except BaseException:  # noqa: BLE001 - the child must end here whatever happened, never return into the grader
        code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _shared(calls: list[Call]) -> set[int]:
    """The inputs two calls share (by id), to be copied before each call.

    This process is already a private copy of the inputs; only an array two calls share needs copying, so that one
    call's in-place change cannot reach the next (a GPT-2-sized MLP case is 19 MB of weights).
    """
    seen: dict[int, int] = {}
    for c in calls:
        for v in c.inputs.values():
            seen[id(v)] = seen.get(id(v), 0) + 1
    return {k for k, n in seen.items() if n > 1}


def run_calls(root: Path, calls: Iterable[Any], prepare: Callable[[Any], tuple[Call, set[int]]],
              left_behind: Callable[[], bool] | None = None) -> bool:
    """Each call between `start i` and its result; its printed output travels in its own result frame.

    `prepare` turns an item of `calls` into the Call to make (the jail loads its inputs from files here) and the
    ids of inputs to copy first. With `left_behind`, the loop stops after a call that left a thread or a process
    running (True is returned): whatever it left must not run beside the next call (the jail's worker then exits,
    and its resident process kills what was left before the next call runs in a new worker).
    """
    me = os.getpid()
    items = list(calls)
    for i, item in enumerate(items):
        call, shared = prepare(item)
        capture.empty(OUT_FD)
        send(RES_FD, {"start": i, "pid": me})
        try:
            header, parts = call_function(root, call, shared)
        except BaseException as e:  # noqa: BLE001 - e.g. an exception whose __str__ raises while described
            header, parts = failures.err(Status.EXCEPTION, f"raised {type(e).__name__}, which could not be described")
        if os.getpid() != me:  # a process the learner forked returned from their function: it sends nothing
            os._exit(0)
        sys.stdout.flush()
        sys.stderr.flush()
        header["output"], header["output_cut"] = capture.read(OUT_FD)
        send(RES_FD, header, parts)
        if left_behind is not None and i + 1 < len(items) and left_behind():
            return True
    return False


def streams() -> None:
    """Stdin on /dev/null; stdout and stderr both on the output file; faulthandler on the stack file."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(OUT_FD, 1)
    os.dup2(OUT_FD, 2)
    # Fresh Python streams on fds 0-2: the grader's own may be anything (a test runner's capture, a UI).
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    # Line-buffered, both: lines land in the output file in the order they were printed, whichever stream.
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    faulthandler.enable(sys.stderr)  # a segfault shows the learner where, in their captured output
    faulthandler.register(signal.SIGUSR1, file=STACK_FD, all_threads=False)  # the grader's ask, at a timeout
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write raises OSError(EFBIG), not a kill


def set_limits(memory_mb: int, graded: bool) -> None:
    """File size (64 MiB graded), address space and no core files for this process and what it starts."""
    fsize = confine.GRADED_FILE_CAP if graded else FILE_CAP
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    cap = memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (1, 1))  # 1, not 0: a core_pattern that pipes to a helper (apport,
    # systemd-coredump) ignores 0 and starts it as root for every crash; 1 stops that and any core file (round 23)
    if graded:  # open files per process: the machine's file table is shared (round 4 held 1.2 M files in one call)
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(GRADED_FILES, _hard_nofile()), min(GRADED_FILES,
                                                                                          _hard_nofile())))
        # no real-time scheduling and no raised priority, whatever the grader was started with (a systemd
        # LimitRTPRIO=, docker's --ulimit rtprio): cgroup v1's CPU quota does not throttle a SCHED_FIFO thread
        resource.setrlimit(resource.RLIMIT_RTPRIO, (0, 0))
        resource.setrlimit(resource.RLIMIT_NICE, (0, 0))
    sys.dont_write_bytecode = True


def _hard_nofile() -> int:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return GRADED_FILES if hard == resource.RLIM_INFINITY else hard


def keep_fds(res_w: int, out: int, stack: int, extra: Sequence[int] = ()) -> list[int]:
    """Move the result pipe and the two capture files to fds 3, 4, 5, `extra` to 6 on, and close everything above.

    Returns where `extra` now are.
    """
    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 6 + len(extra)) for fd in (res_w, out, stack, *extra)]
    kept = list(range(6, 6 + len(extra)))
    for target, fd in zip((RES_FD, OUT_FD, STACK_FD, *kept), moved, strict=True):
        os.dup2(fd, target, inheritable=False)
    os.closerange(6 + len(extra), max(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 1024))
    return kept


def send(fd: int, header: dict[str, Any], parts: list[Payload] | tuple[Payload, ...] = ()) -> None:
    """One frame (protocol.encode's bytes), written whole.

    The header, then each payload from its own buffer: a model's logits are not copied once more into one frame.
    """
    pieces = [piece for part in parts for piece in part]
    for piece in (encode(header, (), sizes=[len(head) + data.nbytes for head, data in parts]), *pieces):
        view = memoryview(piece).cast("B")
        while view:
            view = view[os.write(fd, view):]


def call_function(root: Path, call: Call, shared: set[int] | frozenset[int] = frozenset()
                  ) -> tuple[dict[str, Any], list[Payload]]:
    """Import and call one learner function; every way it can go wrong becomes a status and a message."""
    module, failed = failures.import_module(root, call)
    if failed is not None:
        return failed
    fn = getattr(module, call.function, None)
    if not callable(fn):
        return failures.err(Status.IMPORT_ERROR, f"{call.module.replace('.', '/')}.py has no function "
                    f"{call.function}(). Keep the name and parameters of the stub.")
    inputs = {k: _copy(v) if id(v) in shared or isinstance(v, dict) else v for k, v in call.inputs.items()}
    record, restore = observe.install(call.observe) if call.observe else (None, None)
    t0 = time.perf_counter()
    try:
        result = fn(**inputs)
    except NotImplementedError as e:
        return failures.err(Status.TODO, str(e) or "not started yet", failures.raised_in(root, e))
    except MemoryError:
        return failures.err(Status.MEMORY, "ran out of memory (MemoryError). Check the size of the arrays you create.")
    except SystemExit as e:
        return failures.err(Status.EXITED, f"called exit({e.code!r}) instead of returning a value")
    except BaseException as e:
        return failures.err(Status.EXCEPTION, failures.trimmed(root, e, "raised an exception"),
                            failures.raised_in(root, e))
    finally:
        if restore is not None:
            restore()
    seconds = time.perf_counter() - t0
    try:
        keys, parts = encode_value(result, call.returns, call.keys)
    except BadOutput as e:
        return failures.err(Status.BAD_OUTPUT, str(e))
    except BaseException as e:
        return failures.err(Status.BAD_OUTPUT, f"returned a value that could not be turned into an array: "
                    f"{type(e).__name__}: {e}")
    declared = call.returns == "tuple" and type(result) is tuple  # (out, (k, v)) is what such a function returns
    returned = type(result).__name__ if type(result) in (list, tuple) and not declared else None
    header = {"status": "ok", "keys": keys, "modules": failures.student_modules(), "call_seconds": seconds,
              "returned": returned}
    if record is not None:
        header["observed"] = record
    return header, parts


def _copy(value: Any) -> Any:
    """An input made private to one call.

    A shared array is copied; a dict of arrays (a model's weights, 0.5 GB for GPT-2 124M, often shared by every case)
    always becomes a new dict of read-only views, so no call can change what another gets, nor copy, by writing, the
    pages this process shares with the grader.
    """
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, dict):
        if set(map(type, value.values())) <= _PLAIN:  # a vocabulary (50k entries): copied at C speed, per call
            return dict(value)
        return {k: _read_only(v) for k, v in value.items()}
    return value


_PLAIN = {int, float, str, bool, type(None)}  # values nothing can change in place


def _read_only(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        view = value.view()
        view.flags.writeable = False
        return view
    return _copy(value)
