"""Inside the jail (grader/jail.py): a resident process that forks one worker per job; the worker runs the calls.

Started by bubblewrap as `python -I -S -B -c "... main(RESULT_FD, COMMAND_FD)"`, never imported by the grader. The
resident process imports numpy and grader/child.py once, says `ready`, then for each job the grader sends over the
command socket ({"run": name} and two pipe fds per call: that call's stdout and stderr) forks a worker, waits for
it, kills whatever it left running (kill(-1): every process of the jail but itself and the jail's init) and reports
how the worker ended. It never runs learner code, and it is not dumpable, so the learner's processes (same uid)
cannot ptrace it or read its memory.

The worker: descriptors 0-2 and the result pipe only; RLIMIT_AS, RLIMIT_FSIZE and no core files; the learner's
modules imported from source (grader/child.py's finder and loader); then for each call: its inputs loaded from the
job's folder (fresh arrays each call, so no call sees another's in-place changes), stdout and stderr moved onto
that call's own pipes, `start i`, the call (grader/child.py's `_call`), its result frame. A call that leaves a
thread or a process running ends the worker after its result (exit code RETIRED): the resident process kills what
it left, and the grader sends the remaining calls to a new worker, so nothing a call started runs beside the next.
"""

from __future__ import annotations

import faulthandler
import json
import os
import re
import resource
import signal
import socket
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from grader import child, confine
from grader.results import Status

RESULT_FD, COMMAND_FD = 3, 4
RETIRED = 75  # a worker's exit code after a call that left threads or processes behind: the rest need a new one
ROOT = Path("/submission")
JOBS = Path("/jail/job")
MESSAGE_CAP = 16 * 1024  # characters of a call's message sent back
MAX_FDS = 253  # SCM_RIGHTS' limit per message
_PR_SET_DUMPABLE = 4


def main(result_fd: int, command_fd: int) -> None:
    """The resident process: one worker per job, until the grader closes the command socket."""
    _fixed_fds(result_fd, command_fd)
    confine.libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # the learner's processes cannot ptrace or read us
    child.send(RESULT_FD, {"ready": True})
    command = socket.socket(fileno=COMMAND_FD)
    while True:
        msg, fds, _, _ = socket.recv_fds(command, 1 << 16, MAX_FDS)
        if not msg:
            os._exit(0)
        name = _job_name(msg)
        pid = os.fork()
        if pid == 0:
            _worker(name, fds)  # never returns
        for fd in fds:
            os.close(fd)
        _, status = os.waitpid(pid, 0)
        _kill_strays()
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        child.send(RESULT_FD, {"ended": name, "signal": sig, "code": code})


def _fixed_fds(result_fd: int, command_fd: int) -> None:
    """The result pipe on fd 3, the command socket on fd 4, stdin/stdout/stderr kept, every other fd closed."""
    import fcntl

    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (result_fd, command_fd)]
    for target, fd in zip((RESULT_FD, COMMAND_FD), moved, strict=True):
        os.dup2(fd, target, inheritable=False)
    os.closerange(COMMAND_FD + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _job_name(msg: bytes) -> str:
    name = json.loads(msg)["run"]
    if not isinstance(name, str) or not re.fullmatch(r"[0-9]+-[0-9]+", name):
        raise ValueError("bad job name")
    return name


def _kill_strays() -> None:
    """SIGKILL every process the last worker left (setsid or not): all the jail's but this one and its init."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:  # reap our own (the worker's orphans go to the jail's init, which reaps them)
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def _worker(name: str, fds: list[int]) -> None:
    """Run one job's calls and exit; never returns into the resident process."""
    code = 0
    try:
        os.close(COMMAND_FD)
        confine.libc().prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)  # the learner's own /proc/self works as usual
        job = json.loads((JOBS / name / "job.json").read_text())
        _confine(job["limits"])
        for i, spec in enumerate(job["calls"]):
            call = SimpleNamespace(case=spec["case"], module=spec["module"], function=spec["function"],
                                   returns=spec["returns"], inputs=_inputs(JOBS / name, spec["inputs"]))
            _streams(fds[2 * i], fds[2 * i + 1])
            child.send(RESULT_FD, {"start": i})
            header, parts = _call(call)
            sys.stdout.flush()
            sys.stderr.flush()
            child.send(RESULT_FD, header, parts)
            if i + 1 < len(job["calls"]) and _left_behind():
                code = RETIRED
                break
    except BaseException:  # noqa: BLE001 - the worker ends here whatever happened
        code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _left_behind() -> bool:
    """Whether the last call left a thread in this process or a process in the jail (init, resident, worker).

    Either could print under the next call's name, or change what it finds: the next call then gets a new worker,
    after the resident process has killed them.
    """
    if len(os.listdir("/proc/self/task")) > 1:
        return True
    return sum(name.isdigit() for name in os.listdir("/proc")) > 3


def _confine(limits: dict[str, Any]) -> None:
    """What the worker's process (and all it starts) may use on its own; the cgroup bounds them all together."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write raises OSError(EFBIG), not a kill
    for limit, value in ((resource.RLIMIT_AS, int(limits["memory_mb"]) << 20),
                         (resource.RLIMIT_FSIZE, int(limits["file_bytes"])), (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(limit, (value, value))
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - /dev/null
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    faulthandler.enable(sys.stderr)  # fd 2 at the crash: the crashing call's own stderr
    sys.dont_write_bytecode = True
    sys.path.insert(0, str(ROOT))
    sys.meta_path.insert(0, child._StudentFinder())
    os.chdir("/tmp")


def _inputs(folder: Path, specs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One call's inputs: arrays loaded afresh from .npy files, input files by path, plain values as they are."""
    out: dict[str, Any] = {}
    for key, spec in specs.items():
        if "npy" in spec:
            value = np.load(folder / spec["npy"], allow_pickle=False)
            out[key] = value[()] if spec.get("scalar") else value
        elif "file" in spec:
            out[key] = str(folder / spec["file"])
        else:
            out[key] = spec["value"]
    return out


def _streams(out: int, err: int) -> None:
    """From now on, fds 1 and 2 are this call's pipes; earlier calls' pipes stay with whatever still holds them."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.close(out)
    os.close(err)


def _call(call: Any) -> tuple[dict[str, Any], list[bytes]]:
    """grader/child.py's `_call`, with its message cut to MESSAGE_CAP and never an exception out of it.

    A process the learner forked that returns (or raises) out of their function comes back through here: it is not
    the worker, so it exits at once and sends nothing, instead of running the worker's loop a second time.
    """
    worker = os.getpid()
    try:
        header, parts = child._call(ROOT, call, set())
    except BaseException as e:  # noqa: BLE001 - e.g. an exception whose __str__ raises while being described
        header, parts = {"status": Status.EXCEPTION.value, "message": f"raised {type(e).__name__}, which could not "
                         "be described", "modules": child._student_modules()}, []
    if os.getpid() != worker:
        os._exit(0)
    if isinstance(header.get("message"), str):
        header["message"] = header["message"][:MESSAGE_CAP]
    return header, parts
