"""The learner's progress file, .grader/progress.json: each stage's last verdict, for which files, and hints shown.

A verdict is kept with the digest of the files it was given for: the stage's student file and those of the stages
it depends on (transitively). `standings` compares that digest with the files as they are now, so a stage whose
files changed since is "changed since last graded", never "passed" (a reset stub, a fix made in another shell, a
learner's code that wrote this file itself: none of them is taken on trust).

Written atomically (temp file, fsync, rename, fsync of the folder): a grader killed mid-save leaves the previous
file whole, and the next run removes the unfinished temp file and says so. A damaged file is set aside (never
overwritten) with a one-line notice, never a crash. A save that fails (disk full, read-only folder) raises
ProgressError naming the file and saying the previous progress is unchanged.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from grader import fsutil
from grader.course import layout
from grader.course.model import Course, Stage
from grader.errors import GraderError
from grader.records import Record
from grader.results import StageResult, Status

VERSION = 2  # 2: a verdict carries the digest of its files, and a short history
TEMP_PREFIX = ".progress-"
HISTORY = 10  # grades kept per stage


class ProgressError(GraderError):
    """The progress file could not be saved; the previous one is unchanged."""


class Standing(str, enum.Enum):
    """Where a stage stands now: its last recorded verdict, if the files it was given for are unchanged."""

    PASSED = "passed"
    FAILING = "failing"
    NOT_STARTED = "not started"
    CHANGED = "changed since last graded"


class Grade(Record, frozen=True):
    """One recorded grade, for the history line ("last grade 5/7, now 6/7")."""

    passed: int
    cases: int
    when: str


class Progress:
    """What the learner has done so far, keyed by stage id: one read of the file."""

    def __init__(self, root: Path) -> None:
        self.path = layout.progress_file(root)
        self.notice: str | None = None
        self.stages: dict[str, dict[str, Any]] = {}
        self._load()

    def _load(self) -> None:
        leftovers = sorted(self.path.parent.glob(f"{TEMP_PREFIX}*")) if self.path.parent.is_dir() else []
        for tmp in leftovers:
            try:
                tmp.unlink()
            except OSError:
                pass
        if leftovers:
            self.notice = (f"note: an earlier save of {self.path} was interrupted; its unfinished copy was removed "
                           "and the last complete save is kept")
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("stages"), dict):
                raise ValueError("not a progress file")
            self.stages = {k: v for k, v in data["stages"].items() if isinstance(v, dict)}
        except FileNotFoundError:
            return
        except (OSError, ValueError, UnicodeDecodeError, RecursionError):
            stamp, n = time.strftime("%Y%m%d-%H%M%S"), 0
            aside = self.path.with_name(f"progress.damaged-{stamp}.json")
            while aside.exists():  # an earlier damaged copy is never overwritten
                n += 1
                aside = self.path.with_name(f"progress.damaged-{stamp}-{n}.json")
            try:
                os.replace(self.path, aside)
                self.notice = f"note: {self.path} was damaged; set aside as {aside.name}, starting afresh"
            except OSError:
                self.notice = f"note: {self.path} is damaged and could not be moved; progress starts afresh"

    def status(self, stage_id: str) -> str | None:
        """The last recorded status, whatever the files say now (see `standings` for what counts)."""
        status = self.stages.get(stage_id, {}).get("status")
        return status if isinstance(status, str) else None

    def passed(self, stage_id: str) -> bool:
        """Whether the last recorded verdict is a pass (for the files it was given for: see `standings`)."""
        return self.status(stage_id) == "pass"

    def last_grade(self, stage_id: str) -> Grade | None:
        """The most recent grade recorded for a stage."""
        history = self.stages.get(stage_id, {}).get("history")
        if not isinstance(history, list) or not history or not isinstance(history[-1], dict):
            return None
        last = history[-1]
        try:
            return Grade(int(last["passed"]), int(last["cases"]), str(last.get("when", "")))
        except (KeyError, TypeError, ValueError):
            return None

    def waits_for(self, stage_id: str) -> str | None:
        """The earlier stage whose unwritten function stopped this one's last grade, if one did."""
        waits = self.stages.get(stage_id, {}).get("waits_for")
        return waits if isinstance(waits, str) else None

    def record(self, result: StageResult, digest: str = "", waits_for: str | None = None) -> None:
        """Keep a verdict with the digest of the files it was given for, and add it to the stage's history.

        `waits_for`: a "not started" verdict that came from an earlier stage's stub, not from this one's.
        """
        when = time.strftime("%Y-%m-%dT%H:%M:%S")
        entry = self.stages.setdefault(result.stage, {})
        entry.update(status=result.status.value, points=result.points, max_points=result.max_points,
                     digest=digest, when=when)
        entry.pop("waits_for", None)
        if waits_for:
            entry["waits_for"] = waits_for
        history = entry.get("history")
        history = history if isinstance(history, list) else []
        history.append({"passed": sum(c.passed for c in result.cases), "cases": len(result.cases),
                        "status": result.status.value, "when": when})
        entry["history"] = history[-HISTORY:]
        self.save()

    def reset(self, stage_id: str) -> None:
        """Set a stage back to not started (its hints and history stay)."""
        entry = self.stages.get(stage_id)
        if entry is None:
            return
        for key in ("status", "points", "max_points", "digest", "when", "waits_for"):
            entry.pop(key, None)
        self.save()

    def next_hint(self, stage_id: str, count: int) -> int | None:
        """The index of the next hint to show (advancing the counter), or None when all were shown."""
        entry = self.stages.setdefault(stage_id, {})
        shown = entry.get("hints_shown", 0)
        shown = shown if isinstance(shown, int) and not isinstance(shown, bool) and shown >= 0 else 0
        if shown >= count:
            return None
        entry["hints_shown"] = shown + 1
        self.save()
        return shown

    def save(self) -> None:
        """Write the whole file atomically; on failure the previous file is unchanged (ProgressError)."""
        data = json.dumps({"version": VERSION, "stages": self.stages}, indent=1, sort_keys=True) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                _write_atomic(ignore, "*\n")
            _write_atomic(self.path, data)
        except OSError as e:
            raise ProgressError(f"{self.path}: could not save your progress ({e.strerror or e}); the previous "
                                "progress file is unchanged. Free some disk space (or make the folder writable) "
                                "and grade again.") from e


def uses(course: Course, stage: Stage) -> list[Stage]:
    """The stages a stage depends on, transitively, nearest first."""
    out: list[Stage] = []
    todo = list(stage.depends_on)
    while todo:
        dep = course.stage(todo.pop(0))
        if dep.id != stage.id and dep not in out:
            out.append(dep)
            todo.extend(dep.depends_on)
    return out


def files_of(course: Course, stage: Stage) -> list[str]:
    """The student files a stage's verdict depends on: its own, then those of the stages it uses."""
    return list(dict.fromkeys([stage.student_file, *(dep.student_file for dep in uses(course, stage))]))


def stamp(root: Path) -> tuple[int, int, int] | None:
    """The progress file's (mtime_ns, size, inode): a cheap look at whether someone wrote it."""
    try:
        st = layout.progress_file(root).stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def digest(course: Course, stage: Stage, root: Path | None = None) -> str:
    """The sha256 of the files a verdict on `stage` is given for (a missing file counts as missing)."""
    h = hashlib.sha256()
    for name in sorted(files_of(course, stage)):
        try:
            data = ((root or course.root) / name).read_bytes()
            h.update(f"{name}\0{len(data)}\0".encode() + data)
        except OSError:
            h.update(f"{name}\0missing\0".encode())
    return h.hexdigest()


class Standings(Record, frozen=True):
    """Every stage's standing, from one read of the progress file and the files as they are now."""

    of: dict[str, Standing]
    order: tuple[str, ...]

    def passed(self, stage_id: str) -> bool:
        return self.of.get(stage_id) is Standing.PASSED

    @property
    def done(self) -> int:
        """How many stages pass now."""
        return sum(self.passed(s) for s in self.order)

    def passed_map(self) -> dict[str, bool]:
        """For grade.Options.passed: stages with a current verdict (True: passes)."""
        return {k: v is Standing.PASSED for k, v in self.of.items() if v in (Standing.PASSED, Standing.FAILING)}

    def with_result(self, stage_id: str, status: Status) -> Standings:
        """These standings with a verdict not yet recorded counted (a verdict on the files as they are now)."""
        standing = {Status.PASS: Standing.PASSED, Status.TODO: Standing.NOT_STARTED}.get(status, Standing.FAILING)
        return Standings(of={**self.of, stage_id: standing}, order=self.order)

    def changed(self) -> frozenset[str]:
        """For grade.Options.changed: stages whose files changed since their verdict."""
        return frozenset(k for k, v in self.of.items() if v is Standing.CHANGED)


def standings(course: Course, progress: Progress, root: Path | None = None) -> Standings:
    """Where each stage stands now: a verdict counts only for the files it was given for."""
    out = {}
    for stage in course.stages:
        status = progress.status(stage.id)
        recorded = progress.stages.get(stage.id, {}).get("digest")
        if status is None:
            out[stage.id] = Standing.NOT_STARTED
        elif not recorded or recorded != digest(course, stage, root):
            out[stage.id] = Standing.CHANGED
        elif status == Status.TODO.value:
            out[stage.id] = Standing.NOT_STARTED
        else:
            out[stage.id] = Standing.PASSED if status == Status.PASS.value else Standing.FAILING
    return Standings(of=out, order=tuple(s.id for s in course.stages))


def _write_atomic(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync, rename over, fsync the folder; the temp file never stays behind."""
    fsutil.write_text(path, text, prefix=TEMP_PREFIX, durable=False)  # a grade writes it again
