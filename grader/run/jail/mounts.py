"""What a jail sees of the host, as bubblewrap's options: an allow-list, and nothing else.

The OS's /usr read-only (/usr/local hidden) and the /bin, /lib... links of a merged-/usr system; the interpreter,
its standard library and shared library (at /jail/python when Python is installed outside /usr, so no /root or /opt
skeleton shows where it lives); the packages a learner may import (`Settings.packages`: the course's runtime
dependencies and what they need, packages.py) at /jail/site; the grader's own code at /jail/lib; a read-only copy
of the submission's student/ at /submission/student and the job's inputs at /jail/job (both from the grader's
private staging folder); a fresh /proc and /dev; small private tmpfs for /tmp, /var/tmp and /dev/shm. No course
folder, .git, fixtures, expected outputs, other submissions, gradebook, /root, /home or /etc; no host environment.
"""

from __future__ import annotations

import functools
import os
import sys
import sysconfig
from collections.abc import Sequence

from grader.records import Record, field
from grader.run.jail import packages as course_packages

UID_INSIDE = 1000
ROOT_IN_JAIL = "/submission"  # the learner's student/ is /submission/student
JOBS_IN_JAIL = "/jail/job"
LIB_IN_JAIL = "/jail/lib"  # the grader package
SITE_IN_JAIL = "/jail/site"  # the packages a learner may import
PY_IN_JAIL = "/jail/python"  # a Python installed outside /usr
SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")  # the only folders a jail may write in
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp"}


class Settings(Record, frozen=True):
    """What every jail of a submission gets, beyond the per-stage `Limits` (timeout, memory)."""

    pids: int = 64  # processes and threads, all together
    cpus: float = 1.0  # CPU bandwidth (and the BLAS thread count)
    tmp_mb: int = 64  # size of /tmp and of /var/tmp, each (their pages also count as the jail's memory)
    # importable by the learner, with what they need, when installed: the course's runtime dependencies (packages.py)
    packages: tuple[str, ...] = field(default_factory=lambda: tuple(course_packages.requirements()))
    startup_timeout: float = 60.0  # seconds for an interpreter to start and load a run's inputs


class Bind(Record, frozen=True):
    """One host path shown read-only in the jail."""

    source: str
    dest: str
    file: bool = False


class Runtime(Record, frozen=True):
    """What the jail needs of the host's Python: binds, folders hidden, packages found, interpreter, environment."""

    binds: tuple[Bind, ...]
    hide: tuple[str, ...]
    packages: tuple[str, ...]
    python: str  # the interpreter's path in the jail
    env: tuple[tuple[str, str], ...]


def _under_usr(path: str) -> bool:
    """Whether the jail's read-only /usr already shows `path` (/usr/local is hidden)."""
    return path.startswith("/usr/") and not path.startswith("/usr/local/")


@functools.cache
def runtime(packages: tuple[str, ...]) -> Runtime:
    """The interpreter, its standard library and shared library, the allowed packages and the grader, as binds.

    A Python installed outside /usr (pyenv below /root, /usr/local, /opt) appears at PY_IN_JAIL; it finds its
    standard library from its own location, and its libpython through LD_LIBRARY_PATH.
    """
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
    binds: list[Bind] = []
    for path, is_file in ((stdlib, False), (shared, False), (exe, True), (lib, True)):
        covered = not moved and _under_usr(path) or (path != stdlib and path.startswith(stdlib + "/"))
        if path and os.path.exists(path) and not covered:
            binds.append(Bind(os.path.realpath(path), where(path), is_file))
    hide = tuple(where(p) for p in (os.path.join(stdlib, "site-packages"), os.path.join(stdlib, "dist-packages"))
                 if os.path.isdir(p))
    found, paths = course_packages.installed(packages)
    for source in paths:  # package folders, modules, a wheel's shared libraries (numpy.libs), .dist-info
        binds.append(Bind(source, f"{SITE_IN_JAIL}/{os.path.basename(source)}", not os.path.isdir(source)))
    grader = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    binds.append(Bind(grader, f"{LIB_IN_JAIL}/grader"))
    env = (("LD_LIBRARY_PATH", os.path.dirname(where(lib))),) if lib and where(lib) != lib else ()
    return Runtime(tuple(dict.fromkeys(binds)), hide, found, where(exe), env)


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


def bwrap_args(rt: Runtime, binds: Sequence[Bind], settings: Settings) -> list[str]:
    """Bubblewrap's options (passed with --args, so not on its command line): namespaces, mounts, environment."""
    # --as-pid-1: the resident process is the jail's init, which nothing in the jail can signal (kill(-1) too)
    args = ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--as-pid-1",
            "--cap-drop", "ALL", "--uid", str(UID_INSIDE), "--gid", str(UID_INSIDE), "--hostname", "jail",
            "--clearenv"]
    threads = str(max(1, int(settings.cpus)))
    for key, value in {**ENV, "OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads,
                       "MKL_NUM_THREADS": threads, **dict(rt.env)}.items():
        args += ["--setenv", key, value]
    args += _system_args()
    for b in binds:
        args += ["--ro-bind", b.source, b.dest]
    for folder in rt.hide:
        args += ["--size", "4096", "--tmpfs", folder]
    # /dev/pts/ptmx is a read-only bind of /dev/null (bubblewrap makes it nodev: it cannot be opened): every devpts
    # instance draws from the machine's one pool of ptys, which a jail could fill to a count another reads (red team
    # round 6), or empty for every container on the machine
    # /dev/zero likewise: a shared mapping of it is a file of the kernel's shmem mount, numbered by a
    # machine-wide counter a jail can set and a later one read (red team round 18; seccomp.py refuses the
    # anonymous kind)
    args += ["--proc", "/proc", "--dev", "/dev", "--ro-bind", "/dev/null", "/dev/pts/ptmx",
             "--ro-bind", "/dev/null", "/dev/zero"]
    # Host-wide figures one jail can move and another read, without a refused call (red team round 4): every lock
    # on the machine, and /proc/sys's counters of open files (file-nr), inodes and dentries.
    args += ["--ro-bind", "/dev/null", "/proc/locks", "--size", "4096", "--tmpfs", "/proc/sys"]
    args += proc_hidden()
    for folder, size in (("/tmp", settings.tmp_mb << 20), ("/var/tmp", settings.tmp_mb << 20),
                         ("/dev/shm", 1 << 20)):
        args += ["--size", str(size), "--tmpfs", folder]
    # Every other tmpfs stands in for something hidden, and /dev holds device nodes only: all read-only, so the
    # jail's scratch space is /tmp, /var/tmp and /dev/shm, each of its size (red team round 13: eleven stand-ins took
    # files, /usr/local and /dev up to half the machine's memory). `--remount-ro /` is of the root mount alone.
    stand_ins = [args[i + 1] for i in range(len(args) - 1) if args[i] == "--tmpfs" and args[i + 1] not in SCRATCH]
    for folder in (*stand_ins, "/dev"):
        args += ["--remount-ro", folder]
    return args + ["--remount-ro", "/", "--chdir", "/tmp"]


# What of /proc's host-wide part a jail gets: its own processes (the numbered folders, self), static facts, and the
# fixed stand-ins below. An allow-list: red team round 5 crossed through /proc/meminfo, round 6 (after it was
# replaced) through the same figure in /proc/zoneinfo; /proc/pressure, interrupts, softirqs, diskstats, buddyinfo
# and cgroups carry more of the kind.
PROC_KEPT = frozenset({"self", "thread-self", "mounts", "net", "cpuinfo", "filesystems", "version", "sys", "locks",
                       "meminfo", "stat", "loadavg", "vmstat", "uptime"})


def proc_hidden(proc: str = "/proc") -> list[str]:
    """Options hiding the rest of /proc's host-wide part: /dev/null over each file, an empty tmpfs over each folder.

    Each file's /dev/null is a read-only bind, which bubblewrap mounts nodev: it cannot be opened (EACCES).
    The names are read from the host's /proc: the jail's procfs is of the same kernel.
    """
    args: list[str] = []
    for name in sorted(os.listdir(proc)):
        path = f"/proc/{name}"
        if name.isdigit() or name in PROC_KEPT or os.path.islink(os.path.join(proc, name)):
            continue
        if os.path.isdir(os.path.join(proc, name)):
            args += ["--size", "4096", "--tmpfs", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    return args


def proc_standins(memory_mb: int) -> dict[str, bytes]:
    """Fixed stand-ins for the host-wide figures a jail could set and another read exactly (red team round 5).

    The machine's memory (`Shmem:` carried a hidden input between two jails), its CPU counters and fork count
    (`processes` carried one from a stage's hidden cases to the next stage's public output), its load and VM
    counters. They keep the formats programs parse (glibc counts `cpuN` lines of /proc/stat for the number of
    processors) and say nothing of the host: the memory is the jail's own limit.
    """
    cpus = os.cpu_count() or 1
    kb = memory_mb * 1024
    stat = "cpu  0 0 0 0 0 0 0 0 0 0\n" + "".join(f"cpu{i} 0 0 0 0 0 0 0 0 0 0\n" for i in range(cpus))
    stat += "intr 0\nctxt 0\nbtime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n"
    meminfo = "".join(f"{k}:{v:>16} kB\n" for k, v in (("MemTotal", kb), ("MemFree", kb), ("MemAvailable", kb),
                                                         ("Buffers", 0), ("Cached", 0), ("SwapTotal", 0),
                                                         ("SwapFree", 0), ("Shmem", 0)))
    return {"/proc/stat": stat.encode(), "/proc/meminfo": meminfo.encode(), "/proc/loadavg": b"0.00 0.00 0.00 1/1 1\n",
            "/proc/vmstat": b"nr_free_pages 0\n", "/proc/uptime": b"1.00 0.00\n"}  # (uptime: the host's idle time)
