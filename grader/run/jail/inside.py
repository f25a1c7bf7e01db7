"""Inside the jail: a resident process that forks one worker per job; the worker makes the calls as a child does.

Started by bubblewrap as `python -I -S -B -c "... main(RESULT_FD, COMMAND_FD)"`, never imported by the grader. The
resident process imports numpy and grader/run/child.py once, says `ready`, then for each job the grader sends over
the command socket ({"run": name}, with the job's output file and stack file: grader/run/capture.py) forks a
worker, waits for it, kills whatever it left running (kill(-1): every process of the jail but itself) and reports how
the worker ended. It is the jail's init (pid 1, bubblewrap's --as-pid-1), so no process of the jail can signal it
(it ignores SIGINT, the one signal Python would make it take); it reaps the jail's orphans. It never runs learner
code, and it is not dumpable, so the learner's processes (same uid) cannot ptrace it or read its memory.

The worker is grader/run/child.py's loop with the jail's inputs: descriptors 0-2, the result pipe and the two
capture files only; stdout and stderr on the output file, faulthandler on the stack file; RLIMIT_AS, RLIMIT_FSIZE
and no core files; the learner's modules imported from source; each call's inputs loaded from the job's folder
(fresh arrays each call, so no call sees another's in-place changes). A call that leaves a thread or a process
running ends the worker after its result (exit code RETIRED): the resident process kills what it left, and the
grader sends the remaining calls to a new worker, so nothing a call started runs beside the next.
"""

from __future__ import annotations

import json
import os
import re
import resource
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import numpy as np

from grader.run import child, confine
from grader.run.protocol import INPUT_FDS, Call

RESULT_FD, COMMAND_FD = 3, 4
RETIRED = 75  # a worker's exit code after a call that left threads or processes behind: the rest need a new one
ROOT = Path("/submission")
JOBS = Path("/jail/job")
_PR_SET_DUMPABLE = 4


def main(result_fd: int, command_fd: int) -> None:
    """The resident process: one worker per job, until the grader closes the command socket."""
    _fixed_fds(result_fd, command_fd)
    _as_resident()
    child.send(RESULT_FD, {"ready": True})
    command = socket.socket(fileno=COMMAND_FD)
    while True:
        msg, fds, flags, _ = socket.recv_fds(command, 1 << 16, 2 + INPUT_FDS)
        if not msg:
            os._exit(0)
        name, inputs = _job(msg)
        if len(fds) != 2 + inputs or flags & socket.MSG_CTRUNC:
            raise ValueError("a job comes with its output and stack files, and its inputs' descriptors")
        pid = os.fork()
        if pid == 0:
            _worker(name, fds[0], fds[1], fds[2:])  # never returns
        for fd in fds:
            os.close(fd)
        _, status = os.waitpid(pid, 0)
        _kill_strays()
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        child.send(RESULT_FD, {"ended": name, "signal": sig, "code": code})


def _as_resident() -> None:
    """What the resident is before any job: unreadable, without real-time scheduling, deaf to SIGINT."""
    confine.libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # the learner's processes cannot ptrace or read us
    # Real-time scheduling is checked against the target's limits, and the resident (pid 1, the learner's uid) would
    # keep the grader's: a job could set it SCHED_FIFO, inherited by every later worker (red team round 32)
    resource.setrlimit(resource.RLIMIT_RTPRIO, (0, 0))
    resource.setrlimit(resource.RLIMIT_NICE, (0, 0))
    # An init takes only the signals it handles, and Python handles SIGINT: a learner's process ended the jail with
    # it, a free restart (red team round 18). Ignored here; the worker puts Python's handler back.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _fixed_fds(result_fd: int, command_fd: int) -> None:
    """The result pipe on fd 3, the command socket on fd 4, stdin/stdout/stderr kept, every other fd closed."""
    import fcntl

    moved = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (result_fd, command_fd)]
    for target, fd in zip((RESULT_FD, COMMAND_FD), moved, strict=True):
        os.dup2(fd, target, inheritable=False)
    os.closerange(COMMAND_FD + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _job(msg: bytes) -> tuple[str, int]:
    """The job's name and how many input descriptors came with it."""
    job = json.loads(msg)
    name, inputs = job["run"], job.get("inputs", 0)
    if not isinstance(name, str) or not re.fullmatch(r"[0-9]+-[0-9]+", name):
        raise ValueError("bad job name")
    if not isinstance(inputs, int) or not 0 <= inputs <= INPUT_FDS:
        raise ValueError("bad input count")
    return name, inputs


def _kill_strays() -> None:
    """SIGKILL every process the last worker left (setsid or not): all the jail's but this one, its init; reap them."""
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        pass
    while True:  # orphans are handed to the init: wait until no child is left (none can fork any more)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _worker(name: str, out: int, stack: int, given: list[int]) -> None:
    """Run one job's calls and exit; never returns into the resident process."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        inputs = child.keep_fds(RESULT_FD, out, stack, given)  # the command socket is closed with the rest
        confine.libc().prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)  # the learner's own /proc/self works as usual
        job = json.loads((JOBS / name / "job.json").read_text())
        child.streams()
        child.set_limits(int(job["memory_mb"]), graded=True)
        sys.path.insert(0, str(ROOT))
        sys.meta_path.insert(0, child.StudentFinder())
        os.chdir("/tmp")
        folder = JOBS / name
        if child.run_calls(ROOT, job["calls"], lambda spec: (_call(folder, spec, inputs), set()), _left_behind):
            code = RETIRED
    except BaseException:  # noqa: BLE001 - the worker ends here whatever happened
        code = 70
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _call(folder: Path, spec: dict[str, Any], inputs: list[int]) -> Call:
    return Call(case=spec["case"], module=spec["module"], function=spec["function"], returns=spec["returns"],
                keys=tuple(spec.get("keys", ())), observe=tuple((str(m), str(f)) for m, f in spec.get("observe", ())),
                inputs={k: _input(folder, v, inputs) for k, v in spec["inputs"].items()})


def _input(folder: Path, spec: dict[str, Any], inputs: list[int]) -> Any:
    """One input, loaded afresh: an array from a descriptor or an .npy file, an input file by path, a dict, a value.

    A descriptor the job came with is reopened through /proc: an offset of its own, whatever other jails read. Its
    array is a private copy-on-write mapping of the sealed copy, not a read into new memory: writes make pages of
    this call's own (never the copy's: the seals refuse shared writable mappings), no later call sees them, and the
    call starts without copying its inputs (a GPT-2-sized MLP case is 19 MB; bench/jail.py measured ~70 ms a
    submission spent copying). A plain ndarray, as np.load gives: `np.asarray` drops the memmap subclass.
    """
    if "fd" in spec:
        return np.asarray(np.load(f"/proc/self/fd/{inputs[spec['fd']]}", allow_pickle=False, mmap_mode="c"))
    if "npy" in spec:
        value = np.load(folder / spec["npy"], allow_pickle=False)
        return value[()] if spec.get("scalar") else value
    if "file" in spec:
        return str(folder / spec["file"])
    if "dict" in spec:
        return {k: _input(folder, v, inputs) for k, v in spec["dict"].items()}
    return spec["value"]


def _left_behind() -> bool:
    """Whether the last call left a thread in this process or a process in the jail (the resident, the worker).

    Either could print under the next call's name, or change what it finds: the next call then gets a new worker,
    after the resident process has killed them.
    """
    if len(os.listdir("/proc/self/task")) > 1:
        return True
    return sum(name.isdigit() for name in os.listdir("/proc")) > 2
