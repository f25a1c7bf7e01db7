"""A batch's workers never grade one submission's public cases while another's hidden cases run.

Jails on one machine share a kernel. Red team round 11 read hidden inputs exactly, from one jail's hidden call into
another learner's public call, through state that no jail owns: the waiters on a futex keyed by a shared file's
inode, and how many processes map a page of a shared library (`Pss` in /proc/self/smaps, `mapmax` in numa_maps, the
exclusive bit of pagemap). A public call's output is shown to its learner and a hidden call's never is, so a sender
must be alive in a hidden call while a receiver runs a public one. Here the workers agree, through byte-range locks
on one file, that public passes run beside public passes and hidden beside hidden, never one beside the other.
What a call leaves behind it (the page cache, dentries, a page's referenced bit) a later call can still notice;
SECURITY.md keeps those as declared.

The locks are written by hand (fcntl) because the rule is two classes that exclude each other, not a mutex, and
the standard library's locks do not cross processes: a turnstile byte lets one entrant at a time take its class's
byte shared, then wait until no one holds the other class's byte, so neither class can starve the other.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator

_BYTE = {"public": 0, "hidden": 1}
_TURN = 2


def during(phases: Phases | None, kind: str) -> contextlib.AbstractContextManager[None]:
    """`phases.enter(kind)`, or nothing where there is no batch to share the machine with (None)."""
    return phases.enter(kind) if phases is not None else contextlib.nullcontext()


class Phases:
    """One batch's lock file, with no name: nothing for a killed batch to leave behind.

    The workers are forks of the process that made it and share its descriptor. POSIX locks belong to a process, so
    each worker's are its own, and go with it if it dies holding one.
    """

    def __init__(self) -> None:
        try:
            self.fd = os.open(tempfile.gettempdir(), os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o600)
        except (OSError, AttributeError):  # a file system without O_TMPFILE: a name, unlinked at once
            self.fd, name = tempfile.mkstemp(prefix="grader-phases-")
            os.unlink(name)

    def close(self) -> None:
        os.close(self.fd)

    @contextlib.contextmanager
    def enter(self, kind: str) -> Iterator[None]:
        """Hold `kind` ("public" or "hidden") while the body runs: no worker is in the other meanwhile."""
        fd, mine = self.fd, _BYTE[kind]
        other = 1 - mine
        fcntl.lockf(fd, fcntl.LOCK_EX, 1, _TURN)
        try:
            fcntl.lockf(fd, fcntl.LOCK_SH, 1, mine)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX, 1, other)  # granted once every worker in the other class has left
                fcntl.lockf(fd, fcntl.LOCK_UN, 1, other)
            except BaseException:
                fcntl.lockf(fd, fcntl.LOCK_UN, 1, mine)
                raise
        finally:
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, _TURN)
        try:
            yield
        finally:
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, mine)
