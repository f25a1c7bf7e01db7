"""Graded stages with hidden cases are graded in a short-lived process of their own.

The process that forks the next submission's (or the next stage's) children never holds a hidden expected value, a
hidden decoy output or another submission's hidden answers: only the results that come back, with hidden cases'
values stripped (report.policy). Public inputs and expected values are no secret: they ship in the handout.
"""

from __future__ import annotations

import gc
import os
import pickle
from collections.abc import Callable

from grader.errors import GraderError
from grader.judge.decoys import CACHE
from grader.results import StageResult


def in_own_process(work: Callable[[], StageResult]) -> StageResult:
    """Run `work` in a forked process and return its result: whatever it read dies with it.

    The result comes back pickled over a pipe; the process is the grader's own (the learner's code runs in its
    children), so what it sends is trusted.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        _child(work, read_end, write_end)  # never returns
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        payload = f.read()
    os.waitpid(pid, 0)
    try:
        kind, value = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - the grading process died before it could answer
        raise GraderError("the process grading this stage ended without a result (killed, or out of memory)")
    if kind == "error":
        raise value
    result, public = value
    # Decoy outputs on public cases come back to be kept: the next stage process inherits them instead of
    # recomputing an MLP's seven known mistakes.
    CACHE.absorb(public)
    if not isinstance(result, StageResult):
        raise GraderError("the process grading this stage sent back something other than a result")
    return result


def _child(work: Callable[[], StageResult], read_end: int, write_end: int) -> None:
    code = 0
    try:
        gc.disable()  # short-lived: a collection would only copy-on-write pages shared with the parent
        os.close(read_end)
        try:
            known = set(CACHE.memory)
            result = work()
            payload = pickle.dumps(("ok", (result, CACHE.public_since(known))))
        except BaseException as e:  # noqa: BLE001 - carried to the caller, raised there
            payload = pickle.dumps(("error", e if isinstance(e, GraderError) else
                                    GraderError(f"grading failed: {type(e).__name__}: {e}")))
        with os.fdopen(write_end, "wb") as f:
            f.write(payload)
    except BaseException:  # noqa: BLE001
        code = 70
    finally:
        os._exit(code)
