"""The learner's progress file, .grader/progress.json: which stages pass, and which hints were shown.

Written atomically (temp file, fsync, rename, fsync of the folder): a grader killed mid-save leaves the previous
file whole, and the next run removes the unfinished temp file and says so. A damaged file is set aside (never
overwritten) with a one-line notice, never a crash. A save that fails (disk full, read-only folder) raises
ProgressError naming the file and saying the previous progress is unchanged.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from grader import fsutil
from grader.errors import GraderError
from grader.results import StageResult

FILE = Path(".grader") / "progress.json"
TEMP_PREFIX = ".progress-"


class ProgressError(GraderError):
    """The progress file could not be saved; the previous one is unchanged."""


class Progress:
    """What the learner has done so far, keyed by stage id."""

    def __init__(self, root: Path) -> None:
        self.path = root / FILE
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
        return self.stages.get(stage_id, {}).get("status")

    def passed(self, stage_id: str) -> bool:
        return self.status(stage_id) == "pass"

    def passed_map(self) -> dict[str, bool]:
        return {k: self.passed(k) for k in self.stages}

    def record(self, result: StageResult) -> None:
        entry = self.stages.setdefault(result.stage, {})
        entry.update(status=result.status.value, points=result.points, max_points=result.max_points,
                     when=time.strftime("%Y-%m-%dT%H:%M:%S"))
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
        data = json.dumps({"version": 1, "stages": self.stages}, indent=1, sort_keys=True) + "\n"
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


def _write_atomic(path: Path, text: str) -> None:
    """Temp file in the same folder, fsync, rename over, fsync the folder; the temp file never stays behind."""
    fsutil.write_text(path, text, prefix=TEMP_PREFIX)
