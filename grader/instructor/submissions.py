"""Submissions as they arrive (a folder or a .zip holding student/), copied into a scratch folder with caps.

Nothing from a submission is trusted. A zip is refused whole for an entry that is absolute, climbs out with `..`,
is too long or deep, is named twice or both as a file and a folder; for a symlink or an encrypted entry outside the
folders intake.py skips (a virtualenv's links are fine); and for a declared or actual size or number of the files to
grade over the caps (a zip bomb). A folder holding anything but folders and regular files (a link, a FIFO, a
socket, a device) outside the skipped folders and dot-files is refused by that entry's name, never opened (a FIFO
would block the batch). Only the files to grade are copied (intake.py: the course's stage files, found in any case,
in student/ or on their own, and helper .py files beside them), each UTF-8 text without NUL bytes. Every refusal is
a SubmissionError naming the file and the next step. Names from a submission are made printable where they enter
(undecodable bytes and control characters as escapes) for the terminal, the gradebook, CSV and JSON.
"""

from __future__ import annotations

import errno
import os
import stat
import zipfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from grader.errors import GraderError
from grader.instructor import intake, late
from grader.instructor.intake import printable
from grader.records import Record
from grader.results import headline
from grader.run.confine import GRADED_TREE_CAP

MAX_BYTES = GRADED_TREE_CAP  # extracted (the files graded: intake.py): all the jail copies in (red team round 18)
MAX_FILES = 2000  # files extracted from a submission
MAX_FILE_BYTES = 4 << 20  # one learner source file
IGNORED = ("__MACOSX", "__pycache__", ".git", ".ipynb_checkpoints")
MAX_PATH = 1024  # characters of one entry's path
MAX_DEPTH = 32  # folders in one entry's path
MAX_NAME = 255  # bytes of one folder or file name (what file systems take)
# compression methods a zip may use and the grader refuses, by name (APPNOTE 4.4.5): only stored and deflate are read
METHODS = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma", 9: "deflate64", 93: "zstandard", 95: "xz"}
MAX_ENTRIES = 50_000  # entries a zip or folder may list (a zipped virtualenv: ~10,000; a skipped folder counts one)


class SubmissionError(GraderError):
    """A submission that cannot be graded as it stands; the message (made printable) says why and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(intake.bounded(printable(message)))


class Submission(Record, frozen=True):
    """One learner's submission: an id (its file or folder name) and where it is."""

    id: str
    path: Path

    @property
    def kind(self) -> str:
        if self.path.is_symlink():
            return "other"
        return "folder" if self.path.is_dir() else "zip" if self.path.suffix.lower() == ".zip" and \
            self.path.is_file() else "other"


def discover(folder: Path) -> list[Submission]:
    """Every submission in a folder, in name order: sub-folders and .zip files (dot-files are skipped).

    An id is the folder's name, or the zip's without `.zip` (its plain name, which the LMS knows), for an entry alone
    with it; where two share one (`bob/` by `bob.zip`, or alike once made printable), each is known by its whole name
    (`bob~1`, `bob.zip`), and one shared, or another's plain name, gets `~1`, `~2`, ... in name order: a learner's file
    name never stops the batch (red team rounds 5-7), nor takes another's row (rounds 19, 24, 26, 31: `a.zip`).
    """
    if not folder.is_dir():
        raise SubmissionError(f"{folder}: not a folder of submissions; pass a folder holding one sub-folder or "
                              ".zip per learner")
    paths = [p for p in sorted(folder.iterdir()) if not p.name.startswith(".")]
    short = [plain_name(p) for p in paths]
    idents = [printable(p.name) if short.count(i) > 1 else i for p, i in zip(paths, short, strict=True)]
    out: list[Submission] = []
    for path, plain, ident in zip(paths, short, idents, strict=True):
        unique, n = ident, 0
        while short.count(plain) > 1 and (idents.count(ident) > 1 or ident in short) and (
                n == 0 or unique in short or unique in idents or unique in {s.id for s in out}):
            n, unique = n + 1, f"{ident}~{n + 1}"
        out.append(Submission(unique, path))
    return out


def plain_name(path: Path) -> str:
    """An entry's name without `.zip` (any case, a folder's too), made printable: its id unless another shares it."""
    return printable(path.stem if path.suffix.lower() == ".zip" else path.name)


def named(path: Path) -> str:
    """The id `discover` gives this entry in its folder (`bob.zip` beside a `bob/` is `bob.zip`, alone `bob`)."""
    try:
        return next(s.id for s in discover(path.parent) if s.path.name == path.name)
    except (OSError, StopIteration, SubmissionError):
        return plain_name(path)


def unpack(sub: Submission, dest: Path, flat_ok: bool = False, declared: Sequence[str] = ()) -> list[str]:
    """Copy the submission's student/*.py into dest/student/; return the files copied (relative to dest).

    declared: the course's stage files (`student/gelu.py`, ...): found in any case, in a student/ folder or on
    their own (grader/instructor/intake.py). flat_ok: with none declared, .py files at the top of a submission
    with no student/ folder (a Gradescope upload of the files themselves) count as student/.
    """
    if sub.kind == "zip":
        return _from_zip(sub.path, dest, flat_ok, declared)
    if sub.kind == "folder":
        return _from_folder(sub.path, dest, flat_ok, declared)
    raise SubmissionError(f"{sub.path}: not a folder or a .zip; each learner's submission must be one of those, "
                          "holding student/")


def _check_text(name: str, data: bytes) -> str:
    if b"\0" in data:
        raise SubmissionError(f"{name}: not a text file (it holds NUL bytes); submit the Python source file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SubmissionError(f"{name}: not UTF-8 text (byte {e.start}); save it as UTF-8 and submit it again")


def _write(dest: Path, rel: PurePosixPath, data: bytes, mtime: float | None = None) -> None:
    """One extracted file; only student/ gets an __init__.py.

    Folders below it are namespace packages: an __init__.py in every folder of every entry's path would let a small
    zip make the grader write tens of thousands of files.
    """
    target = dest.joinpath(*rel.parts)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        init = dest / rel.parts[0] / "__init__.py"
        if len(rel.parts) > 1 and not init.exists():
            init.write_text("")
        target.write_bytes(data)
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):  # the grader's own disk: not the submission's doing
            raise
        raise SubmissionError(f"{printable(rel.as_posix())}: cannot be written as a file here ({e.strerror or e}); "
                              "rename it and submit again") from None
    if mtime is not None:  # the submission's own time (grader/instructor/late.py reads it); an implausible one
        when = mtime if late.plausible(mtime) else 0.0  # is unknown (0 is never taken for a submission's time)
        os.utime(target, (when, when))


def _choose(paths: list[PurePosixPath], where: Path, flat_ok: bool,
            declared: Sequence[str]) -> dict[PurePosixPath, PurePosixPath]:
    try:
        return intake.choose(paths, declared, flat_ok, str(where))
    except intake.IntakeError as e:
        raise SubmissionError(str(e)) from None


def _from_zip(path: Path, dest: Path, flat_ok: bool, declared: Sequence[str] = ()) -> list[str]:
    try:
        listed = intake.zip_entry_count(path, MAX_ENTRIES)
    except intake.IntakeError as e:
        raise SubmissionError(str(e)) from None
    if listed is not None and listed > MAX_ENTRIES:
        raise SubmissionError(f"{path}: lists at least {listed} entries (the cap is {MAX_ENTRIES}); submit only "
                              "student/")
    try:
        zf = zipfile.ZipFile(path)
    except intake.DAMAGED as e:
        raise SubmissionError(f"{path}: not a readable zip ({type(e).__name__}: {e}); zip the folder holding student/ "
                              "again")
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise SubmissionError(f"{path}: lists {len(infos)} entries (the cap is {MAX_ENTRIES}); submit only "
                                  "student/")
        names = _entries(path, infos)
        chosen = _choose(list(names), path, flat_ok, declared)
        _check_caps(path, len(chosen), sum(names[src].file_size for src in chosen))
        total, written = 0, []
        for src, rel in sorted(chosen.items()):
            if names[src].compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):  # zipfile bounds what
                how = METHODS.get(names[src].compress_type, f"method {names[src].compress_type}")
                raise SubmissionError(f"{path}: '{src}' is compressed with {how}, not deflate; zip the folder "
                                      "again with an ordinary zip tool")  # one read
            data = bytearray()  # makes of deflate only: a bzip2 or LZMA read unpacked gigabytes (red team round 10)
            try:
                with zf.open(names[src]) as f:
                    while chunk := f.read(1 << 16):
                        data += chunk
                        total += len(chunk)
                        _check_read(f"{path}: '{src}'", path, len(data), total)
            except intake.DAMAGED as e:  # a damaged compressed stream is the zip's fault, not ours
                raise SubmissionError(f"{path}: cannot unpack '{src}' ({type(e).__name__}: {e}); zip the folder "
                                      "again")
            _check_text(f"{path}: {src}", bytes(data))
            _write(dest, rel, bytes(data), intake.zip_time(names[src]))
            written.append(str(rel))
    return _finish(dest, written, path)


def _entries(path: Path, infos: list[zipfile.ZipInfo]) -> dict[PurePosixPath, zipfile.ZipInfo]:
    """The zip's files by path, once every entry is known to be a plain, unique, reasonably named file or folder."""
    names: dict[PurePosixPath, zipfile.ZipInfo] = {}
    dirs: set[PurePosixPath] = set()
    for info in infos:
        raw, name = info.filename.replace("\\", "/"), headline(info.filename)  # quoted cut: round 26
        if not raw:  # zipfile cuts a name at its first NUL; an empty one even breaks ZipInfo.is_dir()
            raise SubmissionError(f"{path}: an entry has an empty name (damaged or hand-made zip); zip the folder "
                                  "again")
        rel = PurePosixPath(raw)
        if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":") or ".." in rel.parts:
            raise SubmissionError(f"{path}: entry '{name}' points outside the zip's folder (absolute or "
                                  "'..'); such zips are refused, zip the folder again")
        if intake.ignored(rel):  # a virtualenv's links, macOS's resource forks: never extracted
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            raise SubmissionError(f"{path}: entry '{name}' is a symbolic link; submit the file itself")
        if info.flag_bits & 0x1:
            raise SubmissionError(f"{path}: entry '{name}' is encrypted; submit a zip without a password")
        _check_path(path, raw, rel)
        if rel in names or rel in dirs:
            raise SubmissionError(f"{path}: '{rel}' is named twice (or both a file and a folder); zip the folder "
                                  "again")
        if info.is_dir():
            dirs.add(rel)
        else:
            names[rel] = info
    _check_clashes(path, names)
    return names


def _check_path(where: Path, raw: str, rel: PurePosixPath) -> None:
    """An entry's path must be one a file system can hold: not too long, not too deep, no over-long name."""
    shown = raw if len(raw) <= 80 else raw[:80] + "..."
    if len(raw) > MAX_PATH or len(rel.parts) > MAX_DEPTH:
        raise SubmissionError(f"{where}: '{shown}' has a path {len(raw)} characters long, {len(rel.parts)} folders "
                              f"deep (the caps are {MAX_PATH} and {MAX_DEPTH}); submit student/ alone")
    if any(len(part.encode("utf-8", "surrogateescape")) > MAX_NAME for part in rel.parts):
        raise SubmissionError(f"{where}: entry '{shown}' has a name longer than {MAX_NAME} bytes; rename it")


def _check_clashes(where: Path, files: dict[PurePosixPath, zipfile.ZipInfo]) -> None:
    """No file may also be a folder of another entry ('student/a.py' and 'student/a.py/b.py')."""
    for name in files:
        for parent in name.parents:
            if parent in files:
                raise SubmissionError(f"{where}: '{parent}' is both a file and a folder in this zip; zip the folder "
                                      "holding student/ again")


def _from_folder(folder: Path, dest: Path, flat_ok: bool, declared: Sequence[str] = ()) -> list[str]:
    paths = _walk(folder)
    chosen = _choose(paths, folder, flat_ok, declared)
    _check_caps(folder, len(chosen), 0)
    total, written = 0, []
    for src, rel in sorted(chosen.items()):
        full = folder.joinpath(*src.parts)
        try:  # a regular file when walked; opened so that nothing else (a FIFO swapped in) can block the read
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as f:
                info = os.fstat(f.fileno())
                if not stat.S_ISREG(info.st_mode):
                    raise SubmissionError(f"{full}: not a regular file; submit only your source files")
                data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise SubmissionError(f"{full}: cannot be read ({e.strerror or e}); submit it again")
        _check_read(str(full), folder, len(data), total := total + len(data))
        _check_text(str(full), data)
        _write(dest, rel, data, info.st_mtime)
        written.append(str(rel))
    return _finish(dest, written, folder)


def _walk(folder: Path) -> list[PurePosixPath]:
    """Every file of a folder submission, relative to it; anything but folders and regular files is refused."""
    paths: list[PurePosixPath] = []
    todo, count = [folder], 0
    while todo:
        here = todo.pop()
        try:
            entries = intake.listing(str(here), MAX_ENTRIES - count)  # dot-files counted too (red team round 31)
        except OSError as e:
            raise SubmissionError(f"{e.filename or here}: cannot be read ({e.strerror or e}); submit it again") from e
        if (count := count + len(entries)) > MAX_ENTRIES:
            raise SubmissionError(f"{folder}: holds more than {MAX_ENTRIES} files; submit only student/")
        for entry in entries:
            full, rel = Path(entry.path), Path(entry.path).relative_to(folder).as_posix()
            if entry.name.startswith(".") or (entry.is_dir() and intake.ignored_dir(entry.name)):
                continue
            _check_path(folder, rel, PurePosixPath(rel))
            kind = _kind(full)
            if kind is not None:  # a symbolic link, a FIFO...: submissions hold the files themselves
                raise SubmissionError(f"{full}: {kind}, not a file or a folder; submit only your source files")
            todo.append(full) if entry.is_dir(follow_symlinks=False) else paths.append(PurePosixPath(rel))
    return paths


def _kind(path: Path) -> str | None:
    """What a folder entry is when it is neither a regular file nor a folder (from lstat: nothing is opened)."""
    try:
        mode = os.lstat(path).st_mode
    except OSError as e:
        return f"unreadable ({e.strerror})"
    kinds = {stat.S_IFREG: None, stat.S_IFDIR: None, stat.S_IFLNK: "a symbolic link", stat.S_IFIFO: "a FIFO (named "
             "pipe)", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"}
    return kinds.get(stat.S_IFMT(mode), "special")


def _check_read(file: str, submission: Path, size: int, total: int) -> None:
    """The caps on the bytes actually read: this file's, and all the files' so far (the sizes declared may lie)."""
    if size > MAX_FILE_BYTES or total > MAX_BYTES:
        raise SubmissionError(f"{file}: larger than the cap ({MAX_FILE_BYTES} bytes per file); submit your source "
                              "only" if size > MAX_FILE_BYTES else f"{submission}: its files to grade come to more "
                              f"than the cap ({MAX_BYTES} bytes in all); submit your source only")


def _check_caps(where: Path, files: int, size: int) -> None:
    """The caps on what is extracted: the number of files chosen and the sizes they declare."""
    if files > MAX_FILES:
        raise SubmissionError(f"{where}: holds {files} Python files to grade (the cap is {MAX_FILES}); submit "
                              "only student/")
    if size > MAX_BYTES:
        raise SubmissionError(f"{where}: its files to grade unpack to {size} bytes (the cap is {MAX_BYTES}); "
                              "submit your source only")


def _finish(dest: Path, written: list[str], where: Path) -> list[str]:
    if not written:
        raise SubmissionError(f"{where}: student/ holds no .py files; submit the folder with your stage files")
    init = dest / "student" / "__init__.py"
    if not init.exists():
        init.write_text("")
    return written
