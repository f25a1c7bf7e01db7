"""Where a course's files live: the one module that spells these paths and names.

```
<root>/course.yaml                the course
<root>/stages/<id>/               a stage's YAML, markdown and Python
<root>/common/<name>.py           course code several stages' files import (`from common.<name> import f`)
<root>/student/<file>.py          the learner's code
<root>/fixtures/<id>/             inputs, expected outputs, MANIFEST.json, artifacts/
<root>/.grader/                   the grader's own state: progress, backups, caches (git-ignored)
```
"""

from __future__ import annotations

from pathlib import Path

from grader import fsutil
from grader.errors import UsageError

COURSE_FILE = "course.yaml"
STAGES = "stages"
COMMON = "common"  # the folder, and the name stage files import it by
STUDENT = "student"
FIXTURES = "fixtures"
MANIFEST = "MANIFEST.json"
ARTIFACTS = "artifacts"
STATE = ".grader"
STAGE_MODULE_PREFIX = "_grader_stage_"  # sys.modules names of a stage's own Python (reference, decoys, ...)


def stage_dir(root: Path, stage_id: str) -> Path:
    """A stage's definition folder."""
    return root / STAGES / stage_id


def common_dir(root: Path) -> Path:
    """The course's shared code: modules that stage files import as `common.<name>`."""
    return root / COMMON


def course_root(stage_dir: Path) -> Path:
    """The course folder a stage's folder belongs to."""
    return stage_dir.parent.parent


def fixture_dir(root: Path, stage_id: str) -> Path:
    """Where a stage's fixtures live."""
    return root / FIXTURES / stage_id


def state(root: Path) -> Path:
    """The grader's own folder, made on first use with a .gitignore that keeps it out of the learner's commits."""
    folder = root / STATE
    if not (folder / ".gitignore").exists():
        folder.mkdir(parents=True, exist_ok=True)
        fsutil.write_text(folder / ".gitignore", "*\n")
    return folder


def progress_file(root: Path) -> Path:
    """The learner's progress: which stages pass, for which files, and which hints were shown."""
    return root / STATE / "progress.json"


def course_cache(root: Path) -> Path:
    """The validated course, cached as JSON so a grade need not import YAML."""
    return root / STATE / "cache" / "course.json"


def imports_cache(root: Path) -> Path:
    """What the course's Python files import from common/, by their digest (course/stagecode.py)."""
    return root / STATE / "cache" / "imports.json"


def verified_cache(root: Path, stage_id: str) -> Path:
    """What a stage's fixture files hashed to, and their stats then: a cold grade re-hashes only what changed."""
    return root / STATE / "cache" / f"verified-{stage_id}.json"


def backups(root: Path) -> Path:
    """Learner files saved before `reset` replaced them."""
    return root / STATE / "backups"


def decoy_cache(root: Path) -> Path:
    """Hidden cases' decoy outputs, graded: on disk, never in a worker's memory."""
    return root / STATE / "decoys"


def hidden_from_submissions(root: Path) -> list[Path]:
    """The course folders a graded submission must never see."""
    return [root / FIXTURES, root / STAGES, root / COMMON, root / STATE]


def find_root(start: Path) -> Path:
    """The nearest folder at or above start that holds course.yaml."""
    for folder in [start, *start.parents]:
        if (folder / COURSE_FILE).exists():
            return folder
    raise UsageError(f"no course.yaml in {start} or any folder above it: run the grader from the course folder, "
                     "or pass --root DIR")
