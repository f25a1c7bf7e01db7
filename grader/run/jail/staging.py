"""The grader's private staging folder for one jail: what the jail may read, and nothing else.

`student/` holds a copy of the submission's student/ (regular files only, no links, 32 MiB: confine.read_tree),
`jobs/<name>/` each job's inputs and a job.json naming them: verified fixture files copied by the kernel, never
linked (a link count is a figure every jail holding the file reads: red team round 10b timed another jail's hidden
call by it), other arrays written as .npy, input files (a checkpoint) copied, plain values in the JSON. Expected
outputs are never written here. Folders and files are made readable by the jail's uid whatever the umask; the
folder itself is private to the grader (mkdtemp), and a root grader's jail reaches it through its view. Staging
folders and jails' cgroups carry their grader's pid: what a killed grader left is swept by the next one.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from grader.errors import GraderError
from grader.run import confine
from grader.run.jail import cgroups
from grader.run.protocol import INPUT_FDS, Call, Limits, NpyFile

PREFIX = "grader-jail-"
LOCK = ".owner.lock"  # held (flock) by the grader process that made the folder, for as long as the folder is used
UNLOCKED_AGE = 60.0  # seconds after which a lock file never written to is a dead maker's
_swept: set[int] = set()
_locks: dict[str, int] = {}  # staging folder -> the descriptor holding its lock
_shared: dict[tuple[Any, ...], int] = {}  # fixture file (path, device, inode, size, time) -> its sealed copy
_times: dict[int, tuple[int, int]] = {}  # a sealed copy's descriptor -> its access and change times when made


def new() -> Path:
    """An empty staging folder (student/, jobs/): a jail can be started on it before the submission is known."""
    if os.getpid() not in _swept:
        _swept.add(os.getpid())
        sweep()
    staging = locked_folder(PREFIX)
    _mkdir(staging / "jobs")
    _mkdir(staging / "student")
    return staging


def fill(staging: Path, root: Path, cap: int = confine.GRADED_TREE_CAP) -> None:
    """Copy the submission's student/ in (a jail already running on `staging` sees the files as they land)."""
    for rel, data in confine.read_tree(root / "student", cap).items():  # regular files, no links, `cap` bytes
        target = staging / rel
        for parent in reversed(target.relative_to(staging).parents[:-1]):
            _mkdir(staging / parent)
        _write_file(target, data)


def refill(staging: Path, root: Path, cap: int = confine.GRADED_TREE_CAP) -> None:
    """Replace student/ with `root`'s, between two jobs of a jail running on `staging` (Jail.files_of)."""
    student = staging / "student"
    for child in list(student.iterdir()):
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    fill(staging, root, cap)


def write_job(folder: Path, calls: list[Call], limits: Limits) -> list[int]:
    """The job's folder: its calls' inputs, each written once however many calls share it, and job.json.

    Returns the descriptors the job carries (`shared_input`: fixture arrays), in the order job.json names them.
    """
    _mkdir(folder)
    written: dict[Any, Any] = {}  # id(array), file path or ("fd", path) -> file or index: one per job
    fds: list[int] = []
    specs = [{"case": c.case, "module": c.module, "function": c.function, "returns": c.returns, "keys": list(c.keys),
              "observe": [list(o) for o in c.observe],
              "inputs": {k: _input(folder, v, written, fds) for k, v in c.inputs.items()}} for c in calls]
    _write_file(folder / "job.json", json.dumps({"calls": specs, "memory_mb": limits.memory_mb}).encode())
    return fds


def _input(folder: Path, value: Any, written: dict[Any, Any], fds: list[int]) -> dict[str, Any]:
    """How the jail gets one input: a descriptor of a sealed copy, an .npy file, an input file, a dict, a value."""
    if isinstance(value, NpyFile) and shareable() and (("fd", value.path) in written or len(fds) < INPUT_FDS):
        if ("fd", value.path) not in written:
            fds.append(shared_input(value.path))
            written["fd", value.path] = len(fds) - 1
        return {"fd": written["fd", value.path], "scalar": False}
    if isinstance(value, NpyFile | np.ndarray | np.generic):
        key = value.path if isinstance(value, NpyFile) else id(value)
        if key not in written:
            written[key] = f"{len(written)}.npy"
            _write_array(folder / written[key], value)
        return {"npy": written[key], "scalar": isinstance(value, np.generic)}
    if isinstance(value, str) and os.path.isfile(value):  # an artifact (a checkpoint) from the fixtures
        if value not in written:
            written[value] = f"file-{len(written)}-{os.path.basename(value)}"
            _copy(value, folder / written[value])
        return {"file": written[value]}
    if isinstance(value, dict) and all(isinstance(v, np.ndarray) for v in value.values()):
        return {"dict": {str(k): _input(folder, v, written, fds) for k, v in value.items()}}
    try:
        json.dumps(value, allow_nan=True)
    except (TypeError, ValueError) as e:
        raise GraderError(f"an input of type {type(value).__name__} cannot be passed into the jail") from e
    return {"value": value}


def shareable() -> bool:
    """Whether inputs go as the worker's shared sealed copies: only where the jail runs as another uid (root).

    A grader that is not root runs its jails as itself, and the owner of a memfd may change its mode, which the
    seals do not cover: red team round 19's call made the copies unreadable and every later learner of that worker
    timed out. Each job then gets files of its own, under the read-only /jail/job (EROFS to a chmod).
    """
    return os.geteuid() == 0


def shared_input(path: str) -> int:
    """A read-only descriptor of a sealed memfd holding a fixture file's bytes, made once per process.

    A batch's worker grades every submission on the same fixtures: each file is copied once (about 100 MB for four
    stages, which copying into every job cost ~50 ms a submission), and each job is handed the descriptors of its own
    inputs, and no others, with its command. Sealed (no write, resize or new seal), so a jail that reopens it still
    cannot change what the next jail reads; no name, no link count (round 10b read a hard link's). Jails of the same
    pass share its pages, as they share the standard library's; a jail's public pass is never handed a hidden input's.
    """
    st = os.stat(path)
    key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)  # a fixture rebuilt meanwhile is copied again
    if key in _shared:
        return _shared[key]
    fd = os.memfd_create("input", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        with open(path, "rb") as source:
            sent, size = 0, os.fstat(source.fileno()).st_size
            while sent < size:
                n = os.sendfile(fd, source.fileno(), sent, size - sent)
                if n == 0:
                    raise GraderError(f"{path} changed while it was being read")
                sent += n
        # memfd_create makes it 0777: a jail's uid (an "other") could then set its times and extended attributes,
        # which the seals do not cover, and the next job read them (red team round 16: 1.6 GB of xattrs held past
        # the jails, and a message to a learner graded later)
        os.fchmod(fd, 0o444)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW |
                    fcntl.F_SEAL_WRITE)
        _shared[key] = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_CLOEXEC)
        st = os.fstat(_shared[key])
        _times[_shared[key]] = (st.st_atime_ns, st.st_mtime_ns)
    finally:
        os.close(fd)
    return _shared[key]


def handed(shared: int) -> int:
    """A new open file description of a sealed copy, for one job alone; the caller closes it once sent.

    Its offset, status flags, owner and signal are that job's: a descriptor sent as it is shares them (red team
    round 16 read another learner's 64-bit offset).
    """
    return os.open(f"/proc/self/fd/{shared}", os.O_RDONLY | os.O_CLOEXEC)


def as_made(shared: list[int]) -> None:
    """Just before a job is handed its sealed copies, their times as they were made.

    A read sets the access time (the grader owns the copy; the jail's uid may not set its times), which a later job
    would otherwise see. Put back before each job, not after the last: a worker that forges its resident's `ended`
    frame reads on once the grader takes its job as done (red team round 20 left a message for the next learner so),
    and nothing of an earlier jail runs when the next job is handed. The change time then says only when this job
    was handed.
    """
    for fd in shared:
        os.utime(fd, ns=_times[fd])


def _write_array(path: Path, value: NpyFile | np.ndarray | np.generic) -> None:
    if isinstance(value, NpyFile):
        _copy(value.path, path)
        return
    with open(path, "xb") as f:
        os.fchmod(f.fileno(), 0o644)
        np.lib.format.write_array(f, np.asarray(value), allow_pickle=False)  # a 0-d array for a scalar


def _copy(source: str, target: Path) -> None:
    """A copy of a fixture file (sendfile: no pass through this process), readable by the jail's uid.

    Not a hard link, though that was free: the inode's link count rises while any jail's job holds it, so a call
    could read how many jails hold a file at once and another could set it by how long its hidden call runs.
    """
    shutil.copyfile(source, target)
    os.chmod(target, 0o644)


def _mkdir(path: Path) -> None:
    """A folder the jail's uid can enter, whatever the umask (an existing one is left as it is)."""
    try:
        path.mkdir()
    except FileExistsError:
        return
    os.chmod(path, 0o755)


def _write_file(path: Path, data: bytes) -> None:
    """A file readable by the jail's uid, whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.fchmod(fd, 0o644)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


# --- what graders killed earlier left -------------------------------------------------------------------------


def locked_folder(prefix: str) -> Path:
    """A new private temporary folder `<prefix><pid>-*`, locked by this process until `remove` (see sweep)."""
    folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))
    fd = os.open(folder / LOCK, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    os.write(fd, b"%d\n" % os.getpid())  # written once locked: an empty lock file may be about to be locked
    _locks[str(folder)] = fd
    return folder


def remove(staging: Path) -> None:
    """Delete a staging folder this process made, and let go of its lock."""
    shutil.rmtree(staging, ignore_errors=True)
    fd = _locks.pop(str(staging), None)
    if fd is not None:
        os.close(fd)


def sweep(prefix: str = PREFIX) -> int:
    """Delete the temporary folders `<prefix><pid>-*` of grader processes that are gone (a SIGKILLed batch).

    A folder is gone only when its lock can be taken: its maker holds it while alive. The pid in the name is not
    proof (a grader in another PID namespace, CI's, shares /tmp with this one); a folder without a lock is left, and
    so is one whose lock file is still empty (its maker may be between making it and locking it) and new.
    """
    removed, folder = 0, Path(tempfile.gettempdir())
    for path in folder.glob(f"{prefix}*-*"):
        try:
            fd = os.open(path / LOCK, os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            info = os.fstat(fd)
            if info.st_size == 0 and time.time() - info.st_mtime < UNLOCKED_AGE:
                continue  # not yet locked by its maker
        except OSError:
            continue  # held: in use
        finally:
            os.close(fd)
        shutil.rmtree(path, ignore_errors=True)
        removed += 1
    return removed


def sweep_groups(layout: cgroups.Layout) -> int:
    """Remove the empty groups jails of dead grader processes left behind (a grader killed mid-run); how many.

    The pid in a group's name is not proof its grader is gone: a grader in another PID namespace (CI's) shares the
    hierarchy, and its new group is empty until its jail joins it. Only a group older than UNLOCKED_AGE is taken
    (a live jail's group holds the jail's processes from its first milliseconds to its end).
    """
    removed = 0
    for parent in set(layout.parents.values()):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            owner = name[len(cgroups.PREFIX):].split("-", 1)[0]
            if not name.startswith(cgroups.PREFIX) or not owner.isdigit() or alive(int(owner)):
                continue
            try:
                if time.time() - (parent / name).stat().st_mtime < UNLOCKED_AGE:
                    continue  # perhaps another namespace's grader, about to put its jail in it
                (parent / name).rmdir()
                removed += 1
            except OSError:
                pass
    return removed


def alive(pid: int) -> bool:
    """Whether process `pid` still runs (a zombie does not: its owner is gone, only its exit status is left)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return False
    return data[data.rfind(b")") + 2:data.rfind(b")") + 3] != b"Z"
