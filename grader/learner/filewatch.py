"""Where the watch loop's file changes come from: native file events (watchfiles), or polling a few files.

Only the files a stage depends on matter: the learner's `.py` files under student/, the stage's folder under
stages/ and its fixtures. Editors' temporary and swap files are ignored wherever they appear.

Native events are used where they work. Polling is used when asked for (`--poll`), when the course lives on a
file system where events from other systems don't arrive (WSL's /mnt drives, network shares, Docker Desktop
and VM shares), when the event watcher cannot start (an exhausted inotify limit), and when a once-a-second
check sees a change that no event reported. The poller compares nanosecond modification times, sizes and
inodes, plus a digest of small files whose clock has whole seconds only, so two saves in one second are seen.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

POLL_INTERVAL = 0.05  # seconds between polls when polling
WATCHDOG_INTERVAL = 1.0  # seconds between checks that events still arrive
EVENT_STEP_MS = 3  # watchfiles batches a burst's events until this long passes without a new one
ARM_TIMEOUT = 2.0  # seconds to wait at start for the event watcher to be in place
EVENT_DEBOUNCE_MS = 400  # ... or until this long after its first event (well within WATCHDOG_INTERVAL)

# File systems where inotify does not see changes made by another machine or the host.
NO_EVENTS = {"9p": "a WSL /mnt drive or VM share", "drvfs": "a WSL /mnt drive", "nfs": "a network share",
             "nfs4": "a network share", "cifs": "a network share", "smb3": "a network share",
             "smbfs": "a network share", "virtiofs": "a VM or Docker Desktop share",
             "fakeowner": "a Docker Desktop share", "vboxsf": "a VirtualBox share",
             "prl_fs": "a Parallels share", "vmhgfs": "a VMware share", "fuse": "a FUSE file system"}

Signature = tuple[int, int, int, int, str]


def background(target: Callable[..., None], *args: object) -> threading.Thread:
    """Start a daemon thread that leaves signals to the main thread.

    Threads it starts (watchfiles' own) inherit that: a Ctrl-C taken by another thread never wakes the main one.
    """

    def run() -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
        target(*args)

    thread = threading.Thread(target=run, daemon=True, name=f"grader-{target.__name__.strip('_')}")
    thread.start()
    return thread


def ignored(name: str) -> bool:
    """Editors' temporary, swap, backup and lock files."""
    return (name.endswith(("~", ".swp", ".swo", ".swx", ".tmp", ".bak", "___jb_tmp___", "___jb_old___"))
            or name.startswith((".#", "#", ".goutputstream-")) or name in ("4913", ".DS_Store"))


class Targets:
    """The paths one stage depends on, and whether a changed path is one of them."""

    def __init__(self, root: Path, stage_id: str) -> None:
        self.root = root
        self.student = root / "student"
        self.stage_dir = root / "stages" / stage_id
        self.fixture_dir = root / "fixtures" / stage_id

    @property
    def watched(self) -> list[Path]:
        """Folders given to the event watcher: fixed for the course, so changing stage needs no restart."""
        return [p for p in (self.student, self.root / "stages", self.root / "fixtures") if p.is_dir()]

    def relevant(self, path: str | Path) -> bool:
        """Whether a change to `path` can change this stage's grade."""
        p = Path(path)
        if ignored(p.name) or "__pycache__" in p.parts:
            return False
        for base, python_only in ((self.student, True), (self.stage_dir, False), (self.fixture_dir, False)):
            try:
                rel = p.relative_to(base)
            except ValueError:
                continue
            if any(part.startswith(".") for part in rel.parts):
                return False
            return not python_only or p.suffix == ".py" or p == base
        return False

    def files(self, every_fixture: bool = True) -> Iterable[tuple[str, os.stat_result]]:
        """Every relevant file that exists now, with its stat: one scandir per folder, no Path objects.

        Kept cheap: it runs twenty times a second when polling. There, `every_fixture=False` looks only at the
        manifest, which every fixture build rewrites (a file edited by hand is still caught: every grade checks
        the fixtures' digests when their stats change).
        """
        if not every_fixture:
            with contextlib.suppress(OSError):
                manifest = os.path.join(self.fixture_dir, "MANIFEST.json")
                yield manifest, os.stat(manifest)
        for base, python_only, recurse in ((self.student, True, True), (self.stage_dir, False, False),
                                           (self.fixture_dir, False, True))[:3 if every_fixture else 2]:
            todo = [str(base)]
            while todo:
                try:
                    entries = list(os.scandir(todo.pop()))
                except OSError:
                    continue
                for entry in entries:
                    name = entry.name
                    if name.startswith(".") or name == "__pycache__" or ignored(name):
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        if recurse:
                            todo.append(entry.path)
                    elif not python_only or name.endswith(".py"):
                        try:
                            yield entry.path, entry.stat()
                        except OSError:
                            continue


def snapshot(targets: Targets) -> dict[str, Signature]:
    """Each relevant file's nanosecond mtime, size, inode, ctime, and a digest where the clock is coarse."""
    out = {}
    for path, st in targets.files(every_fixture=False):
        digest = ""
        if st.st_mtime_ns % 1_000_000_000 == 0 and st.st_size <= 1 << 20:  # a whole-second clock: look inside
            try:
                digest = hashlib.blake2b(Path(path).read_bytes(), digest_size=16).hexdigest()
            except OSError:
                pass
        out[path] = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns, digest)
    return out


def changed(old: dict[str, Signature], new: dict[str, Signature]) -> set[str]:
    """Paths added, removed or changed between two snapshots."""
    return {p for p in old.keys() | new.keys() if old.get(p) != new.get(p)}


def no_events_reason(path: Path, mounts: str | None = None) -> str | None:
    """Why file events would not arrive for `path`, judged by its file system type, or None."""
    try:
        lines = (Path("/proc/mounts").read_text() if mounts is None else mounts).splitlines()
    except OSError:
        return None
    best, fstype = "", ""
    target = str(path.resolve())
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        if (target == point or target.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
            best, fstype = point, fields[2]
    kind = NO_EVENTS.get(fstype) or NO_EVENTS.get(fstype.split(".")[0])
    return f"{best} is {kind} ({fstype}), where file events may not arrive" if kind else None


class _Armed:
    """The stop event handed to watchfiles, which asks it every step: the first question means it is armed."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop, self.ready, self.armed = stop, threading.Event(), False

    def is_set(self) -> bool:
        if not self.armed:  # asked hundreds of times a second: kept cheap
            self.armed = True
            self.ready.set()
        return self.stop.is_set()

    def wait(self, timeout: float) -> None:
        self.ready.wait(timeout)


class FileSource:
    """Calls on_change(paths) from a background thread whenever relevant files change.

    Calls on_notice(line) when it falls back to polling, with the reason.
    """

    def __init__(self, targets: Targets, on_change: Callable[[set[str]], None],
                 on_notice: Callable[[str], None], poll: bool = False) -> None:
        self.targets = targets
        self.on_change, self.on_notice = on_change, on_notice
        self.stop_event = threading.Event()
        self.polling = False
        self.mode = "events"
        self.event_seen = threading.Event()  # set by every event batch; the watchdog reads and clears it
        self._threads: list[threading.Thread] = []
        self._reset = threading.Event()  # the targets changed: take a new baseline
        self._armed = _Armed(self.stop_event)
        self._baseline = snapshot(targets)  # taken before the first grade reads the files
        reason = "--poll was given" if poll else no_events_reason(targets.root)
        if reason:
            self._fall_back(reason, announce=not poll)
        else:
            self._start(self._events)
            self._armed.wait(ARM_TIMEOUT)  # a save right after the first verdict must not go unseen
        self._start(self._poll)

    def _start(self, target: Callable[[], None]) -> None:
        self._threads.append(background(target))

    def _fall_back(self, reason: str, announce: bool = True) -> None:
        self.polling, self.mode = True, "polling"
        if announce:
            self.on_notice(f"{reason}: polling the stage's files every {POLL_INTERVAL * 1000:.0f} ms instead")

    def retarget(self, targets: Targets) -> None:
        """Watch another stage's files (the event watcher's folders stay the same)."""
        self.targets = targets
        self._reset.set()

    def stop(self) -> None:
        """Stop the threads (within one watchfiles step, or one poll)."""
        self.stop_event.set()
        for thread in self._threads:
            thread.join(timeout=1.0)

    def _events(self) -> None:
        import watchfiles

        try:
            for changes in watchfiles.watch(*self.targets.watched, step=EVENT_STEP_MS,
                                            debounce=EVENT_DEBOUNCE_MS,
                                            watch_filter=lambda _change, path: self.targets.relevant(path),
                                            stop_event=self._armed, raise_interrupt=False,
                                            ignore_permission_denied=True):
                self.event_seen.set()
                self.on_change({p for _, p in changes})
        except Exception as e:  # an exhausted inotify limit, a folder that vanished: poll instead
            if not self.stop_event.is_set():
                self._fall_back(f"file events stopped ({type(e).__name__}: {e})")
        finally:
            self._armed.ready.set()  # whatever happened, nobody waits for it any longer

    def _poll(self) -> None:
        """Polls fast when polling, else once a second as a watchdog that events still arrive."""
        before = self._baseline
        suspect: set[str] = set()  # changes the last check saw that no event had reported yet
        while not self.stop_event.wait(POLL_INTERVAL if self.polling else WATCHDOG_INTERVAL):
            if self._reset.is_set():
                self._reset.clear()
                before, suspect = snapshot(self.targets), set()
                continue
            now = snapshot(self.targets)
            paths = changed(before, now)
            before = now
            if self.polling:
                if paths:
                    self.on_change(paths)
            elif self.event_seen.is_set():  # events arrive
                self.event_seen.clear()
                suspect = set()
            elif suspect:  # a whole interval later, still no event for it: events don't arrive here
                self._fall_back("a file changed and no file event reported it")
                self.on_change(suspect | paths)
            else:
                suspect = paths
