"""The learner's progress file, .grader/progress.json: which stages pass, and which hints were shown.

Written atomically (temp file, fsync, rename). A damaged file is set aside with a one-line notice, never a crash.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from grader.results import StageResult

FILE = Path(".grader") / "progress.json"


class Progress:
    """What the learner has done so far, keyed by stage id."""

    def __init__(self, root: Path) -> None:
        self.path = root / FILE
        self.notice: str | None = None
        self.stages: dict[str, dict[str, Any]] = {}
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not isinstance(data, dict) or not isinstance(data.get("stages"), dict):
                raise ValueError("not a progress file")
            self.stages = {k: v for k, v in data["stages"].items() if isinstance(v, dict)}
        except FileNotFoundError:
            return
        except (OSError, ValueError, UnicodeDecodeError):
            aside = self.path.with_name(f"progress.damaged-{int(time.time())}.json")
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
        shown = int(entry.get("hints_shown", 0))
        if shown >= count:
            return None
        entry["hints_shown"] = shown + 1
        self.save()
        return shown

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        ignore = self.path.parent / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n")
        data = json.dumps({"version": 1, "stages": self.stages}, indent=1, sort_keys=True) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=".progress-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
