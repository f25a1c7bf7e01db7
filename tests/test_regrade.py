"""Issue 14, points 1 and 7: regrades that happen, and the gradebook's rows honest about what they were graded with.

A cohort built here is graded, then the course changes under it (a stage's points, a hidden case fixed and its
fixtures rebuilt, a batch of one stage): each change makes every row stale, the report says so and how to
regrade, and the next batch regrades them. `--only`, `--force` and naming one learner's folder regrade chosen ones.
"""

from __future__ import annotations

import csv
import io
import re
import sqlite3
import sys
import zlib
from pathlib import Path

import pytest
from conftest import run_cli
from test_batch import GOOD, folder, student

from grader.course import Course
from grader.instructor.gradebook import Gradebook

TITLE = "Mini course for the grader's own tests"


@pytest.fixture
def subs(tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    folder(subs, "alice", student(GOOD))
    folder(subs, "bob", student({**GOOD, "double": "def run_double(x):\n    return x + 2\n"}))
    folder(subs, "carol", {"notes.txt": "I did not find the student folder"})
    return subs


def batch(course: Course, subs: Path, db: Path, *extra: str) -> str:
    result = run_cli("batch", str(subs), "--db", str(db), *extra, cwd=course.root)
    assert result.returncode == 0, result.stderr
    return result.stdout


def rows(db: Path) -> dict[str, dict[str, str]]:
    result = run_cli("report", "--db", str(db), "--csv", str(db.with_suffix(".csv")), cwd=db.parent / "course")
    assert result.returncode == 0, result.stderr
    return {r["submission"]: r for r in csv.DictReader(io.StringIO(db.with_suffix(".csv").read_text()))}


@pytest.mark.slow  # four batches and four reports in subprocesses
def test_a_changed_course_regrades_every_row(mini: Course, subs: Path, tmp_path: Path) -> None:
    db = tmp_path / "gb.sqlite"
    out = batch(mini, subs, db)
    assert re.search(r"\[1/3\] \w+: .* · about \d+ s left", out) and "[3/3]" in out  # N of M, time left
    assert "3 already in" in batch(mini, subs, db)
    before = rows(db)
    assert {r["max_points"] for r in before.values()} == {"7"}  # carol (rejected) carries the real maximum too
    yaml = mini.root / "course.yaml"
    yaml.write_text(yaml.read_text().replace("points: 4", "points: 5"))
    report = run_cli("report", "--db", str(db), cwd=mini.root)
    assert "3 rows were graded with another course state" in report.stdout
    assert f"regrade them: python -m grader batch {subs} --db {db}" in report.stdout
    assert "STALE (changed: double's points (4 then, 5 now))" in report.stdout
    # red team round 31: an LMS file written before the regrade said nothing of the older scores it holds
    lms = run_cli("report", "--db", str(db), "--lms", str(tmp_path / "lms.csv"), cwd=mini.root).stdout
    assert "note: 3 of its scores (alice, bob, carol) were graded with another course state" in lms, lms
    again = batch(mini, subs, db)
    assert "0 already in" in again and "3 of them were regraded because the course changed" in again
    after = rows(db)
    assert {r["max_points"] for r in after.values()} == {"8"}
    assert after["alice"]["course_state"] != before["alice"]["course_state"]  # which state each row was graded with
    assert "stale" not in run_cli("report", "--db", str(db), cwd=mini.root).stdout.lower()
    lms = run_cli("report", "--db", str(db), "--lms", str(tmp_path / "lms.csv"), cwd=mini.root).stdout
    assert "wrote" in lms and "another course state" not in lms, lms


@pytest.mark.slow  # two batches, a fixture build and a report
def test_a_fixed_hidden_case_makes_rows_stale_until_regraded(mini: Course, subs: Path, tmp_path: Path) -> None:
    db = tmp_path / "gb.sqlite"
    batch(mini, subs, db)
    stage = mini.root / "stages" / "double" / "stage.yaml"
    stage.write_text(stage.read_text().replace("low: -3, high: 3, seed: 8", "low: -3, high: 3, seed: 9"))
    build = run_cli("fixtures", "build", "--stage", "double", cwd=mini.root)
    assert build.returncode == 0, build.stderr
    report = run_cli("report", "--db", str(db), cwd=mini.root).stdout
    assert "changed: double's definition; double's fixtures" in report
    assert "3 of them were regraded" in batch(mini, subs, db)


@pytest.mark.slow  # two batches and four reports
def test_a_stage_batch_then_a_full_batch_leaves_full_rows(mini: Course, subs: Path, tmp_path: Path) -> None:
    db = tmp_path / "gb.sqlite"
    batch(mini, subs, db, "--stage", "double")
    assert set(rows(db)["alice"]) >= {"double_points"} and rows(db)["alice"]["stages"] == "1"
    assert "3 of them were regraded" in batch(mini, subs, db)  # content unchanged, course state changed:
    assert {r["stages"] for r in rows(db).values() if r["state"] == "graded"} == {"3"}  # all three stages now


@pytest.mark.slow  # four batches
def test_only_and_force_choose_whom_to_regrade(mini: Course, subs: Path, tmp_path: Path) -> None:
    db = tmp_path / "gb.sqlite"
    batch(mini, subs, db)
    out = batch(mini, subs, db, "--only", "bob")
    assert "1 submissions: 1 graded" in out and "bob" in out and "alice" not in out
    assert "3 submissions: 2 graded, 1 rejected" in batch(mini, subs, db, "--force")
    wrong = run_cli("batch", str(subs), "--db", str(db), "--only", "bobb", cwd=mini.root)
    assert wrong.returncode == 2 and "--only bobb: no submission of that name" in wrong.stderr
    assert "did you mean 'bob'" in wrong.stderr


@pytest.mark.slow  # a batch of five
def test_no_machine_path_in_what_the_gradebook_keeps(mini: Course, subs: Path, tmp_path: Path) -> None:
    folder(subs, "dave", student({**GOOD, "double": "def run_double(x):\n    open('/nonexistent/x')\n"}))
    folder(subs, "erin", student({**GOOD, "double": "def run_double(x):\n    print(__file__)\n    return 2 * x\n"}))
    db = tmp_path / "gb.sqlite"
    batch(mini, subs, db)
    with sqlite3.connect(db) as con:
        text = "\n".join(str(v) for row in con.execute("SELECT * FROM submissions") for v in row if
                         not isinstance(v, bytes))
        text += "\n".join(str(v) for row in con.execute("SELECT * FROM cases") for v in row)
        text += "\n".join(zlib.decompress(b).decode() for (b,) in con.execute("SELECT report FROM submissions")
                          if b)
    assert "student/double.py" in text and "carol: no student/ folder" in text
    for machine in (str(tmp_path), "/tmp/grader-", sys.prefix, str(mini.root)):
        assert machine not in text, machine


@pytest.mark.slow  # a batch; test_cohort.py's batch is in the fast loop
def test_a_first_schema_gradebook_is_upgraded_and_regraded(mini: Course, subs: Path, tmp_path: Path) -> None:
    db = tmp_path / "gb.sqlite"
    with sqlite3.connect(db) as con:  # what a batch of the first schema left
        con.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            f"INSERT INTO meta VALUES ('schema', '1'), ('course', \"{TITLE}\");"
            "CREATE TABLE submissions (id TEXT PRIMARY KEY, digest TEXT NOT NULL, state TEXT NOT NULL, points REAL "
            "NOT NULL, max_points REAL NOT NULL, message TEXT NOT NULL, seconds REAL NOT NULL, compute_seconds REAL "
            "NOT NULL, graded_at TEXT NOT NULL);"
            "CREATE TABLE stages (submission TEXT NOT NULL, stage TEXT NOT NULL, status TEXT NOT NULL, points REAL "
            "NOT NULL, max_points REAL NOT NULL, PRIMARY KEY (submission, stage));"
            "CREATE TABLE cases (submission TEXT NOT NULL, stage TEXT NOT NULL, case_id TEXT NOT NULL, status TEXT "
            "NOT NULL, points REAL NOT NULL, max_points REAL NOT NULL, hidden INTEGER NOT NULL, diagnosis TEXT, "
            "message TEXT NOT NULL, PRIMARY KEY (submission, stage, case_id));"
            "INSERT INTO submissions VALUES ('alice', 'x', 'graded', 1, 40, '', 1, 1, '2024-01-01');")
    with Gradebook(db, TITLE) as book:
        assert book.known() == {"alice": ("x", "")}
    assert "3 submissions: 2 graded, 1 rejected" in batch(mini, subs, db)


@pytest.mark.parametrize("edit", ["stages/double/decoys.py", "stages/double/checks.py", "common/shared.py"])
def test_the_code_that_judges_a_stage_is_part_of_its_state(mini: Course, edit: str) -> None:
    """Red team round 7: an edited checks.py (or a decoy, or a common module) left every row current."""
    from grader.instructor import regrade

    before = regrade.course_state(mini)
    path = mini.root / edit
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((path.read_text() if path.exists() else "") + "\n# edited\n")
    after = regrade.course_state(mini)
    assert after.key != before.key
    assert "double's code" in regrade.what_changed(before.parts, after)


def test_the_grader_s_code_and_the_batch_s_settings_are_part_of_the_state(mini: Course, subs: Path,
                                                                         tmp_path: Path, monkeypatch) -> None:
    """Red team round 7: a grader fixed without a new version, or a batch run with another --budget, left every
    row current."""
    from grader.instructor import regrade

    db = tmp_path / "gb.sqlite"
    batch(mini, subs, db)
    assert "3 already in" in batch(mini, subs, db)
    again = batch(mini, subs, db, "--budget", "60")
    assert "0 already in" in again and "3 of them were regraded" in again
    report = run_cli("report", "--db", str(db), cwd=mini.root).stdout
    assert "stale" not in report.lower()  # the report compares with the settings of the last batch
    before = regrade.course_state(mini, grading={"budget": 60.0, "jailed": True})
    monkeypatch.setattr(regrade, "_grader_code", lambda: "f" * 64)  # the grader's code changed, not its version
    after = regrade.course_state(mini, grading={"budget": 60.0, "jailed": True})
    assert after.key != before.key and "changed: the grader (" in regrade.what_changed(before.parts, after)
    other = regrade.course_state(mini, grading={"budget": 120.0, "jailed": True})
    assert "the grading settings (budget 60.0, jailed True then, budget 120.0, jailed True now)" in \
        regrade.what_changed(after.parts, other)


def test_the_regrade_command_the_report_prints_is_quoted(mini: Course, tmp_path: Path) -> None:
    """Red team round 8 (2b): the report's `regrade them: python -m grader batch FOLDER` printed the folder unquoted,
    so a folder named `x; echo PWNED #` ran a command of its own when pasted."""
    import shlex

    subs = tmp_path / "x; echo PWNED #"
    folder(subs, "alice", student(GOOD))
    db = tmp_path / "gb.sqlite"
    batch(mini, subs, db)
    yaml = mini.root / "course.yaml"
    yaml.write_text(yaml.read_text().replace("points: 4", "points: 5"))
    report = run_cli("report", "--db", str(db), cwd=mini.root).stdout
    line = next(x for x in report.splitlines() if "regrade them:" in x)
    command = line.split("regrade them: ", 1)[1]
    assert shlex.split(command)[:5] == ["python", "-m", "grader", "batch", str(subs)], command
