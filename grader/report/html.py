"""The cohort report as one self-contained HTML page: inline CSS and an inline SVG chart, no network fetches.

jinja2 with autoescaping on, so submission names and messages from learners are text, never markup.
"""

from __future__ import annotations

from grader import templating
from grader.report.cohorttext import LABELS, late_words
from grader.results import Status
from grader.results.cohort import BINS, OUTCOMES, CohortReport


def _bars(report: CohortReport, width: int = 560, height: int = 180) -> list[dict[str, object]]:
    """The score histogram's bars, in SVG coordinates."""
    peak = max(report.histogram, default=0) or 1
    step = width / BINS
    bars = []
    for i, n in enumerate(report.histogram):
        h = (height - 30) * n / peak
        bars.append({"x": i * step + 4, "y": height - 20 - h, "w": step - 8, "h": h, "n": n,
                     "label": f"{100 * i // BINS}-{100 * (i + 1) // BINS}%"})
    return bars


def render(report: CohortReport) -> str:
    """The cohort report as one HTML page."""
    cells = {x.id: {s.stage: s for s in x.stages} for x in report.learners}
    category = {s.value: "skipped" if s is Status.SKIPPED else s.category for s in Status}
    return templating.render("cohort.html.j2", html=True, r=report, bars=_bars(report), width=560, height=180,
                             cells=cells, category=category, outcome_names=OUTCOMES, labels=LABELS,
                             late_words=late_words)
