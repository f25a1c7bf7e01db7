"""The warm spares: the next jails, started while this submission is graded.

In a batch, `Jail(warm=True)` adopts the process's oldest spare (a jail started on an empty staging folder while
earlier work was graded) and copies the submission's student/ into it, then tops the spares up to KEEP. A spare
never held anything of any submission before its own. They end with their process (atexit, or the pool worker's
`Finalize`), and are discarded when one died or was started with other settings.

Two, not one: a submission may need a second jail within a few hundred milliseconds (a stage graded with the
references of earlier ones ends its jail, which then held them; a timeout ends one), and a single spare, started
when the first was adopted, was then still starting: bench/jail.py measured ~70 ms a submission waited for it.
"""

from __future__ import annotations

import atexit
import collections
import os
import queue
import threading
from pathlib import Path

from grader.errors import GraderError
from grader.run.jail import cgroups, staging
from grader.run.jail.mounts import Settings
from grader.run.jail.spawn import Box, start


class _Spare:
    """The next jail, started by this process's starter thread so that grading goes on meanwhile.

    bubblewrap's start keeps the starting thread waiting ~20-30 ms for the child (its cgroup joined, the view built
    and its uid changed before exec); in the grading thread that was about a tenth of a submission's time in a batch.
    The child runs only `prepare.prepare` before exec, which takes no lock another thread could hold at the fork.
    """

    def __init__(self, layout: cgroups.Layout, settings: Settings, memory_mb: int) -> None:
        self.layout, self.settings, self.memory_mb = layout, settings, memory_mb
        self.box: Box | None = None
        self.bug: BaseException | None = None  # raised again in the thread that takes the spare
        self.thread_name = ""  # the thread that started it
        self.done = threading.Event()
        _starter().put(self)

    def start(self) -> None:
        self.thread_name = threading.current_thread().name
        folder: Path | None = None
        try:
            folder = staging.new()
            self.box = start(folder, self.layout, self.settings, self.memory_mb)
        except BaseException as e:
            if folder is not None:
                staging.remove(folder)
            if not isinstance(e, (GraderError, OSError)):  # else the next submission starts its own, and says why
                self.bug = e  # if it cannot; the starter thread goes on either way
        finally:
            self.done.set()

    def take(self) -> Box | None:
        """The started jail (waiting for its start to finish), or None when it could not start."""
        self.done.wait()
        if self.bug is not None:
            raise self.bug
        return self.box


_starters: dict[int, queue.SimpleQueue[_Spare]] = {}


def _starter() -> queue.SimpleQueue[_Spare]:
    """The queue of this process's starter thread, which lives as long as the process.

    Never a thread per spare: the kernel's parent-death signal (bubblewrap's --die-with-parent, `prepare.prepare`'s)
    follows the thread that forked the jail, so a jail started by a thread that then ended would be killed at once.
    """
    if os.getpid() not in _starters:
        requests: queue.SimpleQueue[_Spare] = queue.SimpleQueue()

        def serve() -> None:
            while True:
                requests.get().start()

        threading.Thread(target=serve, name="grader-jail-starter", daemon=True).start()
        _starters[os.getpid()] = requests
    return _starters[os.getpid()]


KEEP = 2  # spares a grading process keeps started
_spares: dict[int, collections.deque[_Spare]] = {}  # by process, oldest first: a forked process never adopts its
_exits: set[int] = set()  # parent's


def _mine() -> collections.deque[_Spare]:
    return _spares.setdefault(os.getpid(), collections.deque())


def prestart(layout: cgroups.Layout, settings: Settings, memory_mb: int) -> None:
    """Start spare jails in the starter thread (one after the other) until this process has KEEP of them."""
    spares = _mine()
    while len(spares) < KEEP:
        spares.append(_Spare(layout, settings, memory_mb))
    if os.getpid() not in _exits:  # a process that ends normally takes its spares with it
        _exits.add(os.getpid())
        atexit.register(discard_spare)


def adopt(settings: Settings, memory_mb: int) -> Box | None:
    """The oldest spare of this process, if it was started with these settings and memory and is still running.

    One that died or was started otherwise is ended here; the caller starts a jail of its own. The memory too: a
    jail's /proc/meminfo stand-in is written when it starts, and a spare started for another stage's memory showed
    that figure, set by the learner graded before (red team round 27).
    """
    spares = _mine()
    kept = spares.popleft() if spares else None
    box = kept.take() if kept is not None else None
    if box is None or kept is None:
        return None
    if kept.settings == settings and kept.memory_mb == memory_mb and box.proc.poll() is None:
        return box
    _end(box)
    return None


def spare_uids() -> set[int]:
    """The uids of this process's spare jails, once started (none as a non-root grader)."""
    boxes = [kept.take() for kept in list(_mine())]
    return {box.uid for box in boxes if box is not None and box.uid is not None}


def discard_spare() -> None:
    """End this process's spare jails (a batch's workers, when they are done), and delete their staging folders."""
    spares, failed = _mine(), None
    while spares:
        try:  # each one, whatever happened to the one before
            box = spares.popleft().take()
            if box is not None:
                _end(box)
        except BaseException as e:  # noqa: BLE001 - raised once every spare is ended
            failed = failed or e
    if failed is not None:
        raise failed


def _end(box: Box) -> None:
    try:
        box.kill()
    finally:
        staging.remove(box.staging)
