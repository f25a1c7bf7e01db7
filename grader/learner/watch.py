"""The watch loop: grade at once, then again on every save; a dispatcher over typed events, one handler each.

Three sources post events to one queue: file changes (learner.filewatch, from its own threads), keys (a thread
reading the terminal, learner.terminal) and signals (Ctrl-C). The loop takes one event at a time and calls its
named handler; a quiet spell is a Tick (write the progress file, move on when a pause after a pass is over).
Grading runs in this, the main, thread (learner.session); the learner's code still runs in a forked child
(grader.run). A file change, `r`, `n`, `p` or `q` during a grade sets `interrupt`: the sandbox polls it and stops
the child, and the result is dropped, since the queued event grades again (the newest files) or quits. So a burst
of saves ends on one verdict for the last content.
"""

from __future__ import annotations

import queue
import signal
import sys
import time
import warnings
from types import FrameType

from grader.course import Course
from grader.learner import grading, screen
from grader.learner.events import Event, FilesChanged, KeyPressed, Notice, Quit, Tick
from grader.learner.filewatch import FileSource, Targets
from grader.learner.screen import Writer
from grader.learner.session import Session
from grader.learner.terminal import Keys
from grader.report import text

IDLE = 0.3  # seconds without events before the progress file is written (it syncs to disk: not between saves)
TICK = 1.0  # seconds the loop waits for an event at most
INTERRUPTING = {"r", "n", "p", "q"}  # keys that end a running grade

# Forking while the watcher's threads wait is safe here: they hold no lock the child uses.
warnings.filterwarnings("ignore", message=r".*fork\(\) may lead to deadlocks", category=DeprecationWarning)


def main(course: Course, settings: grading.Settings) -> int:
    """`python -m grader [--stage ID] --watch`: returns 0 when the learner quits (q or Ctrl-C)."""
    as_json = settings.format == "json"
    return Watch(course, settings, screen.StreamWriter(), tty=sys.stdout.isatty() and not as_json,
                 keys=sys.stdin.isatty(), colour=text.wants_colour(sys.stdout) and not as_json).run()


class Watch(Session):
    """A session driven by events: the loop, the sources that post to it, and the dispatcher."""

    def __init__(self, course: Course, settings: grading.Settings, writer: Writer,
                 grader: grading.StageGrader | None = None, *, tty: bool = False, keys: bool = False,
                 colour: bool = False) -> None:
        super().__init__(course, settings, writer, grader, tty=tty, keys=keys, colour=colour)
        self.events: queue.SimpleQueue[Event] = queue.SimpleQueue()  # put() is signal-safe

    # --- the loop ------------------------------------------------------------------------------------------

    def run(self) -> int:
        """Grade, then take events until `q`, Ctrl-C or a signal; always restore the terminal."""
        restore = Keys(self.post_key, [k for k, _, _ in screen.KEYS]).start()
        old = {s: signal.signal(s, self.on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            self.source = FileSource(Targets(self.course.root, self.stage.id), self.on_change, self.post_notice,
                                     poll=self.settings.poll)
            self.grade()
            while not self.done:
                self.dispatch(self.next_event())
        finally:
            self.record()
            if self.source is not None:
                self.source.stop()
            for s, handler in old.items():
                signal.signal(s, handler)
            restore()
            # TODO(grader.run): a child left by a grade interrupted at exit is ended by the sandbox's own
            # cleanup (grade.py closes the outcomes; the child dies with its parent). A public
            # grader.run.sandbox function to end and reap every child would make that explicit here.
        return 0

    def next_event(self) -> Event:
        """The next event, or a Tick when none came in time (sooner while progress waits to be written)."""
        timeout = IDLE if self.unrecorded else TICK
        if self.advance_at is not None:
            timeout = min(timeout, max(0.0, self.advance_at - time.monotonic()))
        try:  # a timeout, so a signal is never missed
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return Tick()

    def dispatch(self, event: Event) -> None:
        """One event, one handler; the progress file is read (at most) once per event."""
        self.cycle = None
        match event:
            case FilesChanged():
                self.on_files()
            case KeyPressed(key=key):
                self.on_key(key)
            case Notice(line=line):
                self.on_notice(line)
            case Quit():
                self.on_quit()
            case Tick():
                self.on_tick()

    # --- what the sources call (from their own threads, or a signal handler) -------------------------------

    def on_change(self, paths: set[str]) -> None:
        """Files changed: end any running grade and queue a new one (pending paths merge: one grade)."""
        with self.lock:  # together with grade()'s taking of `pending`: a save is either in this grade or ends it
            self.pending |= paths
            self.interrupt.set()
        self.events.put(FilesChanged())

    def post_notice(self, line: str) -> None:
        self.events.put(Notice(line))

    def post_key(self, key: str) -> None:
        if key in INTERRUPTING:
            self.interrupt.set()
        self.events.put(KeyPressed(key))

    def on_signal(self, signum: int, frame: FrameType | None) -> None:
        """Ctrl-C, SIGTERM, SIGHUP: quit cleanly (the sandbox kills a running child)."""
        self.interrupt.set()
        self.events.put(Quit(signum))

    # --- handlers -------------------------------------------------------------------------------------------

    def on_files(self) -> None:
        """Grade the newest files (an empty set: an earlier wake-up already graded these)."""
        if self.pending:
            self.grade()

    def on_key(self, key: str) -> None:
        """The key's handler (Session.handlers); any key but n and q stays on this stage after a pass."""
        if key not in ("n", "q"):
            self.advance_at = None
        handler = self.handlers.get(key)
        if handler is not None:
            handler()

    def on_tick(self) -> None:
        """Idle: write the last verdict, look at what other shells recorded; move on when a pause is over."""
        self.record()
        self.on_progress()
        if self.advance_at is not None and time.monotonic() >= self.advance_at:
            self.advance_at = None
            self.on_next()

