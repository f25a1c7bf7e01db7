"""Starting and ending one jail: its cgroup, then bubblewrap exec'd (never a fork that runs learner code).

As root, bubblewrap runs as a fresh unprivileged uid (one per jail, no account has it), which makes its namespaces
unprivileged. Such a uid cannot enter a Python installed below /root, nor the grader's private staging folder: in
bubblewrap's process, before exec and still as root, every bound source is opened and bound at VIEW/<i> on a fresh
tmpfs, in a mount namespace of that process alone (`prepare`); nothing of the host changes. The uid change clears
the parent-death signal, so it is set after it: bubblewrap dies with the grader process that started it, and
`--die-with-parent` takes the jail with it.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.errors import GraderError
from grader.records import Record, field
from grader.run import confine
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
from grader.run.protocol import Frames

UID_BASE = 1_600_000_000  # fresh uids, one per jail: UID_BASE + 2**29 stays below 2**31
VIEW = "/tmp"  # where the view is mounted, in bubblewrap's own mount namespace (its sources are opened before)
BOOT = ("import sys; sys.path[:0] = [{lib!r}, {site!r}]; from grader.run.jail.inside import main; "
        "main({res}, {cmd})")
_MS_BIND, _MS_REC, _MS_PRIVATE, _MS_NOSUID, _MS_NODEV = 0x1000, 0x4000, 1 << 18, 0x2, 0x4
_CLONE_NEWNS = 0x00020000
_PR_SET_PDEATHSIG = 1
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


@functools.cache
def _libc() -> Any:
    """The C library, with the calls `prepare` makes already looked up.

    The child of a process with threads (the warm spare's starter, box.py) must not dlopen or dlsym: another thread
    may hold the loader's lock at the fork.
    """
    lib = confine.libc()
    for name in ("unshare", "mount", "prctl"):
        getattr(lib, name)  # ctypes keeps each function it found
    return lib


def prepare(procs: list[str], view: list[tuple[str, bool]] | None, uid: int | None, lib: Any) -> None:
    """In bubblewrap's process, before exec: join the jail's cgroup, build the view, become `uid`, die with us.

    It runs between fork and exec in a process that may have other threads: only system calls, and `lib`'s
    functions looked up before the fork, no import and no lock.
    """
    try:
        pid = str(os.getpid()).encode()
        for path in procs:
            _write(path, pid)
        if view is not None:
            _view(view, lib)
        # The first to go when the machine runs out of memory: written while still root. Where the grader holds
        # CAP_SYS_RESOURCE this is also the least the jail may write there later; without it (Docker's default set,
        # red team round 9) the jail may lower it again, as far as the floor the grader itself was started with,
        # and its own cgroup's memory limit is what bounds it (red team round 8: a jail inherited -1000 and kept it)
        with contextlib.suppress(OSError):
            _write("/proc/self/oom_score_adj", b"1000")
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        lib.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # after the uid change, which clears it
    except BaseException as e:
        os.write(2, f"grader: could not prepare the jail: {type(e).__name__}: {e}\n".encode())
        raise


def _write(path: str, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _view(view: list[tuple[str, bool]], lib: Any) -> None:
    """Each source at VIEW/<i>, in a private mount namespace, opened before VIEW is covered by a tmpfs."""
    if lib.unshare(_CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS) failed")
    _mount(lib, "none", "/", None, _MS_REC | _MS_PRIVATE)
    fds = [os.open(source, os.O_PATH | os.O_CLOEXEC) for source, _ in view]
    _mount(lib, "tmpfs", VIEW, "tmpfs", _MS_NOSUID | _MS_NODEV, b"size=64k,mode=0755")
    for i, ((_, is_file), fd) in enumerate(zip(view, fds, strict=True)):
        target = f"{VIEW}/{i}"
        if is_file:
            os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
        else:
            os.mkdir(target, 0o755)
        _mount(lib, f"/proc/self/fd/{fd}", target, None, _MS_BIND | _MS_REC)
        os.close(fd)


def _mount(lib: Any, source: str, target: str, fstype: str | None, flags: int, data: bytes | None = None) -> None:
    if lib.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, ctypes.c_ulong(flags),
                 data) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"mount {source} on {target}: {os.strerror(e)}")


def as_seen(binds: Sequence[Bind], root: bool) -> tuple[tuple[Bind, ...], list[tuple[str, bool]] | None]:
    """The binds bubblewrap is given, and the view `prepare` must build for them (root only, else None)."""
    if not root:
        return tuple(binds), None
    return (tuple(Bind(f"{VIEW}/{i}", b.dest, b.file) for i, b in enumerate(binds)),
            [(b.source, b.file) for b in binds])


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
            preexec_fn=functools.partial(prepare, cg.procs_files(), view, uid, _libc()))
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
