"""What a learner submitted, as one digest: the gradebook's key for "this submission has not changed".

A zip's bytes, or a folder's relative paths and contents, walked without recursion (a folder nested thousands deep is
refused by name, never a RecursionError that stops the batch) and never followed (links and special files count by
what they are; a FIFO is never opened).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from grader.instructor.submissions import MAX_DEPTH, Submission, SubmissionError


def digest(sub: Submission) -> str:
    """The sha256 of what was submitted: the zip's bytes, or a folder's paths and contents (never followed)."""
    h = hashlib.sha256()
    if sub.kind != "folder":
        _hash(h, sub.path)
        return h.hexdigest()
    todo = [str(sub.path)]  # walked without recursion: a folder nested thousands deep must not stop the batch
    while todo:
        dirpath = todo.pop()
        try:
            entries = sorted(os.scandir(dirpath), key=lambda e: e.name)
        except OSError as e:
            raise SubmissionError(f"{sub.path}: cannot read {dirpath} ({e.strerror or e})") from e
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if len(Path(entry.path).relative_to(sub.path).parts) > MAX_DEPTH:
                    raise SubmissionError(f"{sub.path}: folders nested more than {MAX_DEPTH} deep; submit student/ "
                                          "alone")
                todo.append(entry.path)
                continue
            path = Path(entry.path)
            h.update(str(path.relative_to(sub.path)).encode("utf-8", "surrogateescape") + b"\0")
            _hash(h, path)
            h.update(b"\0")
    return h.hexdigest()


def _hash(h: Any, path: Path) -> None:
    """A regular file's bytes into `h`; of anything else only its kind (never opened: a FIFO would block)."""
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            h.update(b"link:" + os.readlink(path).encode("utf-8", "surrogateescape"))
        elif not stat.S_ISREG(mode):
            h.update(f"special:{stat.S_IFMT(mode)}".encode())
        else:
            with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "rb") as f:
                while block := f.read(1 << 20):
                    h.update(block)
    except OSError as e:
        h.update(f"unreadable: {e}".encode())
