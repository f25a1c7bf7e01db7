"""Keys without Enter for the watch loop: the terminal in cbreak mode (no echo; Ctrl-C stays a signal)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection

from grader.learner.filewatch import background

BACK = ("\n", " ", "\x1b")  # Enter, space, Esc: back to the report from the instructions or the keys


class Keys:
    """Posts each known key the learner types; `start` returns what restores the terminal."""

    def __init__(self, post: Callable[[str], None], known: Collection[str]) -> None:
        self.post, self.known = post, set(known) | set(BACK)

    def start(self) -> Callable[[], None]:
        """Put the terminal in cbreak mode and start reading; without a terminal, do nothing."""
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
        """The reader thread: one post per known key, until the terminal closes."""
        while True:
            try:
                data = os.read(fd, 64)
            except OSError:
                return
            if not data:
                return
            for key in data.decode(errors="ignore").replace("\r", "\n"):
                key = key.lower()
                if key in self.known:
                    self.post(key)
