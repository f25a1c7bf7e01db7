"""The warm spare: the next submission's jail, started while this one is graded.

In a batch, `Jail(warm=True)` adopts the process's spare (a jail started on an empty staging folder while the
previous submission was graded) and copies the submission's student/ into it, then starts the next spare. A spare
never held anything of any submission before its own. It ends with its process (atexit, or the pool worker's
`Finalize`), and is discarded when it died or was started with other settings.
"""

from __future__ import annotations

import atexit
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


_spare: dict[int, _Spare] = {}  # by process: a forked process never adopts its parent's
_exits: set[int] = set()


def prestart(layout: cgroups.Layout, settings: Settings, memory_mb: int) -> None:
    """Start this process's next spare jail in the starter thread, unless one is already there."""
    if os.getpid() not in _spare:
        _spare[os.getpid()] = _Spare(layout, settings, memory_mb)
        if os.getpid() not in _exits:  # a process that ends normally takes its spare with it
            _exits.add(os.getpid())
            atexit.register(discard_spare)


def adopt(settings: Settings) -> Box | None:
    """The spare of this process, if it was started with these settings and is still running."""
    kept = _spare.pop(os.getpid(), None)
    box = kept.take() if kept is not None else None
    if box is None or kept is None:
        return None
    if kept.settings == settings and box.proc.poll() is None:
        return box
    discard_spare(box)
    return None


def spare_uid() -> int | None:
    """The uid of this process's spare jail, once started (None without one, or as a non-root grader)."""
    kept = _spare.get(os.getpid())
    box = kept.take() if kept is not None else None
    return box.uid if box is not None else None


def discard_spare(box: Box | None = None) -> None:
    """End this process's spare jail (a batch's workers, when they are done), and delete its staging folder."""
    if box is None:
        kept = _spare.pop(os.getpid(), None)
        box = kept.take() if kept is not None else None
    if box is not None:
        try:
            box.kill()
        finally:
            staging.remove(box.staging)
