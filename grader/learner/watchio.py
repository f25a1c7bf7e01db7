"""What the watch loop keeps and reads: a stage's fixtures, keys, and the children an interrupted grade left.

grader/learner/watch.py's helpers: a stage's verified fixtures kept between grades, keys read from the terminal
without Enter, and the children an interrupted grade left behind.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grader import fixtures
from grader.course import Course, Stage
from grader.learner.filewatch import Targets, background

KEYS = {"r": "re-run", "h": "hint", "n": "next stage", "q": "quit"}


class KeptFixtures:
    """A stage's verified fixtures, kept until a fixture or stage file's stat (mtime_ns, size, inode) changes."""

    def __init__(self, course: Course, cancelled: Callable[[], bool]) -> None:
        self.course, self.cancelled = course, cancelled
        self.key: tuple[Any, ...] | None = None
        self.kept: Source | None = None

    def clear(self) -> None:
        self.key, self.kept = None, None

    def source(self, stage: Stage, cases: tuple[Any, ...]) -> Source:
        targets = Targets(self.course.root, stage.id)
        student = str(targets.student)
        key = (stage, cases, tuple(sorted((p, s.st_mtime_ns, s.st_size, s.st_ino) for p, s in targets.files()
                                          if not p.startswith(student))))
        if key != self.key or self.kept is None:
            self.kept = Source(fixtures.StageFixtures(self.course, stage, cases), self.cancelled)
            self.key = key
        return self.kept


class Superseded(Exception):
    """A newer event came while the grader compared outputs: the rest of the grade is not wanted."""


class Source:
    """Verified fixtures (inputs kept by StageFixtures); expected outputs are read on each call (after the fork).

    Asked for a case's expected output after a newer event, it ends the grade: the sandbox stops the child when
    cancelled, but comparing (and matching known mistakes) happens here, case by case, and can take longer.
    """

    def __init__(self, verified: fixtures.StageFixtures, cancelled: Callable[[], bool]) -> None:
        self.verified, self.cancelled = verified, cancelled

    def expected(self, case: Any) -> Any:
        if self.cancelled():
            raise Superseded
        return self.verified.expected(case)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.verified, name)


class Terminal:
    """Keys without Enter: the terminal in cbreak mode (no echo; Ctrl-C stays a signal), a reader thread."""

    def __init__(self, post: Callable[[str], None]) -> None:
        self.post = post

    def start(self) -> Callable[[], None]:
        if not sys.stdin.isatty():
            return lambda: None
        import termios

        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[3] &= ~(termios.ICANON | termios.ECHO)
        mode[6][termios.VMIN], mode[6][termios.VTIME] = 1, 0
        termios.tcsetattr(fd, termios.TCSANOW, mode)
        background(self.read, fd)
        return lambda: termios.tcsetattr(fd, termios.TCSANOW, saved)

    def read(self, fd: int) -> None:
        while True:
            try:
                data = os.read(fd, 64)
            except OSError:
                return
            if not data:
                return
            for key in data.decode(errors="ignore").lower():
                if key in KEYS:
                    self.post(key)


def end_children() -> None:
    """Kill any child an interrupted grade left behind (each leads its own process group)."""
    for task in Path(f"/proc/{os.getpid()}/task").glob("*/children"):
        try:
            pids = [int(p) for p in task.read_text().split()]
        except (OSError, ValueError):
            continue
        for pid in pids:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass

