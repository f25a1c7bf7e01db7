"""The watch loop's events: what its sources post to its queue, one dataclass each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FilesChanged:
    """Files the stage depends on changed (their paths wait in Watch.pending, merged: one grade)."""


@dataclass(frozen=True)
class KeyPressed:
    """A key from the terminal."""

    key: str


@dataclass(frozen=True)
class Notice:
    """A line to show once, from another thread (e.g. the switch to polling)."""

    line: str


@dataclass(frozen=True)
class Quit:
    """Ctrl-C, SIGTERM or SIGHUP."""

    signum: int = 0


@dataclass(frozen=True)
class Tick:
    """No event for a while."""


Event = FilesChanged | KeyPressed | Notice | Quit | Tick
