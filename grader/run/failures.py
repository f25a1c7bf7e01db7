"""Why a learner's call gave no value: the status and message for each way importing or calling it can fail.

The child (run/child.py) reports these about itself; they name the learner's own file and line, never the
grader's frames, and say what to do next.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any

from grader.results import Status
from grader.run.protocol import Call
from grader.run.safetext import MESSAGE_CAP
from grader.run.values import Payload


def student_modules() -> list[str]:
    """The learner's modules imported so far (what the grader's upstream notes speak of)."""
    return sorted(m for m in sys.modules if m == "student" or m.startswith("student."))


def import_module(root: Path, call: Call) -> tuple[Any, tuple[dict[str, Any], list[Payload]] | None]:
    """The learner's module, or the frame that says why it could not be imported."""
    try:
        return importlib.import_module(call.module), None
    except SyntaxError as e:
        where = f"{rel(root, e.filename)}:{e.lineno}" if e.filename else call.module
        text = f"\n    {e.text.rstrip()}" if e.text else ""
        return None, err(Status.SYNTAX_ERROR, f"{where}: {type(e).__name__}: {e.msg}{text}")
    except ModuleNotFoundError as e:
        if e.name in (call.module, "student"):
            path = call.module.replace(".", "/") + ".py"
            return None, err(Status.IMPORT_ERROR, f"{path} is missing. Restore the stub with "
                              f"`python -m grader reset {call.module.rsplit('.', 1)[-1]}`.")
        return None, err(Status.IMPORT_ERROR, trimmed(root, e, "importing your module failed"))
    except NotImplementedError as e:
        return None, err(Status.TODO, str(e) or "not started yet", raised_in(root, e))
    except MemoryError:
        return None, err(Status.MEMORY, "ran out of memory while importing your module")
    except SystemExit as e:
        return None, err(Status.EXITED, f"your module called exit({e.code!r}) while being imported")
    except BaseException as e:
        return None, err(Status.IMPORT_ERROR, trimmed(root, e, "importing your module failed"))


def raised_in(root: Path, e: BaseException) -> str | None:
    """The learner's innermost function in the traceback, as "student/gelu.py:run_gelu"."""
    import traceback

    student = str(root / "student") + os.sep
    mine = [f for f in traceback.extract_tb(e.__traceback__) if f.filename.startswith(student)]
    return f"{rel(root, mine[-1].filename)}:{mine[-1].name}" if mine else None


def err(status: Status, message: str, raised_in: str | None = None) -> tuple[dict[str, Any], list[Payload]]:
    """The result frame of a call that ended in `status`."""
    # cut here: a frame's header over HEADER_CAP would be refused whole, and the verdict lost with it
    return {"status": status.value, "message": message[:MESSAGE_CAP], "modules": student_modules(),
            "raised_in": raised_in}, []


def rel(root: Path, filename: str) -> str:
    """A file as the learner knows it: relative to their folder where it is inside it."""
    try:
        return str(Path(filename).resolve().relative_to(root))
    except (ValueError, OSError):
        return filename


def trimmed(root: Path, e: BaseException, what: str) -> str:
    """The traceback cut down to the learner's own frames (and the library line that raised, if any)."""
    import traceback  # only when the learner's code raised: kept off every grade's start-up

    student = str(root / "student")
    frames = traceback.extract_tb(e.__traceback__)
    mine = [f for f in frames if f.filename.startswith(student)]
    keep = list(mine)
    if frames and frames[-1] not in mine:
        keep.append(frames[-1])
    lines = [f"{what}:"]
    for f in keep:
        lines.append(f"  {rel(root, f.filename)}:{f.lineno}, in {f.name}")
        if f.line:
            lines.append(f"    {f.line}")
    lines.append("".join(traceback.format_exception_only(type(e), e)).strip())
    return "\n".join(lines)
