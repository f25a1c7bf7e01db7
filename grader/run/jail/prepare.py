"""In bubblewrap's process, between fork and exec: join the jail's cgroup, build the view, change uid, die with us.

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
import functools
import os
import signal
from collections.abc import Sequence
from typing import Any

from grader.run import confine
from grader.run.jail.mounts import Bind

VIEW = "/tmp"  # where the view is mounted, in bubblewrap's own mount namespace (its sources are opened before)
_MS_BIND, _MS_REC, _MS_PRIVATE, _MS_NOSUID, _MS_NODEV = 0x1000, 0x4000, 1 << 18, 0x2, 0x4
_CLONE_NEWNS = 0x00020000
_PR_SET_PDEATHSIG = 1


@functools.cache
def looked_up_libc() -> Any:
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
