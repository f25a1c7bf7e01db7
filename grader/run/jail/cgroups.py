"""One control group per jail (grader/run/jail/): memory, processes and CPU of everything the jail runs, together.

The memory limit counts every process of the jail *and* the pages of its tmpfs files and memfds, which per-process
limits (RLIMIT_AS) never see; swap is turned off for the group where the kernel allows. The pids limit bounds forks
(a fork bomb, seventy setsid() children). CPU is capped at `cpus` CPUs (bandwidth), and the group's CPU time can be
read to enforce a budget. `kill()` ends every process in the group at once (cgroup.kill on v2; freeze, kill, thaw on
v1) and `remove()` deletes the group.

Both cgroup versions are supported. v2 (the unified hierarchy, most machines today) is used when the memory and
pids controllers can be enabled below this process's own cgroup; otherwise the v1 hierarchies for memory and pids
(and cpu, cpuacct, freezer where mounted) are used. Groups are created below this process's own group, so limits
set above it (a container's, a systemd slice's) still hold. `detect()` says why neither can be used.
"""

from __future__ import annotations

import errno
import os
import secrets
import signal
import time
from pathlib import Path

from grader.records import Record, field

PREFIX = "grader-jail-"
CPU_PERIOD_US = 100_000
V2_CONTROLLERS = ("memory", "pids", "cpu")  # cpu is optional


class CgroupUnavailable(Exception):
    """No cgroup hierarchy this process can create limited groups in; the message says why."""


class Layout(Record):
    """Where this process's jails' groups go: one parent folder (v2) or one per v1 controller."""

    version: int
    parents: dict[str, Path] = field(default_factory=dict)  # controller ('' for v2) -> parent folder


def _mounts(path: str = "/proc/self/mountinfo") -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root within the hierarchy, fstype, super options) of every cgroup mount."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) >= 5 and tail and tail[0] in ("cgroup", "cgroup2"):
                point = fields[4].replace("\\040", " ")
                out.append((point, fields[3], tail[0], set(tail[2].split(",")) if len(tail) > 2 else set()))
    return out


def _own_paths(path: str = "/proc/self/cgroup") -> dict[str, str]:
    """The group this process is in, per controller ('' for the v2 hierarchy), from /proc/self/cgroup."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split(":", 2)
            if len(parts) == 3:
                for name in parts[1].split(",") if parts[1] else [""]:
                    out[name] = parts[2]
    return out


def _below(point: str, root: str, own: str) -> Path:
    """The folder of group `own` in a hierarchy mounted at `point` whose mount shows group `root`."""
    rel = own[len(root):] if root != "/" and own.startswith(root) else own
    return Path(point) / rel.lstrip("/")


def detect() -> Layout:
    """The cgroup layout jails can use here: v2 if its memory and pids controllers can be had, else v1."""
    mounts, own = _mounts(), _own_paths()
    problems = []
    for point, root, fstype, _ in mounts:
        if fstype == "cgroup2" and "" in own:
            parent = _below(point, root, own[""])
            try:
                _enable_v2(parent)
                return Layout(2, {"": parent})
            except OSError as e:
                problems.append(f"cgroup v2 at {parent}: {e.strerror or e}")
    parents: dict[str, Path] = {}
    for point, root, fstype, options in mounts:
        for name in ("memory", "pids", "cpu", "cpuacct", "freezer"):
            if fstype == "cgroup" and name in options and name in own:
                parents[name] = _below(point, root, own[name])
    missing = [n for n in ("memory", "pids") if n not in parents or not os.access(parents[n], os.W_OK)]
    if not missing:
        return Layout(1, parents)
    problems.append(f"cgroup v1: no writable {' or '.join(missing)} hierarchy")
    raise CgroupUnavailable("; ".join(problems) or "no cgroup file system is mounted")


def _enable_v2(parent: Path) -> None:
    """Make the memory and pids (and cpu, if offered) controllers available to new groups below `parent`.

    A v2 group that holds processes cannot hand controllers down ("no internal processes"): when this process's own
    group is such a group (a container's root, a login session's scope), its processes move to a leaf `grader` first.
    """
    offered = (parent / "cgroup.controllers").read_text().split()
    if not {"memory", "pids"} <= set(offered):
        raise OSError(errno.ENOTSUP, f"the memory and pids controllers are not delegated here ({' '.join(offered)})")
    wanted = [c for c in V2_CONTROLLERS if c in offered]
    if set(wanted) <= set((parent / "cgroup.subtree_control").read_text().split()):
        return
    text = " ".join("+" + c for c in wanted)
    try:
        _write(parent / "cgroup.subtree_control", text)
    except OSError as e:
        if e.errno != errno.EBUSY:
            raise
        leaf = parent / "grader"
        leaf.mkdir(exist_ok=True)
        for pid in (parent / "cgroup.procs").read_text().split():
            try:
                _write(leaf / "cgroup.procs", pid)
            except OSError:
                pass  # ended meanwhile, or a kernel thread
        _write(parent / "cgroup.subtree_control", text)


def _write(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _field(text: str | None, key: str) -> int | None:
    """`key N` in a flat-keyed cgroup file (memory.events, cpu.stat, memory.oom_control)."""
    for line in (text or "").splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return None


_seq = 0


class Cgroup:
    """One jail's group: created with its limits, joined by the jail's first process, killed and removed after."""

    def __init__(self, layout: Layout, memory_mb: int, pids: int, cpus: float) -> None:
        global _seq
        _seq += 1
        # The random part: in a PID namespace (CI's) this process's pid and _seq repeat from run to run, and a group
        # a killed run left under that name is never taken by the sweep (its owner's pid is alive: this process).
        self.version, self.name = layout.version, f"{PREFIX}{os.getpid()}-{_seq}-{secrets.token_hex(4)}"
        self.dirs = {name: parent / self.name for name, parent in layout.parents.items()}
        self.limits: list[str] = []
        made: list[Path] = []
        try:
            for folder in dict.fromkeys(self.dirs.values()):  # v1 may mount several controllers together
                folder.mkdir(mode=0o755)
                made.append(folder)
            self._limit(memory_mb, pids, cpus)
        except OSError:
            for folder in reversed(made):
                _rmdir(folder)
            raise

    def _dir(self, controller: str) -> Path | None:
        return self.dirs.get("" if self.version == 2 else controller)

    def _limit(self, memory_mb: int, pids: int, cpus: float) -> None:
        """Memory (swap off where possible), pids and CPU bandwidth; every limit that could not be set raises."""
        self.set_memory(memory_mb)
        pid_dir = self._dir("pids")
        assert pid_dir is not None
        _write(pid_dir / "pids.max", str(pids))
        self.limits.append(f"{pids} processes")
        cpu = self._dir("cpu")
        quota = max(1000, int(cpus * CPU_PERIOD_US))
        if cpu is not None and self.version == 2 and (cpu / "cpu.max").exists():
            _write(cpu / "cpu.max", f"{quota} {CPU_PERIOD_US}")
            self.limits.append(f"{cpus:g} CPU")
        elif cpu is not None and self.version == 1 and (cpu / "cpu.cfs_quota_us").exists():
            _write(cpu / "cpu.cfs_period_us", str(CPU_PERIOD_US))
            _write(cpu / "cpu.cfs_quota_us", str(quota))
            self.limits.append(f"{cpus:g} CPU")

    def set_memory(self, memory_mb: int) -> None:
        """All the group's memory (processes, tmpfs, memfd) capped at `memory_mb` MiB, and no swap."""
        folder = self._dir("memory")
        assert folder is not None
        cap = str(memory_mb << 20)
        if self.version == 2:
            _write(folder / "memory.max", cap)
            swap = folder / "memory.swap.max"
        else:
            _write(folder / "memory.limit_in_bytes", cap)
            swap = folder / "memory.memsw.limit_in_bytes"  # memory + swap; present where swap is accounted
        if swap.exists():
            _write(swap, "0" if self.version == 2 else cap)
        self.limits = [x for x in self.limits if "memory" not in x]
        self.limits.insert(0, f"{memory_mb} MiB memory for all its processes and files, no swap"
                           if swap.exists() else f"{memory_mb} MiB memory for all its processes and files")

    def procs_files(self) -> list[str]:
        """The cgroup.procs file of every hierarchy: a process joins the group by writing its pid into each."""
        return [str(folder / "cgroup.procs") for folder in dict.fromkeys(self.dirs.values())]

    def members(self) -> list[int]:
        folder = self._dir("pids")
        text = _read(folder / "cgroup.procs") if folder is not None else None
        return [int(p) for p in (text or "").split()]

    def oom_kills(self) -> int:
        """How many processes the kernel killed in this group for want of memory (0 where it cannot say)."""
        folder = self._dir("memory")
        assert folder is not None
        if self.version == 2:
            return _field(_read(folder / "memory.events"), "oom_kill") or 0
        return _field(_read(folder / "memory.oom_control"), "oom_kill") or 0

    def memory_peak(self) -> int | None:
        """The most memory the group held at once, in bytes (None where the kernel does not say)."""
        folder = self._dir("memory")
        assert folder is not None
        text = _read(folder / ("memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"))
        return int(text) if text and text.strip().isdigit() else None

    def cpu_seconds(self) -> float | None:
        """CPU time used by the group's processes so far (None where it cannot be read)."""
        if self.version == 2:
            usec = _field(_read(self.dirs[""] / "cpu.stat"), "usage_usec")
            return None if usec is None else usec / 1e6
        folder = self._dir("cpuacct")
        text = _read(folder / "cpuacct.usage") if folder is not None else None
        return int(text) / 1e9 if text and text.strip().isdigit() else None

    def kill(self, wait: float = 5.0) -> bool:
        """SIGKILL every process of the group and wait until it is empty; False if some process outlived `wait`."""
        if self.version == 2 and (self.dirs[""] / "cgroup.kill").exists():
            _write(self.dirs[""] / "cgroup.kill", "1")  # atomic: nothing forks past it
        else:
            self._kill_frozen()
        deadline = time.monotonic() + wait
        delay = 0.0005
        while self.members():
            if time.monotonic() > deadline:
                return False
            self._kill_frozen()  # v1 (or a v2 kernel before 5.14): anything forked meanwhile
            time.sleep(delay)
            delay = min(delay * 2, 0.02)
        return True

    def _kill_frozen(self) -> None:
        """Freeze the group (where a freezer exists), SIGKILL every member, thaw: no fork slips between the two."""
        freezer = self._dir("freezer") if self.version == 1 else self.dirs[""]
        state = None
        if freezer is not None:
            state, frozen, thawed = (("freezer.state", "FROZEN", "THAWED") if self.version == 1
                                     else ("cgroup.freeze", "1", "0"))
            try:
                _write(freezer / state, frozen)
            except OSError:
                state = None
        for pid in self.members():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if state is not None and freezer is not None:
            _write(freezer / state, thawed)

    def remove(self) -> None:
        """Delete the group's folders (after `kill`); a folder still busy is retried briefly, then left."""
        for folder in dict.fromkeys(self.dirs.values()):
            _rmdir(folder)


def _rmdir(folder: Path) -> None:
    for delay in (0, 0.001, 0.01, 0.05, 0.2):
        time.sleep(delay)
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as e:
            if e.errno != errno.EBUSY:
                return
