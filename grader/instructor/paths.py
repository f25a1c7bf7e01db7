"""No absolute path of the grading machine in what a learner reads (gradebook rows, feedback, Gradescope output).

A submission is graded in a scratch folder under /tmp, the course and Python live in folders of the instructor's
machine: a message that names any of them is cut back to the part the learner knows (`student/gelu.py`,
`numpy/core/fromnumeric.py`, `alice.zip`).
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
import tempfile
from collections.abc import Iterable
from pathlib import Path

from grader.instructor.intake import printable
from grader.results import Report

_SCRATCH = re.compile(re.escape(tempfile.gettempdir().rstrip(os.sep)) + r"/grader-[^/\s'\"]+/")


def places(*roots: Path) -> list[str]:
    """Folders to cut from messages, longest first: the given ones (scratch, submissions, course), then Python's."""
    paths = sysconfig.get_paths()
    found = {str(r) for r in roots} | {str(r.resolve()) for r in roots}
    found |= {paths["purelib"], paths["platlib"], paths["stdlib"], sys.prefix, sys.base_prefix}
    found |= {printable(p) for p in found}  # as a SubmissionError spells them (NFC, escapes: red team round 24 read
    return sorted((p.rstrip(os.sep) for p in found if p and p != os.sep), key=len, reverse=True)  # a macOS path)


def scrub(text: str, folders: Iterable[str]) -> str:
    """The text with each folder (and anything under the temporary folder the grader made) cut out."""
    text = _SCRATCH.sub("", text)
    for folder in folders:
        text = text.replace(folder + os.sep, "")
        if os.path.isabs(folder):  # a relative name alone ("subs") may well be a word of the message
            text = text.replace(folder, ".")
    return text


def scrub_report(report: Report, folders: list[str]) -> Report:
    """Every message, note, place and printed output of a report scrubbed, in place (returned for chaining)."""
    for stage in report.stages:
        stage.notes = [scrub(n, folders) for n in stage.notes]
        for case in stage.cases:
            case.message, case.stdout = scrub(case.message, folders), scrub(case.stdout, folders)
            case.notes = [scrub(n, folders) for n in case.notes]
            if case.where:
                case.where = scrub(case.where, folders)
            if case.raised_in:
                case.raised_in = scrub(case.raised_in, folders)
    return report
