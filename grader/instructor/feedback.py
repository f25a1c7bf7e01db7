"""One learner's feedback from the gradebook: what `python -m grader feedback NAME` prints and `--feedback DIR` writes.

The stored report is rendered by the terminal report's renderer in full (every case, failing messages kept), and
every case goes through `results.redacted`, the one hidden-case policy: a hidden case shows its verdict and named
mistake only. Above it: the score after the late policy, when it was submitted and graded, and the course state.
A submission that could not be graded gets the reason. No path of the grading machine is in any of it (batch cut
them when it recorded the rows).
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from grader import fsutil
from grader.course import Course
from grader.errors import GraderError, UsageError
from grader.instructor import late
from grader.instructor.gradebook import Gradebook
from grader.report import text
from grader.report.cohorttext import late_words
from grader.results import without_hidden_values
from grader.results.cohort import Row, moment


def _rows(course: Course, book: Gradebook, deadline: float | None) -> dict[str, Row]:
    if deadline is None and book.setting("deadline"):
        deadline = float(book.setting("deadline") or 0)
    return {r.id: r for r in late.apply(book.rows(), course.late, deadline)}


def for_learner(course: Course, book: Gradebook, sid: str, deadline: float | None = None,
                rows: dict[str, Row] | None = None) -> str:
    """One learner's full feedback as text."""
    rows = rows if rows is not None else _rows(course, book, deadline)
    row = rows.get(sid)
    if row is None:
        near = difflib.get_close_matches(sid, list(rows), n=1)
        raise UsageError(f"no submission '{sid}' in {book.path}" + (f"; did you mean '{near[0]}'?" if near else
                                                                     f" ({len(rows)} submissions there)"))
    head = [f"{course.title}: feedback for {row.id}", f"Graded {row.graded_at} (course state {row.course_key[:10]})"]
    if row.submitted_at is not None:
        head.append("Submitted " + moment(row.submitted_at, "%Y-%m-%d %H:%M %z") +
                    (f", {late_words(row.late_days)} late" if row.late_days else ""))
    if row.state != "graded":
        why = ("could not be graded" if row.state == "rejected" else
               "was not graded: the grader failed on it (your instructor will grade it again)")
        return "\n".join([*head, "", f"Your submission {why}:", row.message, ""])
    score = f"Score: {row.final:.4g}/{row.max_points:.4g} points"
    if row.final_points is not None and row.final != row.points:
        score += f" ({row.points:.4g} before the late policy)"
    report = book.report(sid)
    if report is None:
        return "\n".join([*head, score, "", "(this row was recorded without its full report: regrade it)", ""])
    report.stages = [without_hidden_values(s) for s in report.stages]
    return "\n".join([*head, score, ""]) + "\n" + text.render(report, colour=False, verbose=True)


_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")  # an id that is its own file name
_BASE = 80  # characters of a changed id kept in its file name


def file_names(ids: Iterable[str]) -> dict[str, str]:
    """Each learner's feedback file name: one per id, and no id can choose another's (ids are learners' file names).

    A plain id (ASCII letters, digits, `_.-`, at most 100 characters, alone among the cohort's plain ids once case
    is ignored) is its own name: `alice.txt`. Any other is cut to its plain characters and followed by `~` and 16
    hex digits of its SHA-256: `_alice` writes `alice~3c1f....txt`, never `alice.txt`. A plain name holds no `~`,
    and two changed ids share a name only if their digests do, so the names are distinct whatever the cohort, and
    every name is at most 105 characters (a file system takes 255 bytes).
    """
    ids = list(ids)
    folded = Counter(sid.casefold() for sid in ids if _PLAIN.fullmatch(sid))  # only a plain id can take a plain name
    out = {}
    for sid in ids:
        if _PLAIN.fullmatch(sid) and folded[sid.casefold()] == 1:
            out[sid] = f"{sid}.txt"
        else:
            base = re.sub(r"[^A-Za-z0-9_.-]+", "_", sid).strip("._-")[:_BASE] or "submission"
            digest = hashlib.sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            out[sid] = f"{base}~{digest}.txt"
    return out


def write_all(course: Course, book: Gradebook, out: Path, deadline: float | None = None) -> list[Path]:
    """One feedback file per learner in `out` (for mailing, or an LMS's feedback upload); the files written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot make the folder {out}: {e.strerror or e}; pass another --feedback DIR")
    rows = _rows(course, book, deadline)
    names = file_names(rows)
    written, failed = [], []
    for sid in sorted(rows):  # one learner's file that cannot be written does not stop the others' (red team round 9)
        path = out / names[sid]
        try:
            fsutil.write_text(path, for_learner(course, book, sid, rows=rows))
        except OSError:
            raise  # the folder itself (a full disk): every later file would fail the same way
        except Exception as e:  # noqa: BLE001 - named below, after every other learner's file is written
            failed.append(f"{sid} ({type(e).__name__}: {e})"[:300])
            continue
        written.append(path)
    if failed:
        raise GraderError(f"wrote {len(written)} feedback files to {out}, but not these: {'; '.join(failed[:5])}"
                          + (" ..." if len(failed) > 5 else "") + ". This is a bug in the grader: please report it "
                          "with the gradebook.")
    return written


def lms_scores(course: Course, book: Gradebook, deadline: float | None = None) -> list[tuple[str, float | None]]:
    """(submission id, final score) for an LMS's grade import; None where the grader failed (not a zero)."""
    return [(r.id, None if r.state == "error" else round(r.final, 4))
            for r in sorted(_rows(course, book, deadline).values(), key=lambda r: r.id)]
