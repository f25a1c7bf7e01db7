"""The cohort report: pass rates, common mistakes, score distribution; text, and HTML a real browser renders."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GRADED_FLAGS, copy_course, run_cli
from test_batch import GOOD, folder, student
from test_upstream import CALLS_DOUBLE

from grader.course import Course, load_course
from grader.errors import UsageError
from grader.instructor import cohort, feedback
from grader.instructor.gradebook import Gradebook


@pytest.fixture(scope="module")
def gradebook(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One batch of a small cohort, read (never written) by the tests that take it."""
    tmp_path = tmp_path_factory.mktemp("gradebook")
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


def test_feedback_from_the_small_cohort(mini_template: Path, gradebook: Path, tmp_path: Path) -> None:
    """feedback.py in the fast loop (the broken-hidden-case cohort's feedback test below is slow)."""
    course = load_course(mini_template)
    with Gradebook(gradebook, course.title) as book:
        one = feedback.for_learner(course, book, "c_plus_two")
        written = feedback.write_all(course, book, tmp_path / "feedback")
        with pytest.raises(UsageError, match="did you mean 'c_plus_two'"):
            feedback.for_learner(course, book, "c_plus_tow")
    assert "feedback for c_plus_two" in one and "Score: 3/7" in one and "Known mistake: plus_two" in one
    assert len(written) == 6 and (tmp_path / "feedback" / "c_plus_two.txt").read_text() == one
    rejected = next(p for p in written if p.name.startswith("b_onclick"))
    assert "could not be graded" in rejected.read_text()


def test_one_learner_s_feedback_that_cannot_be_made_stops_no_other(mini_template: Path, gradebook: Path,
                                                                     tmp_path: Path, monkeypatch) -> None:
    """Red team round 9: one learner's stored report made formatting raise, and every learner after them in id order
    got no feedback file. Now each other file is written, and the one that failed is named."""
    from grader.errors import GraderError

    course = load_course(mini_template)
    real = feedback.for_learner

    def fails_for_one(course, book, sid, **kwargs):  # type: ignore[no-untyped-def]
        if sid == "c_plus_two":
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        return real(course, book, sid, **kwargs)

    monkeypatch.setattr(feedback, "for_learner", fails_for_one)
    with Gradebook(gradebook, course.title) as book, pytest.raises(GraderError, match=r"but not these: c_plus_two"):
        feedback.write_all(course, book, tmp_path / "fb")
    assert len(list((tmp_path / "fb").iterdir())) == 5 and (tmp_path / "fb" / "e_square.txt").exists()


def test_report_needs_a_gradebook(mini_template: Path, tmp_path: Path) -> None:
    result = run_cli("report", "--db", str(tmp_path / "none.sqlite"), cwd=mini_template)
    assert result.returncode == 2 and "grade first" in result.stderr


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


PRINTS = "def run_double(x):\n    print('shape seen', x.shape)\n    return x + 2\n"


@pytest.fixture(scope="module")
def class_of(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Course, Path]:
    """A cohort graded against a course whose hidden case is broken (its reference is wrong on that input only).

    Built once for the tests that take it: they read the course and the gradebook, and write only in their own folder.
    """
    tmp_path = tmp_path_factory.mktemp("class")
    mini = load_course(copy_course(mini_template, tmp_path / "course"))
    ref = mini.root / "stages" / "double" / "reference.py"
    ref.write_text("def double(x):\n    return 2 * x if x.size != 5 else 2 * x + 1  # a bug on the hidden input\n")
    assert run_cli("fixtures", "build", "--stage", "double", cwd=mini.root).returncode == 0
    subs = tmp_path / "subs"
    for name in ("ann", "ben", "cat"):
        folder(subs, name, student(GOOD))
    folder(subs, "dan", student({**GOOD, "double": PRINTS, "combine": CALLS_DOUBLE}))
    folder(subs, "eve", student({**GOOD, "double": "def run_double(x):\n    while True:\n        pass\n"}))
    folder(subs, "fay", student({**GOOD, "double": "def run_double(x:\n"}))
    folder(subs, "gus", student({**GOOD, "split": "def run_split(x):\n    raise NotImplementedError('todo')\n"}))
    folder(subs, "hal", {"readme.md": "forgot"})
    db = tmp_path / "gb.sqlite"
    result = run_cli("batch", str(subs), "--db", str(db), "--jobs", "2", cwd=mini.root)
    assert result.returncode == 0, result.stderr
    return load_course(mini.root), db


@pytest.mark.slow  # a second cohort, with a 3 s timeout; cohort.build: test_cohort_numbers
def test_the_report_says_whom_to_help_and_with_what(class_of: tuple[Course, Path]) -> None:
    course, db = class_of
    with Gradebook(db, course.title) as book:
        report = cohort.build(course, book)
    learners = {x.id: x for x in report.learners}
    assert learners["dan"].mistakes == ["double: plus_two"]
    assert learners["dan"].upstream == ["combine ← double (only cause)"]
    assert [s.status for s in learners["eve"].stages][:1] == ["timeout"]
    assert learners["hal"].state == "rejected" and "no student/ folder" in learners["hal"].message
    assert report.outcomes["timeout"] == 1 and report.outcomes["syntax_error"] == 1
    assert report.outcomes["not_started"] == 1
    assert next(s for s in report.stages if s.id == "combine").blamed == 1
    assert [(m.id, m.who) for m in report.mistakes] == [("plus_two", ["dan"])]
    cases = {(c.stage, c.case): c for c in report.cases}
    assert cases["double", "secret"].hidden and cases["double", "secret"].pass_rate == 0
    assert cases["double", "secret"].suspect and not cases["double", "small"].suspect  # the broken case stands out
    assert report.batch_date and report.course_version.startswith("course state ")
    text = cohort.render_text(report)
    assert "!double:secret" in text and "plus_two                     1 submissions (3 cases): dan" in text
    assert "dan" in text.split("Per learner")[1] and "timed out 1" in text


@pytest.mark.slow  # a second cohort, with a 3 s timeout; feedback.py: test_feedback_from_the_small_cohort
def test_feedback_for_one_learner_and_files_for_all(class_of: tuple[Course, Path], tmp_path: Path) -> None:
    course, db = class_of
    one = run_cli("feedback", "--db", str(db), "dan", cwd=course.root)
    assert one.returncode == 0, one.stderr
    out = one.stdout
    assert "feedback for dan" in out and "Score: 3/7" in out and "Known mistake: plus_two" in out
    assert "worst at" in out and "first mismatches" in out  # failing public cases in full
    assert "shape seen (2, 3)" in out and "(5,)" not in out  # a hidden case's printed output is never shown
    assert "hidden 1" in out and "does not match" in out and "secret" not in out  # the hidden case, never its id
    assert "graded with the reference double" in out
    near = run_cli("feedback", "--db", str(db), "dann", cwd=course.root)
    assert near.returncode == 2 and "did you mean 'dan'" in near.stderr
    files = tmp_path / "feedback"
    done = run_cli("report", "--db", str(db), "--feedback", str(files), cwd=course.root)
    assert done.returncode == 0 and "wrote 8 feedback files" in done.stdout
    assert sorted(p.name for p in files.iterdir()) == [f"{n}.txt" for n in
                                                       ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal")]
    assert "could not be graded" in (files / "hal.txt").read_text()
    assert (files / "dan.txt").read_text() == out


def _png_colours(png: bytes) -> set[tuple[int, int, int]]:
    """The colours of a PNG screenshot (8-bit RGB or RGBA, not interlaced: what chromium writes)."""
    import struct
    import zlib

    width, height, depth, kind = struct.unpack(">IIBB", png[16:26])
    assert depth == 8 and kind in (2, 6)
    data, at = b"", 8
    while at < len(png):
        size, tag = struct.unpack(">I4s", png[at:at + 8])
        if tag == b"IDAT":
            data += png[at + 8:at + 8 + size]
        at += 12 + size
    raw, bpp = zlib.decompress(data), 3 if kind == 2 else 4
    stride, prev, colours = width * bpp, bytearray(width * bpp), set()
    for y in range(height):
        kind_f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a, b = line[i - bpp] if i >= bpp else 0, prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind_f == 1:
                line[i] = (line[i] + a) & 255
            elif kind_f == 2:
                line[i] = (line[i] + b) & 255
            elif kind_f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind_f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        colours.update(tuple(line[i:i + 3]) for i in range(0, stride, bpp * 7))  # every 7th pixel is plenty
        prev = line
    return colours  # type: ignore[return-value]


@pytest.mark.slow
@pytest.mark.skipif(_chromium() is None, reason="no chromium on PATH (Debian: apt-get install -y chromium)")
def test_html_renders_in_a_headless_browser(class_of: tuple[Course, Path], tmp_path: Path) -> None:
    """The per-learner table, rendered by a real browser: in its DOM, and on screen (its cells' colours)."""
    course, db = class_of
    page = tmp_path / "cohort.html"
    done = run_cli("report", "--db", str(db), "--html", str(page), cwd=course.root)
    assert done.returncode == 0, done.stderr
    args = [_chromium() or "", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'p'}"]
    dom = subprocess.run([*args, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=90)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<svg" in dom.stdout and dom.stdout.count('class="bar"') == cohort.BINS
    assert "Pass rate per stage" in dom.stdout and 'id="learners"' in dom.stdout
    assert dom.stdout.count('<tr class="learner">') == 8 and "combine ← double (only cause)" in dom.stdout
    assert 'class="suspect"' in dom.stdout  # the broken hidden case
    shot = subprocess.run([*args, f"--screenshot={tmp_path / 'shot.png'}", "--window-size=1200,1400",
                           page.as_uri()], capture_output=True, text=True, timeout=90)
    assert shot.returncode == 0, shot.stderr[-2000:]
    colours = _png_colours((tmp_path / "shot.png").read_bytes())
    pass_cell, fail_cell, todo_cell = (0xD8, 0xF0, 0xDF), (0xF8, 0xD7, 0xD7), (0xFF, 0xF1, 0xB8)
    assert {pass_cell, fail_cell, todo_cell} <= colours, "the per-learner table's cells are not on screen"
