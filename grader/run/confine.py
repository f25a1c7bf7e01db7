"""Graded mode: what a forked child does to itself before an untrusted submission's code runs.

The student/ folder is copied into a scratch folder that becomes the child's cwd and HOME; the environment is
cleared; where the system allows, the child gets a new network namespace (no network) and a new mount namespace in
which the course's fixtures/, stages/ and .grader/ are covered by empty tmpfs mounts (input files it needs are
bound read-only into the scratch folder) and the scratch folder is a size-capped tmpfs; running as root, it drops
to an unused uid of its grader process alone (in `nobody`'s group), and it refuses to run the submission as
root at all. `scrub` blanks, in the
child's copy of the grader's memory, what earlier grades left there. See SECURITY.md.
"""

from __future__ import annotations

import ctypes
import errno
import os
import pwd
import resource
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from grader.records import Record
from grader.results import LIVE, CaseResult, Comparison
from grader.run.protocol import Call

GRADED_FILE_CAP = 64 << 20  # RLIMIT_FSIZE and scratch tmpfs size, graded


GRADED_TREE_CAP = 32 << 20  # bytes of student/ copied into the scratch folder


GRADED_NPROC = 256  # processes the sandbox user may have, graded (when dropping to it)


SANDBOX_USER = "nobody"  # whose group the sandbox runs in
SANDBOX_UID_BASE = 1_500_000_000  # one unused uid per grader process, far from any account's


def _own_uid() -> int:
    """An unprivileged uid for this grader process alone.

    A batch worker's submission then cannot signal, or read the files of, another worker's, as it could if every
    sandbox ran as `nobody`.
    """
    uid = SANDBOX_UID_BASE + os.getpid() % 100_000_000
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return uid
    return pwd.getpwnam(SANDBOX_USER).pw_uid  # taken by a real account: fall back to nobody


def libc() -> ctypes.CDLL:
    """The C library, for unshare, mount and prctl (Python 3.11's os has no unshare)."""
    return ctypes.CDLL(None, use_errno=True)


_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000


_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x4000, 1 << 18


_MS_RDONLY, _MS_REMOUNT, _MS_BIND = 0x1, 0x20, 0x1000


_PR_SET_NO_NEW_PRIVS = 38


class Plan(Record):
    """What a graded child should do to itself, worked out once per run in the grader."""

    hide: list[str]
    uid: int | None  # the unprivileged user to become (running as root), else None
    gid: int | None
    keep: list[str]  # folders that must stay visible (the Python installation, numpy, the grader)
    unblock: dict[str, list[str]]  # a folder `nobody` cannot enter -> the kept folders below it
    forget: Callable[[], None] | None = None  # the caller's: drop what earlier grades left in memory


def make_plan(root: Path, hide: Sequence[Path] | None, forget: Callable[[], None] | None = None) -> Plan:
    """Worked out once per run, in the grader: what to hide, whom to become, which folders to keep reachable."""
    needed = [sys.prefix, sys.base_prefix, os.path.dirname(np.__file__),
              os.path.dirname(os.path.dirname(__file__)), *(p for p in sys.path if p and os.path.isdir(p))]
    keep = sorted({os.path.realpath(k) for k in needed})
    if hide is None:
        hide = []
        for start in (Path.cwd(), Path(root)):
            for folder in [start.resolve(), *start.resolve().parents]:
                if (folder / "course.yaml").exists():
                    hide.extend(folder / name for name in ("fixtures", "stages", "common", ".grader"))
                    break
    paths = sorted({os.path.realpath(h) for h in hide if Path(h).is_dir()})
    paths = [h for h in paths if not any(k == h or k.startswith(h + os.sep) for k in keep)]
    uid = gid = None
    if os.geteuid() == 0:
        try:
            gid = pwd.getpwnam(SANDBOX_USER).pw_gid
            uid = _own_uid()
        except KeyError:
            pass
    unblock: dict[str, list[str]] = {}
    if uid is not None:  # e.g. Python installed under /root (pyenv): `nobody` could not import the stdlib
        for k in keep:
            closed = next((str(a) for a in reversed(Path(k).parents) if not os.stat(a).st_mode & 0o001), None)
            if closed is not None:
                unblock.setdefault(closed, []).append(k)
    return Plan(hide=paths, uid=uid, gid=gid, keep=keep, unblock=unblock, forget=forget)


def make_scratch(plan: Plan) -> Path:
    """An empty folder for one child, owned by the sandbox user."""
    import tempfile  # graded runs only: kept off the self-paced grade's start-up

    scratch = Path(tempfile.mkdtemp(prefix="grader-scratch-"))
    if plan.uid is not None:
        os.chown(scratch, plan.uid, plan.gid or 0)
    return scratch


def read_tree(folder: Path, cap: int = GRADED_TREE_CAP) -> dict[str, bytes]:
    """Regular files under student/, read without following links, `cap` bytes in all.

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
                if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or total + st.st_size > cap:
                    continue
                data = f.read(cap - total + 1)
            total += len(data)
            files[os.path.relpath(path, folder.parent)] = data
    return files


def _unshare(flags: int) -> bool:
    return bool(libc().unshare(flags) == 0)


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    lib = libc()
    if lib.mount(source.encode(), target.encode(), fstype.encode() if fstype else None,
                  ctypes.c_ulong(flags), data.encode() if data else None) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"mount {target}: {os.strerror(e)}")


def isolate(plan: Plan, root: Path, scratch: Path | None, calls: list[Call]) -> tuple[Path, list[str]]:
    """In the graded child, before any learner code: namespaces, scratch folder, environment, user."""
    assert scratch is not None
    got: list[str] = []
    files = read_tree(root / "student")
    # Input files (a stage's artifacts, such as a checkpoint) live in the fixtures folder about to be hidden:
    # opened inside the new mount namespace before hiding, then bound read-only into the scratch folder.
    inputs = sorted({p for c in calls for p in c.inputs.values() if isinstance(p, str) and os.path.isfile(p)})
    shared, mounted = _namespaces(plan, scratch, inputs, got)
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
    scrub(plan.forget)
    _drop_user(plan, mounted, got)
    return scratch, got


def _namespaces(plan: Plan, scratch: Path, inputs: list[str], got: list[str]) -> tuple[dict[str, int], bool]:
    """A user namespace (unprivileged), then network and mount ones; the input files opened before hiding."""
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
            if os.path.isdir(path):  # not when _reopen already covered a folder above it
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
    return shared, mounted


def _drop_user(plan: Plan, mounted: bool, got: list[str]) -> None:
    """Become the plan's unprivileged user (root), no new privileges; never run a submission as root."""
    if plan.uid is not None and os.geteuid() == 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (GRADED_NPROC, GRADED_NPROC))
        os.setgroups([])
        os.setresgid(plan.gid or plan.uid, plan.gid or plan.uid, plan.gid or plan.uid)
        os.setresuid(plan.uid, plan.uid, plan.uid)
        if os.geteuid() == 0 or os.getuid() == 0:
            raise OSError(errno.EPERM, "could not drop root")
        got.append(f"unprivileged user {plan.uid} (this grader's own, group {SANDBOX_USER})")
    elif os.geteuid() != 0 or not mounted:
        got.append(f"own user (uid {os.getuid()}): files it can read, the submission can read")
    libc().prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    if os.geteuid() == 0 and "user namespace" not in got:  # last line of defence: never run a submission as root
        raise OSError(errno.EPERM, "refusing to run a submission as root: no sandbox user could be used "
                      "(run the grader as an ordinary user, or see SECURITY.md)")


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


def scrub(forget: Callable[[], None] | None) -> None:
    """Forget, in the child's copy of the grader's memory, what earlier grades left there.

    That is result records (mismatches quote expected values), and whatever the caller's `forget` drops (the
    judge's decoy outputs and the course's reference modules).
    """
    for obj in list(LIVE.values()):
        if isinstance(obj, CaseResult):
            obj.comparisons = []
        elif isinstance(obj, Comparison):
            obj.worst, obj.first = None, []
    if forget is not None:
        forget()
