"""A call's printed output and, at a timeout, its stack: two memory files the grader makes and the child writes.

Both are made by the grader before the fork, so the grader can still read them when the child is gone (crashed,
killed at its timeout). The child points its stdout and stderr at the output file (one open file, so the two
interleave exactly as written) and empties it before each call: what a call's frame carries is what that call
printed, and nothing of another call's. faulthandler writes the child's Python stack into the stack file when the
grader sends SIGUSR1 just before stopping a call at its timeout.
"""

from __future__ import annotations

import os
import re
import signal
import stat
import time

from grader.run.protocol import OUTPUT_CAP
from grader.run.safetext import safe_text

_CHUNK = 1 << 20
STACK_WAIT = 0.2  # seconds a timed-out process has to write its stack before it is killed


def make() -> tuple[int, int]:
    """The output file and the stack file (close-on-exec; a fork keeps them).

    Mode 0600, not memfd_create's 0777: the child writes through the descriptors it is given, and no other uid (a
    jail's) may set the file's times or extended attributes (red team round 21 set 4,096 xattrs on one).
    """
    fds = os.memfd_create("grader-output", os.MFD_CLOEXEC), os.memfd_create("grader-stack", os.MFD_CLOEXEC)
    for fd in fds:
        os.fchmod(fd, 0o600)
    return fds


def empty(fd: int) -> None:
    """Forget what the file holds (the child, before each call); every descriptor of it writes from the start."""
    os.ftruncate(fd, 0)
    os.lseek(fd, 0, os.SEEK_SET)


def read(fd: int, cap: int = OUTPUT_CAP) -> tuple[str, int]:
    """The first `cap` bytes of the file as safe text, and how many lines follow them."""
    size = os.fstat(fd).st_size
    kept = os.pread(fd, cap, 0)
    if size <= cap:
        return safe_text(kept, cap), 0
    kept = kept[: kept.rfind(b"\n") + 1] or kept  # cut at a line end where there is one
    cut, at = 0, len(kept)
    while at < size:
        chunk = os.pread(fd, _CHUNK, at)
        if not chunk:
            break
        cut += chunk.count(b"\n")
        at += len(chunk)
    last = os.pread(fd, 1, size - 1) if size else b"\n"
    return safe_text(kept, cap), cut + (last != b"\n")


# The dump is the learner's to write: a frame is read only with a line number of at most 9 digits (int() of a
# 5000-digit one raised, and the grader's error became the row's), and a path of at most 4096 characters.
_FRAME = re.compile(r'File "([^"\n]{1,4096})", line (\d{1,9}) in (\S+)')


def learner_line(stack: str, student_dirs: list[str], source_dir: str) -> str | None:
    """From a faulthandler dump, the innermost frame in the learner's files: "student/gelu.py:11  <source line>".

    `student_dirs` are where the child saw the learner's files (a graded child sees a copy in its scratch folder);
    the line's text is read from `source_dir`, the grader's own view of them. The dump comes from the learner's
    process, which can write anything into it: a path is used only if it names a file inside `source_dir` once
    normalised and resolved, so a forged `student/../../etc/passwd` reads nothing of the grading machine.
    """
    for m in _FRAME.finditer(stack):  # faulthandler lists the innermost frame first
        path, line = os.path.normpath(m.group(1)), int(m.group(2))
        base = next((d for d in student_dirs if path.startswith(d.rstrip("/") + "/")), None)
        if base is None:
            continue
        rel = os.path.relpath(path, base)
        return safe_text(f"student/{rel}:{line}  {_source_line(source_dir, rel, line)}".rstrip(), 300)
    return None


def _source_line(source_dir: str, rel: str, line: int) -> str:
    """Line `line` of the learner's file `rel`, or "" if it is not a regular file inside `source_dir`."""
    top = os.path.realpath(source_dir)
    path = os.path.realpath(os.path.join(top, rel))
    if not path.startswith(top + os.sep) or not path.endswith(".py"):
        return ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with open(fd, encoding="utf-8", errors="replace") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return ""
            return next((text.strip() for i, text in enumerate(f, 1) if i == line), "")
    except OSError:
        return ""


def ask_stack(pid: int, fd: int, student_dirs: list[str], source_dir: str, pidfd: int | None = None) -> str | None:
    """Ask a running process for its Python stack (faulthandler, SIGUSR1) and find the learner's line in it.

    `pidfd`, for a process that is not the grader's child (a jail's worker): its pid may be another process's by the
    time it is signalled, a pidfd's process may not (red team round 18).
    """
    try:
        if pidfd is not None:
            signal.pidfd_send_signal(pidfd, signal.SIGUSR1)
        else:
            os.kill(pid, signal.SIGUSR1)  # the grader's own child: its pid is not reused before the grader waits
    except OSError:
        return None
    deadline, size = time.monotonic() + STACK_WAIT, -1
    while time.monotonic() < deadline:  # written in one go by the handler: wait until it stops growing
        now = os.fstat(fd).st_size
        if now and now == size:
            break
        size = now
        time.sleep(0.005)
    text, _ = read(fd, 64 * 1024)
    try:
        return learner_line(text, student_dirs, source_dir)
    except (ValueError, OSError):  # whatever the learner wrote there: no line named, never the grader's error
        return None
