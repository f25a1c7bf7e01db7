"""The watch loop's events: what its sources post to its queue, one dataclass each."""

from __future__ import annotations

from grader.records import Record


class FilesChanged(Record, frozen=True):
    """Files the stage depends on changed (their paths wait in Watch.pending, merged: one grade)."""


class KeyPressed(Record, frozen=True):
    """A key from the terminal."""

    key: str


class Notice(Record, frozen=True):
    """A line to show once, from another thread (e.g. the switch to polling)."""

    line: str


class Quit(Record, frozen=True):
    """Ctrl-C, SIGTERM or SIGHUP."""

    signum: int = 0


class Tick(Record, frozen=True):
    """No event for a while."""


Event = FilesChanged | KeyPressed | Notice | Quit | Tick
