"""Starting and ending one jail: its cgroup, then bubblewrap exec'd (never a fork that runs learner code).

What bubblewrap's process does before exec (the cgroup joined, the view of its sources as root, the fresh uid, the
parent-death signal) is grader/run/jail/prepare.py.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.errors import GraderError
from grader.records import Record, field
from grader.run.jail import cgroups, seccomp
from grader.run.jail import staging as staging_folder
from grader.run.jail.mounts import (
    JOBS_IN_JAIL,
    LIB_IN_JAIL,
    ROOT_IN_JAIL,
    SITE_IN_JAIL,
    Bind,
    Runtime,
    Settings,
    bwrap_args,
    proc_standins,
    runtime,
)
from grader.run.jail.prepare import as_seen, looked_up_libc, prepare
from grader.run.protocol import Frames

UID_BASE = 1_600_000_000  # fresh uids, one per jail: UID_BASE + 2**29 stays below 2**31
BOOT = ("import sys; sys.path[:0] = [{lib!r}, {site!r}]; from grader.run.jail.inside import main; "
        "main({res}, {cmd})")
_F_SETPIPE_SZ = 1031
# How long a killed jail's processes may take to end. A process in an uninterruptible wait (a direct read from a slow
# disk) ends only when the wait does; a jail still ending is still running, so the phase it ran in is not left
# before this (red team round 12: a hidden jail killed slowly read on beside another learner's public call).
EMPTIED_WITHIN = 60.0


class JailError(GraderError):
    """A jail could not be started: the grading machine's problem, never the submission's."""


class JailStuck(GraderError):
    """A killed jail's processes did not end within EMPTIED_WITHIN: the submission's row is an error, not a grade."""


def fresh_uid() -> int:
    """An unprivileged uid no account has, drawn at random for one jail.

    Random, not counted from the worker's pid: a jail reads its own uid in its mount options, and a counted one told
    it the worker's pid and how many jails that worker had started (red team round 6). Two jails at once draw the
    same one of 2**29 with a chance of about 2e-9.
    """
    for _ in range(128):
        uid = UID_BASE + secrets.randbelow(1 << 29)
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
    raise JailError("no free uid for a jail")


class Box(Record):
    """One running jail: bubblewrap's process, its cgroup, and the grader's ends of its pipes and socket."""

    proc: subprocess.Popen[bytes]
    cgroup: cgroups.Cgroup
    staging: Path  # the grader's folder the jail's student/ and jobs come from (grader/run/jail/staging.py)
    uid: int | None
    results: int  # read end of the result pipe
    diag: int  # read end of bubblewrap's (and the resident process's) stdout and stderr
    command: socket.socket
    memory_mb: int
    ready: bool = False
    ran: bool = False  # learner code has run in this jail (a `start` frame came): a worker dying is then its doing
    said: bytearray = field(default_factory=bytearray)  # the last 4 KiB of what came on `diag`
    frames: Frames = field(default_factory=Frames)  # the result pipe's frames, across the jail's jobs
    jobs: int = 0
    stalled: bool = False  # its resident took no more jobs: a job was refused at the command socket (job.STALLED)

    def hear(self, data: bytes) -> None:
        """Keep the end of what bubblewrap and the resident process said (for a JailError's message)."""
        self.said += data
        del self.said[:-4096]

    def kill(self) -> dict[str, Any]:
        """End every process of the jail and wait until its cgroup is empty; what it used, for `Jail.stats`.

        Raises JailStuck when some process outlives EMPTIED_WITHIN (its group is then left for a later sweep).
        """
        stats: dict[str, Any] = {"uid": self.uid, "cgroup": self.cgroup.name}
        members = self.cgroup.members()
        emptied = False
        try:
            emptied = stats["emptied"] = self.cgroup.kill(wait=EMPTIED_WITHIN)
            stats["memory_peak"] = self.cgroup.memory_peak()
            stats["oom_kills"] = self.cgroup.oom_kills()
        finally:
            with contextlib.suppress(OSError):
                self.proc.kill()
            try:  # bubblewrap's exit hands the jail's init to us (a subreaper): it is reaped here
                self.proc.wait(timeout=EMPTIED_WITHIN)
            except subprocess.TimeoutExpired:
                emptied = False
            _reap([pid for pid in members if pid != self.proc.pid])
            if emptied:
                self.cgroup.remove()
            self.command.close()
            for fd in (self.results, self.diag):
                os.close(fd)
        if not emptied:
            raise JailStuck(f"the jail's processes did not end within {EMPTIED_WITHIN:g} s of being killed (stuck "
                            "in the kernel, e.g. reading a slow disk); this submission is not graded: grade it again "
                            "alone (`batch --only ID`) and look at what its code does")
        return stats

    def idle(self) -> bool:
        """Whether nothing runs in the jail but bubblewrap's process and the resident, its init.

        After a job, the resident kills what the job left (kill(-1)) before it says the job ended, so nothing of the
        calls so far can then run beside the next.
        """
        if self.proc.poll() is not None:
            return False
        others = [pid for pid in self.cgroup.members() if pid != self.proc.pid]
        if len(others) != 1:
            return False
        try:
            status = Path(f"/proc/{others[0]}/status").read_text()
        except OSError:
            return False
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        return fields.get("NSpid", "").split()[-1:] == ["1"] and fields.get("PPid", "").strip() == str(self.proc.pid)

    def diagnosis(self) -> str:
        """What bubblewrap (or the resident process) said before the jail failed to start, for a JailError."""
        try:
            self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.set_blocking(self.diag, False)
            while data := os.read(self.diag, 1 << 16):
                self.hear(data)
        except OSError:
            pass
        said = self.said.decode("utf-8", "replace").strip()
        return said or f"bubblewrap exited with {self.proc.returncode}, saying nothing"


def _reap(pids: list[int], wait: float = 2.0) -> None:
    """Reap those of `pids` that are our children, waiting a moment for each to exit.

    A pid namespace's init leaves its cgroup before it has reaped the namespace's other processes, so an empty group
    does not yet mean a reapable init.
    """
    deadline = time.monotonic() + wait
    for pid in pids:
        while True:
            try:
                if os.waitpid(pid, os.WNOHANG)[0] or time.monotonic() > deadline:
                    break
            except ChildProcessError:
                break
            time.sleep(0.001)


def start(staging: Path, layout: cgroups.Layout, settings: Settings, memory_mb: int) -> Box:
    """Start one jail on a staging folder: its cgroup, then bubblewrap (joined to it, as a fresh uid when root)."""
    rt = runtime(settings.packages)
    root = os.geteuid() == 0  # bubblewrap runs as a fresh uid, and reaches its sources through the view
    binds, view = as_seen((*rt.binds, Bind(str(staging / "student"), f"{ROOT_IN_JAIL}/student"),
                           Bind(str(staging / "jobs"), JOBS_IN_JAIL)), root)
    uid = fresh_uid() if root else None
    staging_folder.sweep_groups(layout)  # what graders killed earlier left
    cg = cgroups.Cgroup(layout, memory_mb, settings.pids, settings.cpus)
    try:
        return spawn(cg, uid, rt, binds, view, settings, memory_mb, staging)
    except BaseException:
        cg.kill()
        cg.remove()
        raise


def spawn(cg: cgroups.Cgroup, uid: int | None, rt: Runtime, binds: Sequence[Bind],
          view: list[tuple[str, bool]] | None, settings: Settings, memory_mb: int, staging: Path) -> Box:
    """Exec bubblewrap with the jail's options on a memfd, a result pipe and a command socket; return the box."""
    filter_fd = seccomp.descriptor()  # bubblewrap loads it last: the jail's processes all run under it
    args = bwrap_args(rt, binds, settings)
    standins = {}  # fixed host figures over /proc's (mounts.proc_standins), each from a memfd bubblewrap reads
    for dest, data in proc_standins(memory_mb).items():
        fd = os.memfd_create("proc-standin", 0)
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
        standins[dest] = fd
    at = args.index("--remount-ro")
    args[at:at] = [a for dest, fd in standins.items() for a in ("--ro-bind-data", str(fd), dest)]
    args += ["--seccomp", str(filter_fd)]
    argfd = os.memfd_create("bwrap-args", 0)
    os.write(argfd, b"".join(a.encode() + b"\0" for a in args))
    os.lseek(argfd, 0, os.SEEK_SET)
    res_r, res_w = os.pipe()
    diag_r, diag_w = os.pipe()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        try:
            fcntl.fcntl(res_w, _F_SETPIPE_SZ, 1 << 20)  # a large output crosses in few writes
        except OSError:
            pass
        boot = BOOT.format(lib=LIB_IN_JAIL, site=SITE_IN_JAIL, res=res_w, cmd=theirs.fileno())
        proc = subprocess.Popen(
            [shutil.which("bwrap") or "bwrap", "--args", str(argfd), "--", rt.python, "-I", "-S", "-B", "-c", boot],
            stdin=subprocess.DEVNULL, stdout=diag_w, stderr=diag_w, env={}, cwd="/",
            pass_fds=(argfd, filter_fd, res_w, theirs.fileno(), *standins.values()), close_fds=True,
            preexec_fn=functools.partial(prepare, cg.procs_files(), view, uid, looked_up_libc()))
    except (OSError, subprocess.SubprocessError) as e:
        os.close(res_r)
        ours.close()
        os.close(diag_w)
        diag_w = -1
        raise JailError(f"could not start the jail: {e}; {_read_now(diag_r)}") from e
    finally:
        for fd in (argfd, filter_fd, res_w, diag_w, *standins.values()):
            if fd >= 0:
                os.close(fd)
        theirs.close()
    return Box(proc, cg, staging, uid, res_r, diag_r, ours, memory_mb)


def _read_now(fd: int) -> str:
    """Whatever is already waiting in `fd` (bubblewrap's complaint), without blocking."""
    try:
        os.set_blocking(fd, False)
        return os.read(fd, 4096).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    finally:
        os.close(fd)
