"""What a learner submitted, as one digest: the gradebook's key for "this submission has not changed".

A zip's size, time and bytes, or a folder's relative paths and what is in them, walked without recursion (a folder
nested thousands deep is refused by name, never a RecursionError that stops the batch) and never followed (links
and special files count by what they are; a FIFO is never opened). The digest costs what intake costs, never more
(red team round 8: a 20 GB sparse file in a learner's .venv/ was hashed whole before anyone was graded): a folder's
skipped folders and dot-files (intake.ignored) are not looked into, it may list MAX_ENTRIES entries (those counted
too: round 31), and only the files intake could take (Python sources up to MAX_FILE_BYTES) are read, MAX_BYTES in
all; every other file counts by its size and modification time.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path
from typing import Any

from grader.instructor import intake
from grader.instructor.submissions import MAX_BYTES, MAX_DEPTH, MAX_ENTRIES, MAX_FILE_BYTES, Submission, SubmissionError


def digest(sub: Submission) -> str:
    """The sha256 of what was submitted, as the module's docstring says."""
    h = hashlib.sha256()
    if sub.kind != "folder":
        _hash(h, sub.path, MAX_BYTES)
        return h.hexdigest()
    todo, count, budget = [str(sub.path)], 0, MAX_BYTES
    while todo:
        dirpath = todo.pop()
        try:
            entries = intake.listing(dirpath, MAX_ENTRIES - count)
        except OSError as e:
            raise SubmissionError(f"{sub.path}: cannot read {dirpath} ({e.strerror or e})") from e
        count += len(entries)
        if count > MAX_ENTRIES:
            raise SubmissionError(f"{sub.path}: holds more than {MAX_ENTRIES} files; submit only student/")
        for entry in entries:
            if entry.name.startswith(".") or (entry.is_dir(follow_symlinks=False) and intake.ignored_dir(entry.name)):
                continue  # never read by intake
            if entry.is_dir(follow_symlinks=False):
                if len(Path(entry.path).relative_to(sub.path).parts) > MAX_DEPTH:
                    raise SubmissionError(f"{sub.path}: folders nested more than {MAX_DEPTH} deep; submit student/ "
                                          "alone")
                todo.append(entry.path)
                continue
            path = Path(entry.path)
            h.update(str(path.relative_to(sub.path)).encode("utf-8", "surrogateescape") + b"\0")
            source = path.suffix.lower() == ".py"
            budget -= _hash(h, path, min(MAX_FILE_BYTES, budget) if source else 0)
            h.update(b"\0")
    return h.hexdigest()


def _hash(h: Any, path: Path, read: int) -> int:
    """A file into `h`: its kind, size and time, and up to `read` bytes of a regular file; the bytes read.

    A file larger than `read` counts by its size and time alone (intake refuses or skips it); a link by its
    target; anything else by its kind (never opened: a FIFO would block).
    """
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            h.update(b"link:" + os.readlink(path).encode("utf-8", "surrogateescape"))
            return 0
        if not stat.S_ISREG(st.st_mode):
            h.update(f"special:{stat.S_IFMT(st.st_mode)}".encode())
            return 0
        h.update(f"file:{st.st_size}:{st.st_mtime_ns}:".encode())
        if st.st_size > read:
            return 0
        done = 0
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK), "rb") as f:
            while done < st.st_size and (block := f.read(min(1 << 20, st.st_size - done))):
                h.update(block)
                done += len(block)
        return done
    except OSError as e:
        h.update(f"unreadable: {e}".encode())
        return 0
