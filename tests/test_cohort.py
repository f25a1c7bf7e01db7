"""The cohort report: pass rates, common mistakes, score distribution; text, and HTML a real browser renders."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GRADED_FLAGS, run_cli
from test_batch import GOOD, folder, student

from grader.course import load_course
from grader.instructor import cohort
from grader.instructor.gradebook import Entry, Gradebook
from grader.report import html


@pytest.fixture
def gradebook(mini_template: Path, tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    folder(subs, "a_good", student(GOOD))
    folder(subs, "b_good", student(GOOD))
    folder(subs, "c_plus_two", student({**GOOD, "double": "def run_double(x):\n    return x + 2\n"}))
    folder(subs, "d_plus_two", student({"double": "def run_double(x):\n    return x + 2\n"}))
    folder(subs, "e_square", student({"double": "def run_double(x):\n    return x * x\n"}))
    folder(subs, '<b onclick="x">Ünï & co', {"nothing.txt": "x"})
    db = tmp_path / "gb.sqlite"
    result = run_cli("batch", str(subs), "--db", str(db), "--jobs", "2", *GRADED_FLAGS, cwd=mini_template)
    assert result.returncode == 0, result.stderr
    return db


def test_cohort_numbers(mini_template: Path, gradebook: Path) -> None:
    course = load_course(mini_template)
    book = Gradebook(gradebook, course.title)
    report = cohort.build(course, book)
    assert (report.submissions, report.graded, report.rejected) == (6, 5, 1)
    rates = {s.id: (s.passed, s.graded) for s in report.stages}
    assert rates == {"double": (2, 5), "combine": (3, 5), "split": (3, 5)}
    assert [(m.stage, m.id, m.submissions) for m in report.mistakes] == [("double", "plus_two", 2),
                                                                         ("double", "square", 1)]
    assert sorted(report.scores) == [0.0, 0.0, 3.0, 7.0, 7.0] and sum(report.histogram) == 5
    assert report.histogram[-1] == 2 and report.histogram[0] == 2
    text = cohort.render_text(report)
    assert "plus_two" in text and "40.0%" in text and "Not graded" in text
    book.close()


def test_report_command_writes_html(mini_template: Path, gradebook: Path, tmp_path: Path) -> None:
    out = tmp_path / "cohort.html"
    result = run_cli("report", "--db", str(gradebook), "--html", str(out), "--csv", str(tmp_path / "g.csv"),
                     cwd=mini_template)
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    assert "<b onclick" not in page and "&lt;b onclick=&#34;x&#34;&gt;Ünï &amp; co" in page
    urls = set(re.findall(r"(?:src|href)\s*=|url\(|@import|https?://[^\"' ]+", page))
    assert urls == {"http://www.w3.org/2000/svg"}  # only the SVG namespace name: nothing is fetched
    assert page.count('class="bar"') == cohort.BINS
    assert (tmp_path / "g.csv").read_bytes().count(b"\r\n") == 7


def test_report_needs_a_gradebook(mini_template: Path, tmp_path: Path) -> None:
    result = run_cli("report", "--db", str(tmp_path / "none.sqlite"), cwd=mini_template)
    assert result.returncode == 2 and "grade first" in result.stderr


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason="no chromium on PATH (Debian: apt-get install -y chromium)")
def test_html_renders_in_a_headless_browser(tmp_path: Path) -> None:
    book = Gradebook(tmp_path / "gb.sqlite", "Mini")
    course = load_course(Path(__file__).parent / "minicourse")
    for i in range(7):
        book.record(Entry(f"s{i}", "d", "rejected" if i == 6 else "graded", message="bad zip ü"))
    page = tmp_path / "cohort.html"
    page.write_text(html.render(cohort.build(course, book)), encoding="utf-8")
    args = [_chromium() or "", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}"]
    dom = subprocess.run([*args, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=90)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<svg" in dom.stdout and dom.stdout.count('class="bar"') == cohort.BINS
    assert "Pass rate per stage" in dom.stdout and "bad zip ü" in dom.stdout
    shot = subprocess.run([*args, f"--screenshot={tmp_path / 'shot.png'}", "--window-size=900,900", page.as_uri()],
                          capture_output=True, text=True, timeout=90)
    assert shot.returncode == 0, shot.stderr[-2000:]
    png = (tmp_path / "shot.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000
    book.close()
