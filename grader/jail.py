"""Graded mode's jail: an untrusted submission's code runs in a fresh interpreter inside bubblewrap, in cgroups.

Replaces the forked, deny-list confinement of grader/confine.py for GRADED runs (self-paced keeps the fast fork of
grader/sandbox.py). What the jail sees is an allow-list: the OS's /usr (programs and shared libraries; /usr/local
hidden), the Python installation's interpreter and standard library, the packages a learner may import (numpy,
safetensors), the grader's own code, a read-only copy of the submission's student/ files, and the inputs of the
calls it is asked to make; /tmp, /var/tmp and /dev/shm are small private tmpfs. Nothing else of the host exists in
it: no course folder, no .git, no fixtures or expected outputs (they are never written for it), no other
submission, no gradebook, no /root or /home, no host environment (bubblewrap itself starts with an empty one).

Per jail (`_Box`): one bubblewrap process started by exec (never a fork of the grader that runs learner code) with
new user, mount, pid, network, ipc, uts and cgroup namespaces, no capabilities, a new session, no further user
namespaces, death with the grader; as root, bubblewrap itself runs as a fresh unprivileged uid (one per jail); its
processes are in a cgroup of their own (grader/cgroups.py) capping memory (tmpfs and memfd pages included),
processes and CPU. When a jail ends, `cgroup.kill` (or freeze + kill) ends everything in it and the group is
removed; its pid namespace dies with its init anyway, so nothing is left for a reaper to race.

Per submission (`Jail`): one jail serves every stage (`run()` once per stage), so an interpreter and numpy are
started once. Inside it (grader/jailed.py) a resident process that never runs learner code forks one worker per
run; the worker imports the learner's modules from source and makes the calls. A timeout, a crash or a broken
frame kills the whole jail; the next calls get a new one. Results come back over an inherited pipe in
grader/child.py's frame format, read by `_Frames`, which refuses a frame larger than the call's output cap the
moment its header announces it, before buffering it. Each call's stdout and stderr travel on pipes of that call's
own (passed into the jail over a unix socket), so nothing one case prints lands under another.

Where bubblewrap or usable cgroups are missing, `Jail()` raises `JailUnavailable`, naming the install command;
`unsandboxed=True` falls back to grader/sandbox.py's forked graded child and says so in `isolation()`.
See docs/jail.md.
"""

from __future__ import annotations

import functools
import io
import json
import math
import os
import pwd
import select
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from grader import cgroups, child, confine, sandbox
from grader.errors import GraderError, UsageError
from grader.results import Status
from grader.sandbox import Call, Limits, Outcome

INSTALL = "apt-get install bubblewrap"
UID_BASE = 1_600_000_000  # fresh uids, one per jail: (pid % 2**22) * 128 + seq stays below 2**31
UID_INSIDE = 1000
ROOT_IN_JAIL = "/submission"  # the learner's student/ is /submission/student
JOBS_IN_JAIL = "/jail/job"
LIB_IN_JAIL = "/jail/lib"  # the grader package
SITE_IN_JAIL = "/jail/site"  # the packages a learner may import
PY_IN_JAIL = "/jail/python"  # a Python installed outside /usr
HEADER_CAP = 256 << 10  # the largest frame header (JSON) accepted
DEFAULT_OUTPUT_CAP = 64 << 20  # a call's result payload when its expected output's size is not known
RETIRED = 75  # grader/jailed.py's worker exit code after a call that left threads or processes running
ENDED_WAIT = 10.0  # seconds for a worker to exit after its last result
MAX_CALLS = 120  # calls per job: two stream pipes each, passed in one message (SCM_RIGHTS takes 253 fds)
FILE_CAP = confine.GRADED_FILE_CAP  # RLIMIT_FSIZE in the jail
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}
BOOT = "import sys; sys.path[:0] = [{lib!r}, {site!r}]; from grader.jailed import main; main({res}, {cmd})"


class JailUnavailable(UsageError):
    """Graded mode cannot jail here (no bubblewrap, no usable cgroups); the message says what to install or change."""


class JailError(GraderError):
    """A jail could not be started: the grading machine's problem, never the submission's."""


@dataclass
class Settings:
    """What every jail of a submission gets, beyond the per-stage `Limits` (timeout, memory)."""

    pids: int = 64  # processes and threads, all together
    cpus: float = 1.0  # CPU bandwidth (and the BLAS thread count)
    tmp_mb: int = 64  # size of /tmp and of /var/tmp, each (their pages also count as the jail's memory)
    packages: tuple[str, ...] = ("numpy", "safetensors")  # importable by the learner, when installed
    startup_timeout: float = 60.0  # seconds for an interpreter to start and load a run's inputs


def unavailable() -> str | None:
    """Why graded mode cannot jail on this machine, or None when it can."""
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: `{INSTALL}` (or your system's package for it)"
    if not sys.platform.startswith("linux"):
        return "the jail needs Linux namespaces and cgroups"
    try:
        cgroups.detect()
    except (cgroups.CgroupUnavailable, OSError) as e:
        return (f"no usable cgroup ({e}); run the grader as root, or in a cgroup v2 subtree delegated to its "
                "user (e.g. `systemd-run --user --scope -p Delegate=yes ...`)")
    return _probe(shutil.which("bwrap") or "bwrap", os.geteuid() == 0)


@functools.cache
def _probe(bwrap: str, as_root: bool) -> str | None:
    """Whether bubblewrap can make its namespaces here, as the user jails run as (once per process: ~10 ms)."""
    uid = UID_BASE - 1 if as_root else None  # a uid no jail uses: user namespaces are allowed per user
    try:
        proc = subprocess.run([bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--ro-bind", "/", "/",
                               "--", shutil.which("true") or "/bin/true"], capture_output=True, env={}, timeout=30,
                              preexec_fn=None if uid is None else functools.partial(_preexec, [], None, uid))
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap could not be run ({e})"
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace").strip()[-500:]
        return (f"bubblewrap cannot create its namespaces here ({said}); unprivileged user namespaces must be "
                "allowed: `sysctl kernel.unprivileged_userns_clone=1` (older Debian); on Ubuntu 23.10 and later, "
                "an AppArmor profile granting `userns` to /usr/bin/bwrap, or "
                "`sysctl kernel.apparmor_restrict_unprivileged_userns=0`")
    return None


def require(unsandboxed: bool = False) -> str | None:
    """Raise JailUnavailable unless graded mode can jail here; with `unsandboxed`, return the reason instead."""
    why = unavailable()
    if why is not None and not unsandboxed:
        raise JailUnavailable(f"graded mode runs submissions in a bubblewrap jail, and cannot here: {why}. Grade "
                              f"with --unsandboxed only for submissions you trust.")
    return why


def run(root: Path, calls: list[Call], limits: Limits, *, settings: Settings | None = None,
        unsandboxed: bool = False, **options: Any) -> Iterator[Outcome]:
    """One-shot: one Jail for these calls only (`Jail.run` has the options)."""
    with Jail(root, settings, unsandboxed=unsandboxed) as jail:
        yield from jail.run(calls, limits, **options)


@dataclass(frozen=True)
class NpyFile:
    """An input array still in its .npy file (a fixture the grader has verified).

    The jail gets a copy of the file made by the kernel, instead of an array the grader writes out again; cases
    sharing a file (an MLP's weights) share one copy.
    """

    path: str


def file_inputs(source: Any, case: Any) -> dict[str, Any]:
    """A case's inputs for `Jail.run`: fixture arrays as NpyFile (verified first, through `source.inputs`)."""
    arrays = source.inputs(case)  # checks each file against its digest (once per file and version)
    metas = source.manifest["cases"][case.id]["inputs"]
    return {k: NpyFile(str(source.dir / metas[k]["file"])) if isinstance(metas.get(k), dict) and "file" in metas[k]
            else v for k, v in arrays.items()}


def output_caps(source: Any, cases: Sequence[Any]) -> dict[str, int]:
    """Each case's result cap: 4 x its expected outputs' size (at >= 8 bytes a value) + 1 MiB, from the manifest.

    Only the manifest's shapes and dtypes are read, never an expected value.
    """
    manifest = getattr(source, "manifest", None)
    caps = {}
    for case in cases:
        try:
            metas = manifest["cases"][case.id]["expected"].values() if manifest else ()
            size = sum(math.prod(m["shape"]) * max(8, np.dtype(m["dtype"]).itemsize) for m in metas)
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        if metas:
            caps[case.id] = 4 * size + (1 << 20)
    return caps


# --- what the jail sees --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Bind:
    source: str
    dest: str
    file: bool = False


def _under_usr(path: str) -> bool:
    """Whether the jail's read-only /usr already shows `path` (/usr/local is hidden)."""
    return path.startswith("/usr/") and not path.startswith("/usr/local/")


@dataclass(frozen=True)
class _Runtime:
    """What the jail needs of the host's Python: binds, folders hidden, packages found, interpreter, environment."""

    binds: tuple[_Bind, ...]
    hide: tuple[str, ...]
    packages: tuple[str, ...]
    python: str  # the interpreter's path in the jail
    env: tuple[tuple[str, str], ...]


@functools.cache
def _runtime(packages: tuple[str, ...]) -> _Runtime:
    """The interpreter, its standard library and shared library, the allowed packages and the grader, as binds.

    A Python installed outside /usr (pyenv below /root, /usr/local, /opt) appears at PY_IN_JAIL, so no empty
    /root or /opt skeleton shows where it lives; it finds its standard library from its own location, and its
    libpython through LD_LIBRARY_PATH.
    """
    import importlib.util

    base = os.path.realpath(sys.base_prefix)
    moved = not _under_usr(base + "/")

    def where(path: str) -> str:
        return PY_IN_JAIL + path[len(base):] if moved and (path + "/").startswith(base + "/") else path

    stdlib = sysconfig.get_paths()["stdlib"]  # in a venv, the base installation's
    exe = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    shared = sysconfig.get_config_var("DESTSHARED") or ""  # lib-dynload
    lib = ""
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        lib = os.path.join(sysconfig.get_config_var("LIBDIR") or "", sysconfig.get_config_var("INSTSONAME") or "")
    binds: list[_Bind] = []
    for path, is_file in ((stdlib, False), (shared, False), (exe, True), (lib, True)):
        covered = not moved and _under_usr(path) or (path != stdlib and path.startswith(stdlib + "/"))
        if path and os.path.exists(path) and not covered:
            binds.append(_Bind(os.path.realpath(path), where(path), is_file))
    hide = tuple(where(p) for p in (os.path.join(stdlib, "site-packages"), os.path.join(stdlib, "dist-packages"))
                 if os.path.isdir(p))
    found = []
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.origin:
            continue
        folder = spec.submodule_search_locations[0] if spec.submodule_search_locations else None
        source = folder or spec.origin
        binds.append(_Bind(source, f"{SITE_IN_JAIL}/{os.path.basename(source)}", not folder))
        if folder and os.path.isdir(folder + ".libs"):  # a manylinux wheel's own shared libraries
            binds.append(_Bind(folder + ".libs", f"{SITE_IN_JAIL}/{name}.libs"))
        found.append(name)
    binds.append(_Bind(os.path.dirname(os.path.abspath(__file__)), f"{LIB_IN_JAIL}/grader"))
    env = (("LD_LIBRARY_PATH", os.path.dirname(where(lib))),) if lib and where(lib) != lib else ()
    return _Runtime(tuple(dict.fromkeys(binds)), hide, tuple(found), where(exe), env)


def _system_args() -> list[str]:
    """/usr read-only with /usr/local hidden, and the /bin, /lib... links (or folders) a merged-/usr system has."""
    args = ["--ro-bind", "/usr", "/usr"]
    if os.path.isdir("/usr/local"):
        args += ["--tmpfs", "/usr/local"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    return args


def _bwrap_args(runtime: _Runtime, binds: Sequence[_Bind], settings: Settings) -> list[str]:
    """Bubblewrap's options (passed with --args, so not on its command line): namespaces, mounts, environment."""
    args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--uid", str(UID_INSIDE), "--gid", str(UID_INSIDE), "--hostname", "jail",
            "--clearenv"]
    threads = str(max(1, int(settings.cpus)))
    for key, value in {**ENV, "OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads,
                       "MKL_NUM_THREADS": threads, **dict(runtime.env)}.items():
        args += ["--setenv", key, value]
    args += _system_args()
    for b in binds:
        args += ["--ro-bind", b.source, b.dest]
    for folder in runtime.hide:
        args += ["--size", "4096", "--tmpfs", folder]
    args += ["--proc", "/proc", "--dev", "/dev"]
    for folder, size in (("/tmp", settings.tmp_mb << 20), ("/var/tmp", settings.tmp_mb << 20),
                         ("/dev/shm", 1 << 20)):
        args += ["--size", str(size), "--tmpfs", folder]
    return args + ["--remount-ro", "/", "--chdir", "/tmp"]


# --- starting and ending one jail ----------------------------------------------------------------------------

_MS_BIND, _MS_REC, _MS_PRIVATE, _MS_NOSUID, _MS_NODEV = 0x1000, 0x4000, 1 << 18, 0x2, 0x4
_CLONE_NEWNS = 0x00020000
VIEW = "/tmp"  # where the view is mounted, in bubblewrap's own mount namespace (its sources are read before)
_uid_seq = 0


def _fresh_uid() -> int:
    """An unprivileged uid no account has, for one jail of this grader process alone."""
    global _uid_seq
    for _ in range(128):
        _uid_seq += 1
        uid = UID_BASE + (os.getpid() % (1 << 22)) * 128 + _uid_seq % 128
        try:
            pwd.getpwuid(uid)
        except KeyError:
            return uid
    raise JailError("no free uid for a jail")


def _preexec(procs: list[str], view: list[tuple[str, bool]] | None, uid: int | None) -> None:
    """In bubblewrap's process, before exec, as root: join the jail's cgroup, build the view, become `uid`.

    The view: an unprivileged bubblewrap cannot reach a Python installed below a folder closed to others (pyenv in
    /root), nor a private staging folder. In a mount namespace of this process alone, every source is opened,
    then bound at VIEW/<i> on a fresh tmpfs over VIEW, where bubblewrap can reach it. Nothing of the host changes.
    """
    try:
        pid = str(os.getpid()).encode()
        for path in procs:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)
        if view is not None:
            lib = confine.libc()
            if lib.unshare(_CLONE_NEWNS) != 0:
                raise OSError("unshare(CLONE_NEWNS) failed")
            _mount(lib, "none", "/", None, _MS_REC | _MS_PRIVATE)
            fds = [os.open(source, os.O_PATH | os.O_CLOEXEC) for source, _ in view]  # before VIEW is covered
            _mount(lib, "tmpfs", VIEW, "tmpfs", _MS_NOSUID | _MS_NODEV, b"size=64k,mode=0755")
            for i, ((_, is_file), fd) in enumerate(zip(view, fds, strict=True)):
                target = f"{VIEW}/{i}"
                os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644)) if is_file else os.mkdir(target, 0o755)
                _mount(lib, f"/proc/self/fd/{fd}", target, None, _MS_BIND | _MS_REC)
                os.close(fd)
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
    except BaseException as e:
        os.write(2, f"grader: could not prepare the jail: {type(e).__name__}: {e}\n".encode())
        raise


def _mount(lib: Any, source: str, target: str, fstype: str | None, flags: int, data: bytes | None = None) -> None:
    import ctypes

    if lib.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, ctypes.c_ulong(flags),
                 data) != 0:
        e = ctypes.get_errno()
        raise OSError(e, f"mount {source} on {target}: {os.strerror(e)}")


@dataclass
class _Box:
    """One running jail: bubblewrap's process, its cgroup, and the grader's ends of its pipes and socket."""

    proc: subprocess.Popen[bytes]
    cgroup: cgroups.Cgroup
    uid: int | None
    results: int  # read end of the result pipe
    diag: int  # read end of bubblewrap's (and the resident process's) stdout and stderr
    command: socket.socket
    memory_mb: int
    ready: bool = False
    diag_text: sandbox._Stream = field(default_factory=sandbox._Stream)
    jobs: int = 0

    def kill(self) -> dict[str, Any]:
        """End every process of the jail, reap bubblewrap, remove the cgroup; what it used, for `Jail.stats`."""
        stats: dict[str, Any] = {"uid": self.uid, "cgroup": self.cgroup.name}
        members = self.cgroup.members()
        try:
            stats["emptied"] = self.cgroup.kill()
            stats["memory_peak"] = self.cgroup.memory_peak()
            stats["oom_kills"] = self.cgroup.oom_kills()
        finally:
            try:
                self.proc.kill()
            except OSError:
                pass
            self.proc.wait()
            for pid in members:  # a grader that is a subreaper (sandbox.py) inherits the jail's init: reap it
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
            self.cgroup.remove()
            self.command.close()
            for fd in (self.results, self.diag):
                os.close(fd)
        return stats


# --- one submission's jail -----------------------------------------------------------------------------------


class Jail:
    """One submission's jail, started on first use and reused by each `run` (one per stage); `close` ends it."""

    def __init__(self, root: Path, settings: Settings | None = None, *, unsandboxed: bool = False) -> None:
        self.root, self.settings = Path(root), settings or Settings()
        self.fallback = require(unsandboxed)  # None: jailed
        self.stats: list[dict[str, Any]] = []  # one entry per jail ended
        self._box: _Box | None = None
        self._staging: Path | None = None
        self._layout = None if self.fallback else cgroups.detect()
        self._files = 0
        self._limits_said: list[str] = []
        self._uid: int | None = None

    def __enter__(self) -> Jail:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the running jail (if any) and delete the staging folder."""
        self._end_box()
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None

    def isolation(self) -> str:
        """What kept the submission apart from the grading machine, in one line (for StageResult.notes)."""
        if self.fallback is not None:
            return f"NOT jailed ({self.fallback}): {sandbox.isolation()}"
        found = _runtime(self.settings.packages).packages
        user = (f"uid {self._uid} outside (a fresh one per jail)" if self._uid is not None
                else f"this grader's uid {os.getuid()} outside")
        return (f"jail (graded): bubblewrap; new user, mount, pid, network, ipc, uts and cgroup namespaces; "
                f"no network; sees only /usr, Python, {', '.join(found)}, the grader's code, a read-only copy of "
                f"student/ and this run's inputs; /tmp a {self.settings.tmp_mb} MiB tmpfs; {user}, uid {UID_INSIDE} "
                f"inside, no capabilities; cgroup v{self._layout.version if self._layout else '?'}: "
                f"{', '.join(self._limits_said) or 'not started yet'}")

    # --- running calls ---

    def run(self, calls: list[Call], limits: Limits, *, cpu_seconds: float | None = None,
            output_caps: Mapping[str, int] | None = None, cancel: Callable[[], bool] | None = None,
            substitutes: Mapping[str, Any] | None = None) -> Iterator[Outcome]:
        """Yield one Outcome per call, in order, as sandbox.run does; a call that kills its jail costs only itself.

        `limits.timeout` is per call (wall clock, enforced from here), `limits.memory_mb` caps the jail's processes
        together (cgroup) and each one alone (RLIMIT_AS); `cpu_seconds` caps one call's CPU time (cgroup);
        `output_caps` maps a case to the most bytes its result may carry (see `output_caps()`), DEFAULT_OUTPUT_CAP
        otherwise. `cancel` is polled; when it returns True the jail is killed and the run ends.
        """
        if substitutes:
            raise UsageError("--isolate's stand-ins are the course's reference code, which never enters the jail")
        if self.fallback is not None:
            yield from sandbox.run(self.root, calls, limits, cancel=cancel, graded=True)
            return
        todo = list(calls)
        while todo:
            box = self._ensure_box(limits.memory_mb)
            job = self._send_job(box, todo[:MAX_CALLS], limits, output_caps or {}, cpu_seconds)
            try:
                for outcome in self._watch(box, job, cancel):
                    todo.pop(0)
                    yield outcome
            finally:
                job.close()
                if job.end not in ("done", "retired"):
                    self._end_box()
            if job.end == "cancelled":
                return

    def _ensure_box(self, memory_mb: int) -> _Box:
        if self._box is not None and self._box.memory_mb != memory_mb:
            try:
                self._box.cgroup.set_memory(memory_mb)
                self._box.memory_mb = memory_mb
            except OSError:  # v1 refuses a limit below what the group holds: start afresh
                self._end_box()
        if self._box is None:
            self._box = self._start(memory_mb)
        return self._box

    def _end_box(self) -> None:
        box, self._box = self._box, None
        if box is not None:
            self.stats.append(box.kill())

    def _stage(self) -> Path:
        """The private folder the jail's read-only files come from: student/ (copied once) and jobs/."""
        if self._staging is None:
            staging = Path(tempfile.mkdtemp(prefix="grader-jail-"))
            try:
                (staging / "jobs").mkdir(mode=0o755)
                (staging / "student").mkdir(mode=0o755)
                for rel, data in confine._read_tree(self.root / "student").items():  # regular files, no links
                    target = staging / rel
                    target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
                    _write_file(target, data)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            self._staging = staging
        return self._staging

    def _start(self, memory_mb: int) -> _Box:
        """Start one jail: its cgroup, then bubblewrap (exec'd, joined to the cgroup, as a fresh uid when root)."""
        assert self._layout is not None
        staging = self._stage()
        runtime = _runtime(self.settings.packages)
        binds = (*runtime.binds, _Bind(str(staging / "student"), f"{ROOT_IN_JAIL}/student"),
                 _Bind(str(staging / "jobs"), JOBS_IN_JAIL))
        uid, view = None, None
        if os.geteuid() == 0:  # bubblewrap runs as a fresh uid, and reaches its sources through the view
            uid = _fresh_uid()
            view = [(b.source, b.file) for b in binds]
            binds = tuple(_Bind(f"{VIEW}/{i}", b.dest, b.file) for i, b in enumerate(binds))
        cgroups.sweep(self._layout)
        cg = cgroups.Cgroup(self._layout, memory_mb, self.settings.pids, self.settings.cpus)
        self._limits_said, self._uid = cg.limits, uid
        try:
            return self._spawn(cg, uid, runtime, binds, view, memory_mb)
        except BaseException:
            cg.kill()
            cg.remove()
            raise

    def _spawn(self, cg: cgroups.Cgroup, uid: int | None, runtime: _Runtime, binds: Sequence[_Bind],
               view: list[tuple[str, bool]] | None, memory_mb: int) -> _Box:
        """Exec bubblewrap with the jail's options on a memfd, a result pipe and a command socket; return the box."""
        args = _bwrap_args(runtime, binds, self.settings)
        argfd = os.memfd_create("bwrap-args", 0)
        os.write(argfd, b"".join(a.encode() + b"\0" for a in args))
        os.lseek(argfd, 0, os.SEEK_SET)
        res_r, res_w = os.pipe()
        diag_r, diag_w = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            try:
                import fcntl

                fcntl.fcntl(res_w, 1031, 1 << 20)  # F_SETPIPE_SZ: a large output crosses in few writes
            except OSError:
                pass
            boot = BOOT.format(lib=LIB_IN_JAIL, site=SITE_IN_JAIL, res=res_w, cmd=theirs.fileno())
            proc = subprocess.Popen(
                [shutil.which("bwrap") or "bwrap", "--args", str(argfd), "--", runtime.python, "-I", "-S", "-B", "-c",
                 boot],
                stdin=subprocess.DEVNULL, stdout=diag_w, stderr=diag_w, env={}, cwd="/",
                pass_fds=(argfd, res_w, theirs.fileno()), close_fds=True,
                preexec_fn=functools.partial(_preexec, cg.procs_files(), view, uid))
        except (OSError, subprocess.SubprocessError) as e:
            os.close(res_r)
            ours.close()
            os.close(diag_w)
            diag_w = -1
            raise JailError(f"could not start the jail: {e}; {_read_now(diag_r)}") from e
        finally:
            for fd in (argfd, res_w, diag_w):
                if fd >= 0:
                    os.close(fd)
            theirs.close()
        return _Box(proc, cg, uid, res_r, diag_r, ours, memory_mb)

    def _send_job(self, box: _Box, calls: list[Call], limits: Limits, caps: Mapping[str, int],
                  cpu_seconds: float | None) -> _Job:
        """Write the calls' inputs into the staging folder, then hand the jail the job and its calls' stream pipes."""
        assert self._staging is not None
        box.jobs += 1
        name = f"{len(self.stats)}-{box.jobs}"
        folder = self._staging / "jobs" / name
        folder.mkdir(mode=0o755)
        specs: list[dict[str, Any]] = []
        written: dict[Any, str] = {}  # id(array) or fixture path -> file: written once, loaded afresh by each call
        for call in calls:
            specs.append({"case": call.case, "module": call.module, "function": call.function,
                          "returns": call.returns,
                          "inputs": {k: self._input(folder, v, written) for k, v in call.inputs.items()}})
        job_text = json.dumps({"calls": specs, "limits": {"memory_mb": limits.memory_mb, "file_bytes": FILE_CAP}})
        _write_file(folder / "job.json", job_text.encode())
        pipes = [os.pipe() for _ in range(2 * len(calls))]
        try:
            socket.send_fds(box.command, [json.dumps({"run": name}).encode()], [w for _, w in pipes])
        except OSError:
            pass  # the jail is gone: the watch loop sees its result pipe close and says how
        finally:
            for _, w in pipes:
                os.close(w)
        for r, _ in pipes:
            os.set_blocking(r, False)
        return _Job(calls, limits, [caps.get(c.case, DEFAULT_OUTPUT_CAP) for c in calls], [r for r, _ in pipes],
                    folder, cpu_seconds, time.monotonic() + self.settings.startup_timeout)

    def _input(self, folder: Path, value: Any, written: dict[Any, str]) -> dict[str, Any]:
        """How the jail gets one input: an .npy file (written, or copied from a fixture), an input file, a value."""
        if isinstance(value, NpyFile):
            if value.path not in written:
                written[value.path] = f"{len(written)}.npy"
                shutil.copyfile(value.path, folder / written[value.path])  # sendfile: no copy through Python
                os.chmod(folder / written[value.path], 0o644)
            return {"npy": written[value.path], "scalar": False}
        if isinstance(value, np.ndarray | np.generic):
            if id(value) not in written:
                written[id(value)] = f"{len(written)}.npy"
                with open(folder / written[id(value)], "xb") as f:
                    os.fchmod(f.fileno(), 0o644)
                    np.lib.format.write_array(f, np.asarray(value), allow_pickle=False)  # a 0-d array for a scalar
            return {"npy": written[id(value)], "scalar": isinstance(value, np.generic)}
        if isinstance(value, str) and os.path.isfile(value):  # an artifact (a checkpoint) from the fixtures
            self._files += 1
            target = folder / f"file-{self._files}-{os.path.basename(value)}"
            try:
                os.link(value, target)  # same inode, shown read-only; the fixture folder itself stays unseen
                if not os.stat(target).st_mode & 0o004:
                    raise OSError("not readable by others")
            except OSError:
                target.unlink(missing_ok=True)
                shutil.copyfile(value, target)
                os.chmod(target, 0o644)
            return {"file": target.name}
        try:
            json.dumps(value, allow_nan=True)
        except (TypeError, ValueError) as e:
            raise GraderError(f"an input of type {type(value).__name__} cannot be passed into the jail") from e
        return {"value": value}

    # --- watching one job ---

    def _watch(self, box: _Box, job: _Job, cancel: Callable[[], bool] | None) -> Iterator[Outcome]:
        """Read the jail's frames and the calls' streams until the job ends; yield each call's outcome."""
        poller = job.poller
        for fd in (box.results, box.diag):
            poller.register(fd, select.POLLIN)
        while job.end is None:
            if cancel is not None and cancel():
                job.end = "cancelled"
                return
            now = time.monotonic()
            if now >= job.deadline:
                yield from job.stop(box, now, "timeout")
                return
            if job.over_cpu(box):
                yield from job.stop(box, now, "cpu")
                return
            wait = job.deadline - now
            if cancel is not None or job.cpu_seconds is not None:
                wait = min(wait, 0.02)
            for fd, _ in poller.poll(max(1, int(wait * 1000))):
                yield from self._read(box, job, poller, fd)
                if job.end is not None:
                    return

    def _read(self, box: _Box, job: _Job, poller: select.poll, fd: int) -> Iterator[Outcome]:
        """One ready descriptor: frames from the result pipe, text from the diagnostics or a call's stream."""
        try:
            data = os.read(fd, 1 << 20)
        except BlockingIOError:
            return
        if fd not in (box.results, box.diag):
            job.stream_data(fd, data)  # a call's stdout or stderr
            return
        if fd == box.diag:
            box.diag_text.add(data)
        if not data:
            poller.unregister(fd)
            if fd == box.results:  # the jail's resident process is gone
                yield from job.stop(box, time.monotonic(), "gone")
        if fd == box.diag or not data:
            return
        for header, parts in job.frames.feed(data):
            out = job.on_frame(box, header, parts)
            if out is not None:
                yield out
            if job.end is not None:
                return
        if job.frames.broken is not None:
            yield from job.stop(box, time.monotonic(), "broken")


class _Job:
    """The grader's view of one job: whose turn it is, its deadline, its streams; turns frames into Outcomes."""

    def __init__(self, calls: list[Call], limits: Limits, caps: list[int], streams: list[int], folder: Path,
                 cpu_seconds: float | None, deadline: float) -> None:
        self.calls, self.limits, self.caps, self.folder = calls, limits, caps, folder
        self.streams = streams  # stdout, stderr read ends: call i has streams[2i], streams[2i + 1]
        self.text = {fd: sandbox._Stream() for fd in streams}
        self.open = set(streams)
        self.poller = select.poll()
        for fd in streams:
            self.poller.register(fd, select.POLLIN)
        self.frames = _Frames()
        self.cpu_seconds, self.deadline = cpu_seconds, deadline
        self.reported, self.awaiting, self.started = 0, False, time.monotonic()
        self.oom0, self.cpu0, self.cpu_checked = 0, 0.0, 0.0
        self.end: str | None = None  # done, retired (the rest need a new worker), dead (and the jail), cancelled

    def close(self) -> None:
        for fd in list(self.open):
            self._close(fd)
        shutil.rmtree(self.folder, ignore_errors=True)

    def _close(self, fd: int) -> None:
        """Stop reading a call's stream: whatever still writes to it (a stray) gets EPIPE."""
        self.poller.unregister(fd)
        self.open.discard(fd)
        os.close(fd)

    def stream_data(self, fd: int, data: bytes) -> None:
        if data:
            self.text[fd].add(data)
        elif fd in self.open:
            self._close(fd)

    def _texts(self, i: int) -> tuple[str, str]:
        """Call i's stdout and stderr: what is left in its pipes drained, then its pipes closed."""
        out, err = self.streams[2 * i], self.streams[2 * i + 1]
        for fd in (out, err):
            for _ in range(64 if fd in self.open else 0):  # at most 64 MiB more; the rest is dropped with the pipe
                try:
                    data = os.read(fd, 1 << 20)
                except OSError:  # BlockingIOError: nothing more for now
                    break
                if not data:
                    break
                self.text[fd].add(data)
            if fd in self.open:
                self._close(fd)
        return self.text[out].text(), self.text[err].text()

    def on_frame(self, box: _Box, header: dict[str, Any], parts: list[bytes]) -> Outcome | None:
        """One frame, strictly in order: (ready), start 0, result 0, start 1, ..., ended. Anything else is broken."""
        now = time.monotonic()
        if "ready" in header and not box.ready:
            box.ready = True
            return None
        if "ended" in header:
            if self.reported == len(self.calls) and not self.awaiting:
                self.end = "done"
                return None
            if not self.awaiting and self.reported > 0 and _how(header) == (None, RETIRED):
                self.end = "retired"  # the last call left something running: the rest go to a new worker
                return None
            return self._died(box, now, _how(header))
        if "start" in header:
            if self.awaiting or header["start"] != self.reported or type(header["start"]) is not int:
                self.frames.broken = "sent frames out of order (was the grader's pipe written to?)"
                return None
            self.awaiting, self.started = True, now
            self.deadline = now + self.limits.timeout
            self.frames.cap = self.caps[self.reported]
            self.oom0, self.cpu0 = box.cgroup.oom_kills(), box.cgroup.cpu_seconds() or 0.0
            return None
        if not self.awaiting:
            self.frames.broken = "sent a result the grader did not ask for (was the grader's pipe written to?)"
            return None
        i, call = self.reported, self.calls[self.reported]
        stdout, stderr = self._texts(i)
        out = _outcome(call, header, parts, stdout, stderr, now - self.started)
        if box.cgroup.oom_kills() > self.oom0:  # a process of this call was killed for memory: that is the verdict
            out = _memory(call, stdout, stderr, now - self.started, box.memory_mb)
        self.reported, self.awaiting, self.frames.cap = i + 1, False, 0
        # The next call's time starts now (loading its inputs takes milliseconds); after the last, the worker's exit
        # and the resident process's 'ended' are due.
        self.deadline = now + (self.limits.timeout if self.reported < len(self.calls) else ENDED_WAIT)
        return out

    def _died(self, box: _Box, now: float, how: tuple[int | None, int | None]) -> Outcome:
        """The worker (or the whole jail) ended before call `reported` answered: say how, from the cgroup first."""
        self.end = "dead"
        call = self.calls[self.reported]
        stdout, stderr = self._texts(self.reported)
        if box.cgroup.oom_kills() > self.oom0:
            return _memory(call, stdout, stderr, now - self.started, box.memory_mb)
        return _death(call, how, stdout, stderr, now - self.started)

    def stop(self, box: _Box, now: float, why: str) -> Iterator[Outcome]:
        """The job cannot go on (timeout, CPU, broken frames, the jail gone): the current call's outcome, if due."""
        self.end = "dead"
        if self.reported >= len(self.calls):
            return
        call = self.calls[self.reported]
        if not box.ready:
            raise JailError(f"the jail did not start: {_diagnosis(box)}")
        if why == "gone":
            if not self.awaiting and self.reported > 0 and box.cgroup.oom_kills() == self.oom0:
                return  # ended between calls: the rest run in a new jail
            yield self._died(box, now, (None, None))
            return
        stdout, stderr = self._texts(self.reported)
        if why == "broken":
            if self.awaiting or self.reported == 0:
                yield _final(call, Status.BAD_OUTPUT, self.frames.broken or "", stdout, stderr, now - self.started)
            return
        message = (f"took longer than {self.limits.timeout:g} s and was stopped. Look for a loop that never ends, or "
                   "work that grows much faster than the input." if why == "timeout" else
                   f"used more than {self.cpu_seconds:g} s of CPU time and was stopped (all its processes and "
                   "threads together). Look for work that grows much faster than the input.")
        yield _final(call, Status.TIMEOUT, message, stdout, stderr, now - self.started)

    def over_cpu(self, box: _Box) -> bool:
        """Whether the current call has used more CPU time than allowed (checked at most every 20 ms)."""
        if self.cpu_seconds is None or not self.awaiting:
            return False
        now = time.monotonic()
        if now - self.cpu_checked < 0.02:
            return False
        self.cpu_checked = now
        used = box.cgroup.cpu_seconds()
        return used is not None and used - self.cpu0 > self.cpu_seconds


# --- frames and outcomes -------------------------------------------------------------------------------------


class _Frames:
    """The result stream as (JSON header, payloads) frames; refuses a frame the moment it is known to be too big.

    A header longer than HEADER_CAP is refused from its 8-byte length, a frame whose header announces more payload
    than `cap` (set per call; 0 between calls) from its header: neither is read any further, so what the jail can
    make the grader hold is bounded by the current call's cap. Headers must be JSON objects of finite numbers
    (NaN, Infinity, 1e999 are refused) with a list of non-negative int payload sizes.
    """

    def __init__(self) -> None:
        self.buf = bytearray()
        self.cap = 0
        self.broken: str | None = None
        self.head: tuple[dict[str, Any], list[int]] | None = None

    def feed(self, data: bytes) -> Iterator[tuple[dict[str, Any], list[bytes]]]:
        self.buf += data
        while self.broken is None:
            if self.head is None:
                if len(self.buf) < child.HEADER.size:
                    return
                (n,) = child.HEADER.unpack_from(self.buf)
                if n > HEADER_CAP:
                    self.broken = "sent something the grader could not read (was the grader's pipe written to?)"
                    return
                if len(self.buf) < child.HEADER.size + n:
                    return
                header = _parse_header(bytes(self.buf[child.HEADER.size:child.HEADER.size + n]))
                if header is None:
                    self.broken = "sent something the grader could not read (was the grader's pipe written to?)"
                    return
                if sum(header["parts"]) > self.cap:
                    self.broken = (f"returned more than {_size(self.cap)} of output (4x the expected output's size, "
                                   "plus 1 MiB)" if self.cap else "sent output the grader did not ask for")
                    return
                del self.buf[:child.HEADER.size + n]
                self.head = (header, header["parts"])
            header, sizes = self.head
            if len(self.buf) < sum(sizes):
                return
            parts, at = [], 0
            for s in sizes:
                parts.append(bytes(self.buf[at:at + s]))
                at += s
            del self.buf[:at]
            self.head = None
            yield header, parts


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text[:20]}")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse_header(raw: bytes) -> dict[str, Any] | None:
    """A frame header, or None if it is not a JSON object with a proper `parts` list."""
    try:
        header = json.loads(raw, parse_float=_finite, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(header, dict):
        return None
    parts = header.get("parts", [])
    if not isinstance(parts, list) or len(parts) > 1024 or not all(type(p) is int and p >= 0 for p in parts):
        return None
    header["parts"] = parts
    return header


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"


def _text(value: Any, cap: int) -> str:
    """Text from the jail, safe to print and to encode: cut to `cap`, lone surrogates escaped."""
    if not isinstance(value, str):
        return ""
    return value[:cap].encode("utf-8", "backslashreplace").decode("utf-8")


def _npy(data: bytes) -> np.ndarray:
    """An .npy payload read strictly: numeric dtype, non-negative shape, exactly as many bytes as it declares."""
    f = io.BytesIO(data)
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    if dtype.hasobject or dtype.fields is not None or dtype.kind not in "biufc" or any(d < 0 for d in shape):
        raise ValueError("not an array of numbers")
    body = memoryview(data)[f.tell():]
    if len(body) != math.prod(shape) * dtype.itemsize:
        raise ValueError("size does not match the shape")
    return np.frombuffer(body, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy()


def _outcome(call: Call, header: dict[str, Any], parts: list[bytes], stdout: str, stderr: str,
             seconds: float) -> Outcome:
    """A result frame as an Outcome: a value to compare, or one of the statuses a call may claim for itself."""
    modules = header.get("modules")
    common: dict[str, Any] = {"stdout": _text(stdout, 1 << 20), "stderr": _text(stderr, 1 << 20),
                              "seconds": seconds, "modules": [_text(m, 200) for m in modules[:1000]
                                                              if isinstance(m, str)]
                              if isinstance(modules, list) else []}
    status = header.get("status")
    if status != "ok":
        try:
            claimed = Status(status) if isinstance(status, str) else None
        except ValueError:
            claimed = None
        if claimed is None:
            return Outcome(call.case, Status.BAD_OUTPUT, message="sent a result the grader could not read",
                           **common)
        if claimed not in sandbox._CHILD_STATUSES:
            return Outcome(call.case, Status.BAD_OUTPUT, message=f"claimed the status '{claimed.value}' for itself; "
                           "only the grader decides that (was the grader's pipe written to?)", **common)
        return Outcome(call.case, claimed, message=_text(header.get("message"), sandbox.MESSAGE_CAP), **common)
    keys = header.get("keys")
    if (not isinstance(keys, list) or len(keys) != len(parts) or not all(isinstance(k, str) for k in keys)
            or len(set(keys)) != len(keys)):
        return Outcome(call.case, Status.BAD_OUTPUT, message="sent an output the grader could not read", **common)
    try:
        value = {k: _npy(p) for k, p in zip(keys, parts, strict=True)}
    except Exception:  # noqa: BLE001 - any malformed bytes are the submission's problem, never the grader's
        return Outcome(call.case, Status.BAD_OUTPUT, message="returned a value the grader could not read as an "
                       "array of numbers", **common)
    return Outcome(call.case, None, value=value, **common)


def _final(call: Call, status: Status, message: str, stdout: str, stderr: str, seconds: float) -> Outcome:
    return Outcome(call.case, status, message=message, stdout=_text(stdout, 1 << 20), stderr=_text(stderr, 1 << 20),
                   seconds=seconds)


def _memory(call: Call, stdout: str, stderr: str, seconds: float, memory_mb: int) -> Outcome:
    return _final(call, Status.MEMORY, f"used more than {memory_mb} MiB of memory (all its processes and the files "
                  "it wrote, counted together) and was stopped. Check the size of the arrays you create.",
                  stdout, stderr, seconds)


def _how(header: dict[str, Any]) -> tuple[int | None, int | None]:
    """(signal, exit code) of an 'ended' frame; anything but small ints is unknown."""
    sig, code = header.get("signal"), header.get("code")
    return (sig if type(sig) is int and 0 < sig < 65 else None, code if type(code) is int and 0 <= code < 256
            else None)


def _death(call: Call, how: tuple[int | None, int | None], stdout: str, stderr: str, seconds: float) -> Outcome:
    """How the process running `call` ended without answering, in the words sandbox.py uses."""
    sig, code = how
    if sig == signal.SIGKILL:
        return _final(call, Status.CRASHED, "was killed (SIGKILL), by the code itself or by the system. Check the "
                      "size of the arrays you create.", stdout, stderr, seconds)
    if sig is not None:
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return _final(call, Status.CRASHED, f"crashed: the process was killed by {name}. This happens with a "
                      "segmentation fault in native code or an abort().", stdout, stderr, seconds)
    if code is not None:
        return _final(call, Status.EXITED, f"ended the process (exit code {code}) instead of returning: remove "
                      "calls to exit(), sys.exit() or os._exit(), and closing the grader's pipes.", stdout, stderr,
                      seconds)
    return _final(call, Status.CRASHED, "ended the grading sandbox's own processes instead of returning (kill(-1)? "
                  "closing every descriptor?)", stdout, stderr, seconds)


def _diagnosis(box: _Box) -> str:
    """What bubblewrap (or the resident process) said before the jail failed to start, for a JailError."""
    try:
        box.proc.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.set_blocking(box.diag, False)
        while data := os.read(box.diag, 1 << 16):
            box.diag_text.add(data)
    except OSError:
        pass
    said = box.diag_text.text().strip()[-2000:]
    return said or f"bubblewrap exited with {box.proc.returncode}, saying nothing"


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


def _read_now(fd: int) -> str:
    """Whatever is already waiting in `fd` (bubblewrap's complaint), without blocking."""
    try:
        os.set_blocking(fd, False)
        return os.read(fd, 4096).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    finally:
        os.close(fd)
