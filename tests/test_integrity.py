"""Issue 14, point 6: a renamed copy is flagged, lateness is read from the submission and costs what course.yaml
says, and the scores go out as a CSV an LMS imports.
"""

from __future__ import annotations

import csv
import io
import os
import re
import struct
import time
import zipfile
from pathlib import Path

import pytest
from conftest import run_cli
from test_batch import GOOD, folder, make_zip, student

from grader.course import Course
from grader.instructor import late, similarity

ALICE = '''import numpy as np


def run_double(x):
    """Double, the long way round."""
    flat = np.asarray(x).reshape(-1)
    result = np.empty_like(flat)
    for index in range(flat.shape[0]):
        value = flat[index]
        result[index] = value + value
    return result.reshape(np.shape(x))


def helper_scale(values, factor):
    out = []
    for item in values:
        out.append(item * factor)
    return out
'''
# a renamed copy: every name changed, comments added, layout changed
BOB = '''import numpy as np

# my own work
def run_double(arr):
    """Doubles arr."""
    v = np.asarray(arr).reshape(-1)   # flatten
    r = np.empty_like(v)
    for k in range(v.shape[0]):
        e = v[k]

        r[k] = e + e
    return r.reshape(np.shape(arr))


def mult(xs, f):
    acc = []
    for t in xs:
        acc.append(t * f)   # scale
    return acc
'''
CAROL = '''import numpy as np


def run_double(x):
    y = np.array(x, copy=True)
    y *= 2
    if y.ndim == 0:
        return np.float32(y)
    return y
'''


@pytest.mark.slow  # a batch of seven and a report in subprocesses
def test_a_renamed_copy_is_flagged_and_independent_work_is_not(mini: Course, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    folder(subs, "alice", student({**GOOD, "double": ALICE}))
    folder(subs, "bob", student({**GOOD, "double": BOB}))
    folder(subs, "carol", student({**GOOD, "double": CAROL}))
    for name in ("dan", "eve", "fay", "gus"):  # the way everyone writes it is no evidence
        folder(subs, name, student(GOOD))
    db = tmp_path / "gb.sqlite"
    assert run_cli("batch", str(subs), "--db", str(db), "--jobs", "2", cwd=mini.root).returncode == 0
    report = run_cli("report", "--db", str(db), cwd=mini.root).stdout
    flagged = report.split("Similar submissions")[1].split("Score distribution")[0]
    assert "alice ~ bob" in flagged and "student/double.py" in flagged
    assert "carol" not in flagged and "dan" not in flagged
    assert similarity.tokens("x = foo(y)  # c\n") == similarity.tokens("a=b( c )\n")  # names and layout vanish


def _when(text: str) -> float:
    return time.mktime(time.strptime(text, "%Y-%m-%d %H:%M"))


def _ut(seconds: float) -> bytes:
    return struct.pack("<HHBi", 0x5455, 5, 1, int(seconds))


@pytest.mark.slow  # a batch of five and a report in subprocesses
def test_lateness_from_the_files_and_the_policy(mini: Course, tmp_path: Path) -> None:
    yaml = mini.root / "course.yaml"
    yaml.write_text(yaml.read_text().replace("stages:", "late: {grace_minutes: 15, per_day: 0.25, max_days: 2}\n"
                                                         "stages:"))
    subs = tmp_path / "subs"
    entries = [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()]

    def zipped(name: str, when: str, utc: bool = False) -> None:
        infos = []
        for path, data in entries:
            info = zipfile.ZipInfo(path, date_time=time.localtime(_when(when))[:6])
            if utc:  # macOS and Info-ZIP add the UTC time in an extra field: it wins over the DOS time
                info.date_time, info.extra = (1999, 1, 1, 0, 0, 0), _ut(_when(when))
            infos.append((info, data))
        make_zip(subs / f"{name}.zip", infos)

    subs.mkdir()
    zipped("on_time", "2025-03-01 23:50")
    zipped("in_grace", "2025-03-02 00:10")
    zipped("a_day_late", "2025-03-02 12:00", utc=True)
    zipped("too_late", "2025-03-05 09:00")
    folder(subs, "folder_late", student(GOOD))
    for f in (subs / "folder_late" / "student").iterdir():
        os.utime(f, (_when("2025-03-03 08:00"), _when("2025-03-03 08:00")))
    db = tmp_path / "gb.sqlite"
    done = run_cli("batch", str(subs), "--db", str(db), "--deadline", "2025-03-02T00:00", "--lms",
                   str(tmp_path / "lms.csv"), cwd=mini.root)
    assert done.returncode == 0, done.stderr
    lms = dict(csv.reader(io.StringIO((tmp_path / "lms.csv").read_text(), newline="")))
    assert lms == {"id": "score", "on_time": "7", "in_grace": "7", "a_day_late": "5.25", "folder_late": "3.5",
                   "too_late": "0"}
    report = run_cli("report", "--db", str(db), cwd=mini.root).stdout  # the deadline was kept by batch
    assert "3 submissions late" in report and "a_day_late   5.25/7 (11.8 h late, was 7)" in report
    assert late.final_points(8, 0.01, mini.late) == 8  # no policy in the mini course: late costs nothing


def test_the_lms_record_of_submission_times_beats_what_the_files_say(mini: Course, tmp_path: Path) -> None:
    """A learner sets their files' times (any zip tool writes the time it is given): `--times` counts instead."""
    yaml = mini.root / "course.yaml"
    yaml.write_text(yaml.read_text().replace("stages:", "late: {per_day: 0.25, max_days: 2}\nstages:"))
    subs = tmp_path / "subs"
    subs.mkdir()
    backdated = [(zipfile.ZipInfo(f"student/{k}.py", date_time=(2025, 3, 1, 12, 0, 0)), v.encode())
                 for k, v in GOOD.items()]
    make_zip(subs / "backdated.zip", backdated)
    make_zip(subs / "honest.zip", backdated)
    times = tmp_path / "times.csv"
    times.write_text("Student,Submitted_At,Score\nbackdated,2025-03-04T10:00,\nhonest,2025-03-01T12:00,\n"
                     "nobody,2025-03-01T12:00,\n")
    db = tmp_path / "gb.sqlite"
    done = run_cli("batch", str(subs), "--db", str(db), "--deadline", "2025-03-02T00:00", "--times", str(times),
                   "--lms", str(tmp_path / "lms.csv"), cwd=mini.root)
    assert done.returncode == 0, done.stderr
    assert "submission times from" in done.stdout and "1 names in" in done.stdout and "nobody" in done.stdout
    lms = dict(csv.reader(io.StringIO((tmp_path / "lms.csv").read_text(), newline="")))
    assert lms == {"id": "score", "backdated": "0", "honest": "7"}  # 2.4 days late: past max_days
    report = run_cli("report", "--db", str(db), cwd=mini.root).stdout  # the times were kept by batch
    assert "1 submissions late" in report
    for text, message in [("who,when\nx,y\n", r"times.csv:1: the first line must name the columns"),
                          ("submission,time\nx,next tuesday\n", r"times.csv:2: 'next tuesday' is not a time"),
                          ("submission,time\nx\n", r"times.csv:2: 1 columns"),
                          ("submission,time\nx,2025-03-01T00:00\nx,2025-03-02T00:00\n", "two different times")]:
        times.write_text(text)
        bad = run_cli("report", "--db", str(db), "--times", str(times), cwd=mini.root)
        assert bad.returncode == 2 and re.search(message, bad.stderr), bad.stderr
    times.write_text("submission,time\ncafe\u0301,2025-03-01T00:00\n")  # ids are NFC (intake.printable)
    assert list(late.read_times(times)) == ["caf\u00e9"]


def test_the_lms_times_name_learners_exactly_and_safely_and_add_up(mini: Course, tmp_path: Path) -> None:
    """Red team round 33: `--times` stripped names (a learner `mallory ` matched no spelling, and her own file times
    counted), split quoted names at U+2028 (the whole file refused, after grading), printed unmatched names raw (an
    escape cleared the instructor's screen), and each file replaced the times of the one before (section A's)."""
    yaml = mini.root / "course.yaml"
    yaml.write_text(yaml.read_text().replace("stages:", "late: {per_day: 0.25, max_days: 2}\nstages:"))
    subs = tmp_path / "subs"
    subs.mkdir()
    backdated = [(zipfile.ZipInfo(f"student/{k}.py", date_time=(2025, 3, 1, 12, 0, 0)), v.encode())
                 for k, v in GOOD.items()]
    make_zip(subs / "mallory .zip", backdated)
    make_zip(subs / "alice.zip", backdated)
    times, db = tmp_path / "times.csv", tmp_path / "gb.sqlite"
    times.write_text('submission,time\n"mallory ",2025-03-04T10:00\n"line\u2028break\x1b[2J",2025-03-01T00:00\n')
    assert late.read_times(times) == {"mallory ": late.parse_deadline("2025-03-04T10:00"),
                                      "line\\u2028break\\x1b[2J": late.parse_deadline("2025-03-01T00:00")}
    done = run_cli("batch", str(subs), "--db", str(db), "--deadline", "2025-03-02T00:00", "--times", str(times),
                   "--lms", str(tmp_path / "lms.csv"), cwd=mini.root)
    assert done.returncode == 0 and "\x1b" not in done.stdout, done.stdout + done.stderr
    lms = dict(csv.reader(io.StringIO((tmp_path / "lms.csv").read_text(), newline="")))
    assert lms["mallory "] == "0" and lms["alice"] == "7", lms  # her LMS time counts: 2.4 days late
    times.write_text("submission,time\nalice,2025-03-04T10:00\n")  # section B's file: added to A's
    run_cli("report", "--db", str(db), "--times", str(times), "--lms", str(tmp_path / "lms.csv"), cwd=mini.root)
    lms = dict(csv.reader(io.StringIO((tmp_path / "lms.csv").read_text(), newline="")))
    assert lms["mallory "] == "0" and lms["alice"] == "0", lms
    times.write_text('submission,time\nx,2025-03-01T00:00\n"x",2025-03-02T00:00\n')
    refused = run_cli("batch", str(subs), "--db", str(db), "--times", str(times), cwd=mini.root)
    assert refused.returncode == 2 and "two different times" in refused.stderr and "[1/" not in refused.stdout


def test_a_time_no_calendar_holds_stops_no_report(mini: Course, tmp_path: Path) -> None:
    """Red team round 8: a file time of year ~2**31 (a learner's tarball unpacked on tmpfs) stopped `report`, its CSV
    and HTML and every feedback file with the grader's own OSError; at 2**63-1 s the submission's row was a grader
    error (os.utime overflowed). Implausible times are unknown where they enter and shown as "?" if stored."""
    from grader.instructor import submissions as subs_module
    from grader.results.cohort import moment

    assert moment(7e16) == "?" and moment(None) == "" and not late.plausible(7e16) and late.plausible(time.time())
    out = tmp_path / "x"
    subs_module._write(out, subs_module.PurePosixPath("student/double.py"), b"x = 1\n", mtime=float(2**63 - 1))
    assert os.stat(out / "student" / "double.py").st_mtime == 0
    assert late.submitted_at(out, ["student/double.py"]) is None  # unknown, not "submitted in 1970"
    subs = tmp_path / "subs"
    folder(subs, "alice", student(GOOD))
    folder(subs, "mallory", student(GOOD))
    times = tmp_path / "times.csv"
    times.write_text("submission,submitted_at\nmallory,70000000000000000\nalice,2025-03-01T12:00\n")
    db = tmp_path / "gb.sqlite"
    done = run_cli("batch", str(subs), "--db", str(db), "--unsandboxed", "--deadline", "2025-03-02T00:00",
                   "--times", str(times), "--csv", str(tmp_path / "g.csv"), "--feedback", str(tmp_path / "fb"),
                   cwd=mini.root)
    assert done.returncode == 0, done.stderr
    report = run_cli("report", "--db", str(db), "--html", str(tmp_path / "r.html"), cwd=mini.root)
    assert report.returncode == 0, report.stderr
    one = run_cli("feedback", "mallory", "--db", str(db), cwd=mini.root)
    assert one.returncode == 0 and "Submitted ?" in one.stdout, one.stderr
    assert sorted(p.name for p in (tmp_path / "fb").iterdir()) == ["alice.txt", "mallory.txt"]
