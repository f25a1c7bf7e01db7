"""Issue 14, point 2: submissions as learners really send them are graded, not rejected.

A cohort built here: the whole handout zipped (fixtures and all, past the byte cap though only student/*.py is
read), a zip with a virtualenv inside (past the old entry cap, with symlinks), the stage files bare at the top, a
Student/ folder with case variants, macOS's litter, and a README beside the submissions.
"""

from __future__ import annotations

import os
import shutil
import stat
import struct
import zipfile
from pathlib import Path, PurePosixPath

import pytest
from conftest import run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_batch import GOOD, folder, make_zip, student

from grader.course import Course
from grader.errors import UsageError
from grader.instructor import batch, intake, regrade, submissions
from grader.instructor.gradebook import Gradebook

DECLARED = ["student/double.py", "student/combine.py", "student/split.py"]


def _link(name: str, target: bytes) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target


@pytest.fixture
def cohort(tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    subs.mkdir()
    handout = [(f"handout/student/{k}.py", v.encode()) for k, v in GOOD.items()]
    handout += [("handout/fixtures/gpt2/artifacts/model.npy", b"\x93NUMPY" + b"\0" * (70 << 20)),  # 70 MB > 64 MiB
                ("handout/grader/cli.py", b"print('the grader')\n"), ("handout/student/__init__.py", b"")]
    make_zip(subs / "whole_handout.zip", handout)
    venv = [(f".venv/lib/python3.11/site-packages/pkg{i}/mod.py", b"x = 1\n") for i in range(2100)]
    venv += [_link(".venv/bin/python", b"/usr/bin/python3"), _link(".venv/lib64", b"lib")]
    make_zip(subs / "with_venv.zip", venv + [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    make_zip(subs / "bare_files.zip", [(f"{k}.py", v.encode()) for k, v in GOOD.items()])
    make_zip(subs / "mac_zip.zip", [(f"work/Student/{k.capitalize()}.py", v.encode()) for k, v in GOOD.items()] +
             [("__MACOSX/work/Student/._Double.py", b"\x00\x05\x16\x07 binary resource fork"),
              ("work/Student/._Split.py", b"\x00\x05\x16\x07")])
    folder(subs, "renamed_folder", {f"student (1)/{k}.py": v for k, v in GOOD.items()})
    folder(subs, "helper", {"student/double.py": "from student.twice import twice\n\n\ndef run_double(x):\n"
                                                 "    return twice(x)\n",
                            "student/twice.py": "def twice(x):\n    return 2 * x\n"})
    (subs / "README.txt").write_text("Submissions downloaded on Monday")
    (subs / "grades_export.tar.gz").write_bytes(b"\x1f\x8b not really")
    (subs / "__MACOSX").mkdir()
    return subs


@pytest.mark.slow  # a batch in a subprocess
def test_submissions_as_learners_send_them_are_graded(mini_template: Path, cohort: Path, tmp_path: Path) -> None:
    result = run_cli("batch", str(cohort), "--db", str(tmp_path / "gb.sqlite"), "--jobs", "2", cwd=mini_template)
    assert result.returncode == 0, result.stderr
    assert "not submissions, skipped: README.txt, __MACOSX, grades_export.tar.gz" in result.stdout
    with Gradebook(tmp_path / "gb.sqlite", "Mini course for the grader's own tests") as book:
        rows = {r.id: r for r in book.rows()}
    assert set(rows) == {"whole_handout", "with_venv", "bare_files", "mac_zip", "renamed_folder", "helper"}
    for sid in ("whole_handout", "with_venv", "bare_files", "mac_zip", "renamed_folder"):
        assert rows[sid].state == "graded" and rows[sid].points == 7, (sid, rows[sid].message)
    assert rows["helper"].stages["double"].status == "pass"  # a helper beside the stage files is copied too


def test_only_the_files_to_grade_are_extracted_and_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zpath = make_zip(tmp_path / "sub.zip", [("student/double.py", GOOD["double"].encode()),
                                            ("student/notes.txt", b"x" * 5000), ("big/data.bin", b"\0" * 50_000)])
    monkeypatch.setattr(submissions, "MAX_BYTES", 10_000)
    written = submissions.unpack(submissions.Submission("s", zpath), tmp_path / "a", declared=DECLARED)
    assert written == ["student/double.py"]  # 55 kB zipped, 28 bytes extracted: under the cap
    big = make_zip(tmp_path / "big.zip", [("student/double.py", b"# " + b"x" * 20_000 + b"\n")])
    with pytest.raises(submissions.SubmissionError, match="files to grade unpack to 20003 bytes"):
        submissions.unpack(submissions.Submission("big", big), tmp_path / "b", declared=DECLARED)


def test_whatever_intake_takes_the_jail_copies_in_whole(tmp_path: Path) -> None:
    """Red team round 18: intake took up to 64 MiB, the jail's copy of student/ stopped at 32 MiB and dropped the
    rest without a word (a stage file among them). One cap: a submission past it is refused, naming the cap."""
    from grader.run import confine

    pad = "# " + "x" * (3 << 20) + "\n"  # under the cap of one file
    sub = folder(tmp_path, "big", student({**GOOD, "pad0": pad}))
    for i in range(1, confine.GRADED_TREE_CAP // len(pad) + 1):
        shutil.copy(sub / "student" / "pad0.py", sub / "student" / f"pad{i}.py")
    cap = f"more than the cap \\({confine.GRADED_TREE_CAP} bytes in all\\)"
    with pytest.raises(submissions.SubmissionError, match=cap):
        submissions.unpack(submissions.Submission("big", sub), tmp_path / "out")


def test_a_zip_listing_too_many_entries_is_refused_before_it_is_read(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    zpath = make_zip(tmp_path / "many.zip", [(f"junk/{i}.txt", b"") for i in range(300)])
    assert intake.zip_entry_count(zpath, 1000) == 300
    monkeypatch.setattr(submissions, "MAX_ENTRIES", 200)
    opened = []
    monkeypatch.setattr(zipfile, "ZipFile", lambda *a, **k: opened.append(a))
    with pytest.raises(submissions.SubmissionError, match="lists at least 300 entries"):
        submissions.unpack(submissions.Submission("many", zpath), tmp_path / "out", declared=DECLARED)
    # red team round 8: an end record that says 1 over the same 300 headers (zipfile reads them all regardless)
    data = bytearray(zpath.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8:end + 12] = struct.pack("<HH", 1, 1)
    lying = tmp_path / "lying.zip"
    lying.write_bytes(bytes(data))
    assert intake.zip_entry_count(lying, 1000) == 300 and intake.zip_entry_count(lying, 200) == 201
    with pytest.raises(submissions.SubmissionError, match="lists at least 201 entries"):
        submissions.unpack(submissions.Submission("lying", lying), tmp_path / "out2", declared=DECLARED)
    # red team round 9: the same with the directory's offset declared 0 (zipfile reads it before the end record)
    data[end + 16:end + 20] = struct.pack("<I", 0)
    lying.write_bytes(bytes(data))
    assert intake.zip_entry_count(lying, 200) == 201
    prepended = tmp_path / "sfx.zip"  # a self-extracting zip: data before it, offsets as written: counted the same
    prepended.write_bytes(b"#!stub\n" * 100 + zpath.read_bytes())
    assert intake.zip_entry_count(prepended, 1000) == 300
    assert not opened


ROUND10 = Path(__file__).parent / "hostile" / "redteam" / "round10"


def test_entries_are_counted_where_zipfile_reads_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team round 10: two zips that the grader's own reader of the end record placed elsewhere than zipfile does.

    An end record whose directory-offset field holds the end record's signature (a search from the end found that
    copy: "not a zip", so nothing was counted), and a 65,535-byte comment pushing the zip64 locator out of the
    searched window (the end record's count of 1 was taken, zipfile read the zip64 record's 3,000).
    """
    import subprocess
    import sys

    def build(script: str, *args: str) -> Path:
        out = tmp_path / f"{script}-{len(args)}.zip"
        subprocess.run([sys.executable, str(ROUND10 / script), str(out), *args], check=True, capture_output=True)
        return out

    for zipped in (build("sig_offset_zip.py", "entries", "3000"), build("comment_zip64_zip.py", "3000")):
        assert len(zipfile.ZipFile(zipped).infolist()) == 3000  # what zipfile would list
        assert intake.zip_entry_count(zipped, 1000) is not None and intake.zip_entry_count(zipped, 1000) > 1000
        monkeypatch.setattr(submissions, "MAX_ENTRIES", 1000)
        with pytest.raises(submissions.SubmissionError, match="entries .the cap is 1000."):
            submissions.unpack(submissions.Submission("z", zipped), tmp_path / zipped.stem, declared=DECLARED)
    gelu = tmp_path / "gelu.py"
    gelu.write_text("def run_gelu(x):\n    return x\n")
    with pytest.raises(intake.IntakeError, match="65532 bytes of extra fields"):
        intake.zip_entry_count(build("sig_offset_zip.py", "extras", str(gelu), "3"), 1000)


def test_a_folder_s_dot_files_count_against_the_cap_on_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team round 31: 300,000 dot-files beside a learner's student/gelu.py were listed whole by the digest and
    the unpacking (about 250 bytes of the worker's memory each: 10 million, 2.5 GB) and never counted against the
    cap. Every entry of a folder now counts, and no more than the cap is listed."""
    from grader.instructor import contents

    sub = tmp_path / "dots"
    (sub / "student").mkdir(parents=True)
    (sub / "student" / "double.py").write_text("def run_double(x):\n    return 2 * x\n")
    for i in range(300):
        (sub / "student" / f".swap{i}").write_bytes(b"")
    assert len(intake.listing(str(sub / "student"), 100)) == 101  # nothing past one over the cap is listed
    monkeypatch.setattr(submissions, "MAX_ENTRIES", 200)
    monkeypatch.setattr(contents, "MAX_ENTRIES", 200)
    with pytest.raises(submissions.SubmissionError, match="holds more than 200 files"):
        contents.digest(submissions.Submission("dots", sub))
    with pytest.raises(submissions.SubmissionError, match="holds more than 200 files"):
        submissions.unpack(submissions.Submission("dots", sub), tmp_path / "out", declared=DECLARED)
    monkeypatch.setattr(submissions, "MAX_ENTRIES", 400)
    monkeypatch.setattr(contents, "MAX_ENTRIES", 400)
    contents.digest(submissions.Submission("dots", sub))
    assert submissions.unpack(submissions.Submission("dots", sub), tmp_path / "out2", declared=DECLARED) == \
        ["student/double.py"]


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA], ids=["bzip2", "lzma"])
def test_an_entry_compressed_other_than_by_deflate_is_refused_before_it_is_unpacked(tmp_path: Path,
                                                                                     method: int) -> None:
    """Red team round 10: zipfile bounds one read's output for deflate only; 785 bytes of bzip2 made 1 GiB at once."""
    zipped = tmp_path / "learner.zip"
    with zipfile.ZipFile(zipped, "w", compression=method) as zf:
        zf.writestr("student/double.py", GOOD["double"])
    name = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma"}[method]
    with pytest.raises(submissions.SubmissionError, match=f"'student/double.py' is compressed with {name}, not "
                                                          "deflate"):
        submissions.unpack(submissions.Submission("learner", zipped), tmp_path / "out", declared=DECLARED)
    stored = make_zip(tmp_path / "ok.zip", [("student/double.py", GOOD["double"].encode())])  # deflate: unpacked
    assert submissions.unpack(submissions.Submission("ok", stored), tmp_path / "ok", declared=DECLARED)


@pytest.mark.parametrize("field, value", [("version needed", 255), ("version needed", 0xFFFF)])
def test_a_zip_that_zipfile_cannot_open_is_a_rejection_not_a_grader_error(tmp_path: Path, field: str,
                                                                          value: int) -> None:
    """Red team round 22: a central directory entry whose "version needed to extract" is 25.5 made ZipFile() raise
    NotImplementedError, which intake did not expect: a grader error row, regraded by every batch."""
    zipped = make_zip(tmp_path / "learner.zip", [("student/double.py", GOOD["double"].encode())])
    data = bytearray(zipped.read_bytes())
    at = data.index(b"PK\x01\x02")  # the central directory header; version needed is its bytes 6-7
    data[at + 6:at + 8] = value.to_bytes(2, "little")
    zipped.write_bytes(bytes(data))
    with pytest.raises(submissions.SubmissionError, match="not a readable zip .NotImplementedError"):
        submissions.unpack(submissions.Submission("learner", zipped), tmp_path / "out", declared=DECLARED)


def test_case_variants_pick_the_declared_spelling_first() -> None:
    from pathlib import PurePosixPath as P

    chosen = intake.choose([P("STUDENT/DOUBLE.py"), P("STUDENT/double.py"), P("STUDENT/Combine.PY")], DECLARED,
                           False, "sub")
    assert chosen == {P("STUDENT/double.py"): P("student/double.py"), P("STUDENT/Combine.PY"): P("student/combine.py")}
    with pytest.raises(intake.IntakeError, match="several student/ folders"):
        intake.choose([P("a/student/double.py"), P("b/Student/double.py")], DECLARED, False, "sub")
    # red team round 33: 40,000 folders listed in one refusal, a 9.9 MB row and CSV cell; at most 5, and any
    # refusal's text is cut
    many = [P(f"d{i:05d}/student/double.py") for i in range(40_000)]
    with pytest.raises(intake.IntakeError, match=r"d00004/student and 39995 more\); submit") as refused:
        intake.choose(many, DECLARED, False, "sub")
    assert len(str(refused.value)) < 300
    said = str(submissions.SubmissionError("x" * 100_000))
    assert len(said) < intake.MESSAGE_CAP + 100 and said.endswith("(98,000 characters more)")
    with pytest.raises(intake.IntakeError, match="none of the stage files .double.py, combine.py, split.py."):
        intake.choose([P("notes/readme.md")], DECLARED, True, "sub")


@pytest.mark.slow  # three batches, each in a jail
def test_one_learners_path_grades_that_learner(mini: Course, tmp_path: Path) -> None:
    """`batch SUBS/alice` regrades alice; it used to add a learner named `student`."""
    subs = tmp_path / "subs"
    folder(subs, "alice", student(GOOD))
    make_zip(subs / "bob.zip", [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    with Gradebook(tmp_path / "gb.sqlite", mini.title) as book:
        for path in (subs / "alice", subs / "bob.zip", subs / "alice"):
            summary = batch.run(mini, path, book, batch.BatchOptions())
            assert summary.total == summary.graded == 1  # the second alice too: naming one learner regrades it
        assert [r.id for r in book.rows()] == ["alice", "bob"]
    assert regrade.survey(subs, DECLARED)[2] is False and regrade.survey(subs / "alice", DECLARED)[2] is True


@pytest.mark.parametrize("name", ["Student", "student", "double.py"])
@pytest.mark.parametrize("others", ["folders", "zip", "nested handout"])
def test_a_folder_that_looks_both_ways_is_refused_by_name(tmp_path: Path, name: str, others: str) -> None:
    """Red team rounds 6 and 7: a submission named `Student` (or a stage file's name) made the batch folder look
    like one submission, and the batch graded that learner alone as the whole cohort, exit 0; and a learner's
    folder holding `bob/student/` would, read as a folder of submissions, replace bob's row. Neither is guessed."""
    subs = tmp_path / "subs"
    subs.mkdir()
    if others == "zip":
        make_zip(subs / "alice.zip", [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    elif others == "nested handout":
        folder(subs / "bob", "gpt2-course-main", student(GOOD))
    else:
        folder(subs, "alice", student(GOOD))
        folder(subs, "bob", student(GOOD))
    if name.endswith(".py"):
        (subs / name).write_text(GOOD["double"])
    else:
        folder(subs, name, student(GOOD))
    with pytest.raises(UsageError, match="rename it") as e:
        regrade.survey(subs, DECLARED)
    assert str(subs) in str(e.value)
    shutil.rmtree(subs / name) if (subs / name).is_dir() else (subs / name).unlink()
    found, _, single = regrade.survey(subs, DECLARED)  # without it: a folder of submissions
    assert single is False and found


def test_one_learners_own_folder_is_still_one(tmp_path: Path) -> None:
    alice = tmp_path / "alice"
    folder(tmp_path, "alice", student(GOOD))
    (alice / "notes").mkdir()
    (alice / "notes" / "week1.md").write_text("...")
    (alice / ".venv").mkdir()
    assert regrade.survey(alice, DECLARED)[2] is True


def test_a_package_of_helpers_in_student_is_taken_one_level_deep() -> None:
    from pathlib import PurePosixPath as P

    """Red team round 4, break 6: student/helpers/heads.py was dropped, and a correct attention failed to import it."""
    paths = [P("student/double.py"), P("student/helpers/__init__.py"), P("student/helpers/heads.py"),
             P("student/helpers/deep/more.py"), P("student/.venv/lib/site.py"), P("student/__pycache__/x.py"),
             P("student/site-packages/numpy.py"), P("student/my helpers/x.py")]
    chosen = intake.choose(paths, DECLARED, False, "sub")
    assert sorted(t.as_posix() for t in chosen.values()) == [
        "student/double.py", "student/helpers/__init__.py", "student/helpers/heads.py"]


def test_one_learner_of_the_cohort_named_by_its_path_is_that_learner(mini: Course, tmp_path: Path) -> None:
    """Red team round 7: mallory's folder held her work/student/ and a planted bob/x/y/student/; the instructor's
    regrade of her folder (`batch SUBS/mallory`) read it as a folder of submissions and replaced bob's row."""
    subs = tmp_path / "subs"
    folder(subs, "bob", student(GOOD))
    folder(subs / "mallory", "work", student(GOOD))
    folder(subs / "mallory" / "bob" / "x", "y", student({"double": "def run_double(x):\n    return 0 * x\n"}))
    with Gradebook(tmp_path / "gb.sqlite", mini.title) as book:
        book.set_setting("submissions", str(subs))  # what a batch of the cohort remembers
        plan = regrade.plan(mini, subs / "mallory", book)
        assert plan.single and [s.id for s, _ in plan.todo] == ["mallory"]


def test_submissions_whose_names_collide_are_each_graded_under_a_name_of_their_own(mini: Course,
                                                                                   tmp_path: Path) -> None:
    """Red team rounds 5-7: `bob/` beside `bob.zip` (or a folder `bob.ZIP`) stopped the whole batch, rc 2. Rounds 19
    and 24: a name alike only once made printable (decomposed, or with the Kelvin sign) took the plain id."""
    subs = tmp_path / "subs"
    folder(subs, "alice", student(GOOD))
    folder(subs, "bob", student(GOOD))
    make_zip(subs / "bob.zip", [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    folder(subs, "bob.ZIP", student({**GOOD, "double": "def run_double(x):\n    return x + 2\n"}))
    folder(subs, "a\x01", student(GOOD))
    folder(subs, "a\\x01", student(GOOD))
    folder(subs, "caf\u00e9", student(GOOD))  # composed, and decomposed (macOS): alike everywhere (red team round 18)
    folder(subs, "cafe\u0301", student(GOOD))
    make_zip(subs / "Kate.zip", [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    folder(subs, "\u212aate", student(GOOD))  # the Kelvin sign: `Kate` once made printable (NFC), not on disk
    ids = [s.id for s in submissions.discover(subs)]
    # none of a pair alike keeps the plain name the LMS knows (red team round 24: the look-alike folder took `Kate`)
    assert ids == ["Kate.zip", "a\\x01~1", "a\\x01~2", "alice", "bob~1", "bob.ZIP", "bob.zip", "caf\u00e9~1",
                   "caf\u00e9~2", "Kate~1"]
    assert submissions.named(subs / "bob.zip") == "bob.zip" and submissions.named(subs / "alice") == "alice"
    with Gradebook(tmp_path / "gb.sqlite", mini.title) as book:
        summary = batch.run(mini, subs, book, batch.BatchOptions(unsandboxed=True))
        assert summary.total == summary.graded == 10
        rows = {r.id: r for r in book.rows()}
        assert rows["bob.ZIP"].points < rows["bob~1"].points == rows["bob.zip"].points
        # one learner named by its path is the row discover gave it, not its namesake's
        (subs / "bob.zip").unlink()
        make_zip(subs / "bob.zip", [("student/double.py", GOOD["double"].encode())])
        again = batch.run(mini, subs / "bob.zip", book, batch.BatchOptions(unsandboxed=True))
        assert again.graded == 1
        rows2 = {r.id: r for r in book.rows()}
        assert rows2["bob~1"].points == rows["bob~1"].points and rows2["bob.zip"].points < rows["bob.zip"].points


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "a~1", "a~2", "a~1~1", "b", "a.zip", "a.Zip"]),
                          st.sampled_from(["", ".zip", ".ZIP"]), st.booleans()), min_size=1, max_size=6))
def test_no_submission_takes_another_entry_s_plain_name(entries: list[tuple[str, str, bool]]) -> None:
    """Red team round 26: `a/` beside `a.zip` was given `a~1`, the plain name (the LMS's) of a learner's `a~1.zip`
    whose own name `a~1.ZIP` shared. An id is an entry's plain name only for that entry, and only when no other
    entry shares it; and an entry alone with its plain name keeps it (round 31: `a.zip`, beside `a.Zip/`, was known
    by its whole name, `a.zip`, the plain name of `a.zip.zip`, which so lost it)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for stem, suffix, is_dir in entries:
            path = folder / (stem + suffix)
            if path.exists():
                continue
            path.mkdir() if is_dir else path.write_bytes(b"")
        subs = submissions.discover(folder)
        plain = [submissions.plain_name(s.path) for s in subs]
        assert len({s.id for s in subs}) == len(subs)
        for sub, mine in zip(subs, plain, strict=True):
            owners = [other for other, name in zip(subs, plain, strict=True) if name == sub.id]
            assert owners in ([], [sub]) and (sub.id != mine or plain.count(mine) == 1), (sub, subs)
            assert sub.id == mine or plain.count(mine) > 1, (sub, subs)


def test_a_learner_s_long_line_cannot_wrap_into_lines_of_its_own(mini: Course, tmp_path: Path) -> None:
    """Red team round 26: a zip entry `../` padded with spaces to the terminal's width, quoted whole in its refusal and
    printed whole on the batch's progress line and in the report's "Not graded", wrapped into a forged
    `[3/3] mallory: graded, 120/120 points` line. Every one-line summary of a message is its first line, cut."""
    subs, db = tmp_path / "subs", str(tmp_path / "gb.sqlite")
    folder(subs, "alice", student(GOOD))
    forged = "../" + " " * 77 + "[2/2] mallory: graded, 7/7 points (0.4 s) · done" + " " * 400
    make_zip(subs / "mallory.zip", [(forged, b"x"), ("student/double.py", GOOD["double"].encode())])
    folder(subs, "eve: graded, 7 of 7 points" + " " * 150 + "x", student(GOOD))  # round 28: through the id
    # round 31: through the names in the batch's notes (an entry that is not a submission, a name two entries share)
    (subs / ("zz" + " " * 52 + "[3\u22153] zed: graded, 7\u22157 points" + " " * 28 + ".tar.gz")).write_bytes(b"")
    padded = "m" + " " * 60 + "[4\u22154] mel: graded, 7\u22157 points"  # (a division slash: no / in a name)
    folder(subs, padded, student(GOOD))
    make_zip(subs / (padded + ".zip"), [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    done = run_cli("batch", str(subs), "--db", db, "--unsandboxed", cwd=mini.root)
    assert done.returncode == 0, done.stderr
    assert "zed: graded" not in done.stdout and "mel: graded" not in done.stdout, done.stdout
    line = next(x for x in done.stdout.splitlines() if "mallory: rejected" in x)
    assert len(line) < 200 and "[2/2] mallory: graded" not in line, line
    assert all(len(x) < (400 if x.startswith("note:") else 200) for x in done.stdout.splitlines()), done.stdout
    report = run_cli("report", "--db", db, cwd=mini.root)
    shown = [x for x in report.stdout.splitlines() if "mallory" in x or "eve" in x]
    assert len(shown) >= 2 and all(len(x) < 200 for x in report.stdout.splitlines()), shown


def test_a_terminal_that_is_not_utf8_gets_escapes_not_a_stopped_batch(mini: Course, tmp_path: Path) -> None:
    """Red team round 31 (not tried there: no such locale): `batch` printed ids with a bare print, which raises on a
    Cyrillic id where the terminal's encoding is Latin-1, and the batch would stop at that learner's line."""
    subs, db = tmp_path / "subs", str(tmp_path / "gb.sqlite")
    folder(subs, "\u0430lice", student(GOOD))  # a Cyrillic a
    folder(subs, "bob", student(GOOD))
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(subs), "--db", db, "--unsandboxed"],
                          cwd=mini.root, env={**os.environ, "PYTHONIOENCODING": "latin-1"}, capture_output=True)
    out, err = done.stdout.decode("latin-1"), done.stderr.decode("latin-1")
    assert done.returncode == 0 and "Traceback" not in err, err
    assert "] \\u0430lice: graded" in out and "] bob: graded" in out, out  # (in the order they finish)


def test_a_batch_says_which_names_entries_share_and_which_earlier_rows_they_leave(mini: Course,
                                                                                   tmp_path: Path) -> None:
    """Red team round 24: where two entries share a name, neither keeps it, so the LMS import has no score under the
    plain name, and a row of that name from an earlier batch stays as it was: the batch said neither."""
    subs, db = tmp_path / "subs", str(tmp_path / "gb.sqlite")
    folder(subs, "alice", student(GOOD))
    make_zip(subs / "Kate.zip", [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    first = run_cli("batch", str(subs), "--db", db, "--unsandboxed", cwd=mini.root)
    assert first.returncode == 0 and "share the name" not in first.stdout, first.stdout + first.stderr
    folder(subs, "\u212aate", student(GOOD))  # the Kelvin sign: `Kate` once made printable
    again = run_cli("batch", str(subs), "--db", db, "--unsandboxed", cwd=mini.root)
    assert again.returncode == 0, again.stderr
    assert "note: Kate.zip, \\u212aate share the name Kate, so no row has that name and an LMS import has no score " \
           "under it: rename the entries" in " ".join(again.stdout.split()), again.stdout
    assert "the gradebook's row Kate, from an earlier batch, is not regraded now" in again.stdout
    assert "alice" not in again.stdout.split("note:", 1)[1]  # names alone are not listed
    # red team round 27: a folder `Kate.ZIP` shares `Kate` as a zip does, and a lone folder `carol.zip` is `carol`
    folder(subs, "Kate.ZIP", student(GOOD))
    folder(subs, "carol.zip", student(GOOD))
    third = run_cli("batch", str(subs), "--db", db, "--unsandboxed", cwd=mini.root)
    said = " ".join(third.stdout.split())
    assert "note: Kate.ZIP, Kate.zip, \\u212aate share the name Kate" in said, said
    assert "carol" not in said.split("note:", 1)[1], said
    (subs / "bob").write_text("not a submission")  # round 26: a stray file takes the name too
    make_zip(subs / "bob.zip", [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    fourth = " ".join(run_cli("batch", str(subs), "--db", db, "--unsandboxed", cwd=mini.root).stdout.split())
    assert "note: bob, bob.zip share the name bob" in fourth, fourth


def test_a_name_cannot_look_like_another_through_characters_shown_as_nothing() -> None:
    """Red team round 26: a combining grapheme joiner or a Hangul filler (not format characters) made `alice\u034f`
    and `alic\u115fe` rows that look like alice's on the screen; an emoji's variation selector in output stays."""
    from grader.run.safetext import safe_text

    assert intake.printable("alice\u034f") == "alice\\u034f" and intake.printable("alic\u115fe") == "alic\\u115fe"
    assert intake.printable("x\ufe0f\U000e0100") == "x\\ufe0f\\U000e0100"
    assert intake.printable("caf\u00e9") == "caf\u00e9"
    assert safe_text("ok \u2764\ufe0f") == "ok \u2764\ufe0f"


def test_names_reach_no_output_raw(mini: Course, tmp_path: Path) -> None:
    """Red team round 8: a skipped entry's name and a learner graded alone reached the terminal as they were (escape
    sequences that rewrite the grader's own lines; a name that is not UTF-8 stopped the batch), and bidi overrides
    were left in every name."""
    subs = tmp_path / "subs"
    folder(subs, "alice", student(GOOD))
    (subs / "m\x1b[2A\x1b[2K\r[2∕2] bob: graded.rar").write_text("x")
    folder(subs, "x\u202essap", student(GOOD))
    folder(subs, "alice\u200b", student(GOOD))  # red team round 9: a zero-width space made a second "alice"
    raw = os.fsdecode(os.fsencode(str(subs)) + b"/mal\xfflory")
    shutil.copytree(subs / "alice", raw)
    eve = subs / "eve\x1b[2K\x1b[1A"
    shutil.copytree(subs / "alice", eve)
    db = str(tmp_path / "gb.sqlite")
    runs = [run_cli("batch", str(subs), "--db", db, "--unsandboxed", cwd=mini.root)]
    runs += [run_cli("batch", path, "--db", str(tmp_path / f"one{i}.sqlite"), "--unsandboxed", cwd=mini.root)
             for i, path in enumerate([raw, str(eve)])]
    for done in runs:
        assert done.returncode == 0, done.stderr
        shown = done.stdout + done.stderr
        assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown, shown
    assert "m\\x1b[2A\\x1b[2K\\x0d[2∕2] bob: graded.rar" in runs[0].stdout and "x\\u202essap" in runs[0].stdout
    assert "alice\\u200b" in runs[0].stdout and "\u200b" not in runs[0].stdout
    assert "mal\\xfflory: graded" in runs[1].stdout and "eve\\x1b[2K\\x1b[1A: graded" in runs[2].stdout
    with Gradebook(tmp_path / "one0.sqlite", mini.title) as book:
        assert [r.id for r in book.rows()] == ["mal\\xfflory"]


def test_a_folder_that_is_not_the_cohort_s_cannot_replace_its_rows(mini: Course, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team round 8: the cohort batched by a relative path (kept as typed), or mallory's resubmission downloaded
    to another folder: her folder, read as a folder of submissions, replaced bob's row again."""
    subs = tmp_path / "subs"
    folder(subs, "alice", student(GOOD))
    folder(subs, "bob", student(GOOD))
    folder(subs, "mallory", student(GOOD))
    download = tmp_path / "downloads"
    folder(download / "mallory", "work", student(GOOD))
    folder(download / "mallory" / "bob" / "x", "y", student({"double": "def run_double(x):\n    return 0 * x\n"}))
    monkeypatch.chdir(tmp_path)
    with Gradebook(tmp_path / "gb.sqlite", mini.title) as book:
        assert batch.run(mini, Path("subs"), book, batch.BatchOptions(unsandboxed=True)).graded == 3
        assert book.setting("submissions") == str(subs.resolve())  # not "subs": later commands run elsewhere
        monkeypatch.chdir(mini.root)
        assert regrade.plan(mini, subs / "mallory", book).single  # the cohort's own entry: that learner
        with pytest.raises(UsageError, match=r"already have rows from the cohort .* \(bob\)|\(bob\) already have"):
            regrade.plan(mini, download / "mallory", book)
        bob = {r.id: r.points for r in book.rows()}["bob"]
        assert {r.id: r.points for r in book.rows()}["bob"] == bob
        # the instructor's own word makes a moved folder the cohort
        moved = tmp_path / "moved"
        shutil.copytree(subs, moved)
        with pytest.raises(UsageError, match="--force"):
            regrade.plan(mini, moved, book)
        assert len(regrade.plan(mini, moved, book, force=True).todo) == 3


def test_a_submission_s_digest_reads_only_what_intake_could_take(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team round 8: a 20 GB sparse file in a learner's .venv/ was hashed whole, in the batch's own process,
    before anyone was graded. The digest reads the Python sources intake could take; other files count by size and
    time; skipped folders not at all."""
    from grader.instructor import contents

    sub = folder(tmp_path, "alice", student(GOOD))
    (sub / ".venv").mkdir()
    with open(sub / ".venv" / "huge", "wb") as f:
        f.truncate(20 << 30)
    with open(sub / "data.bin", "wb") as f:
        f.truncate(200 << 20)
    opened: list[str] = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: (opened.append(str(path)), real_open(path, *a, **k))[1])
    one = contents.digest(submissions.Submission("alice", sub))
    assert opened and all(p.endswith(".py") for p in opened), opened
    (sub / "student" / "double.py").write_text(GOOD["double"] + "\n# changed\n")
    two = contents.digest(submissions.Submission("alice", sub))
    with open(sub / "data.bin", "ab") as f:
        f.write(b"x")
    three = contents.digest(submissions.Submission("alice", sub))
    with open(sub / ".venv" / "huge", "ab") as f:
        f.write(b"x")
    assert len({one, two, three}) == 3 and contents.digest(submissions.Submission("alice", sub)) == three


def test_a_helper_whose_escaped_name_is_too_long_is_graded_under_a_cut_one(mini: Course, tmp_path: Path) -> None:
    """Red team round 9: a helper named with 84 bidi controls (255 bytes) became 507 once made printable: the file
    system refused it and the row was a grader error."""
    subs = tmp_path / "subs"
    folder(subs, "alice", student(GOOD))
    folder(subs, "mallory", student({**GOOD, "\u202e" * 84: "X = 1\n"}))
    make_zip(subs / "zed.zip", [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()] +
             [("student/" + "\x01" * 252 + ".py", b"X = 1\n")])
    with Gradebook(tmp_path / "gb.sqlite", mini.title) as book:
        summary = batch.run(mini, subs, book, batch.BatchOptions(unsandboxed=True))
        rows = {r.id: r for r in book.rows()}
    assert summary.graded == 3 and summary.errors == 0, {k: (r.state, r.message[:200]) for k, r in rows.items()}
    assert rows["mallory"].points == rows["alice"].points == rows["zed"].points
    names = intake.choose([PurePosixPath("student/" + "\u202e" * 84 + ".py")], DECLARED, False, "x")
    (target,) = names.values()
    assert len(target.name.encode()) <= 255 and "~" in target.name and "\\u202e" in target.name


def test_a_zip_whose_entries_carry_huge_extra_fields_is_refused_before_zipfile_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team round 9: zipfile decodes an extra field record by record, copying the rest each time: 64 KiB of
    empty records cost ~50 ms an entry, a minute of a batch worker for a 64 MB zip."""
    zpath = make_zip(tmp_path / "ok.zip", [(f"student/{k}.py", v.encode()) for k, v in GOOD.items()])
    data = bytearray(zpath.read_bytes())
    at = data.find(b"PK\x01\x02")  # the first central directory entry: give it a 64 KiB extra field
    extra = b"\x99\x99\x00\x00" * (65532 // 4)
    (name_len,) = struct.unpack_from("<H", data, at + 28)
    data[at + 30:at + 32] = struct.pack("<H", len(extra))
    data[at + 46 + name_len:at + 46 + name_len] = extra
    end = data.rfind(b"PK\x05\x06")
    (cd_size,) = struct.unpack_from("<I", data, end + 12)
    data[end + 12:end + 16] = struct.pack("<I", cd_size + len(extra))
    bad = tmp_path / "extra.zip"
    bad.write_bytes(bytes(data))
    opened = []
    monkeypatch.setattr(zipfile, "ZipFile", lambda *a, **k: opened.append(a))
    with pytest.raises(submissions.SubmissionError, match="65532 bytes of extra fields"):
        submissions.unpack(submissions.Submission("extra", bad), tmp_path / "out", declared=DECLARED)
    assert not opened
    assert intake.zip_entry_count(zpath, 1000) == len(GOOD)  # an ordinary zip passes


def test_no_refusal_names_the_grading_machine_s_folders(mini: Course, tmp_path: Path) -> None:
    """Red team round 24: refusals made while the batch plans (a folder nested too deep) were recorded unscrubbed,
    and a refusal made printable (NFC) no longer matched a decomposed folder name (macOS's): the learner's feedback
    read the instructor's absolute path."""
    subs = tmp_path / "Übungen-secret".replace("Ü", "U\u0308") / "subs"  # decomposed, as macOS stores names
    deep = folder(subs, "deep", student(GOOD)) / "nest"
    (deep / "/".join(["d"] * 40)).mkdir(parents=True)
    make_zip(subs / "dots.zip", [("../student/double.py", GOOD["double"].encode())])
    folder(subs, "alice", student(GOOD))
    with Gradebook(tmp_path / "gb.sqlite", mini.title) as book:
        summary = batch.run(mini, subs, book, batch.BatchOptions(unsandboxed=True))
        rows = {r.id: r for r in book.rows()}
    assert summary.rejected == 2 and rows["alice"].state == "graded", {k: r.message for k, r in rows.items()}
    for sid in ("deep", "dots"):
        message = rows[sid].message
        assert "secret" not in message and str(tmp_path) not in message, message
        assert message.startswith(("deep", "dots.zip")), message  # the part the learner knows
