"""The second red team's breaks of graded mode, each now a test that holds what SECURITY.md promises.

tests/hostile/redteam/README.md ("round 2") lists every attack tried and its verdict; the hostile submissions are in
tests/hostile/redteam/round2/. Each test failed on the code the red team attacked and passes on the fix; the batch
tests run `python -m grader batch` in the jail (or --unsandboxed on a machine that cannot jail), with honest
learners beside the hostile one, as the red team did.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import GRADED_FLAGS, ROOT, run_cli

from grader.instructor.gradebook import Gradebook
from grader.judge import loops
from grader.run import jail

WHY_NOT = jail.unavailable()
needs_jail = pytest.mark.skipif(WHY_NOT is not None, reason=f"no jail on this machine: {WHY_NOT}")

ROUND2 = ROOT / "tests" / "hostile" / "redteam" / "round2"
GOOD = {"double": "def run_double(x):\n    return 2 * x\n",
        "combine": "def run_combine(x, y):\n    return 2 * x + y\n",
        "split": "def run_split(x):\n    n = x.shape[-1] // 2\n    return {'left': x[..., :n], 'right': x[..., n:]}\n"}


def hostile(name: str, **values: object) -> tuple[str, str]:
    """(the stage module it replaces, its source with @@KEY@@ filled in) of a file in round2/."""
    text = (ROUND2 / name).read_text()
    for key, value in values.items():
        text = text.replace(f"@@{key}@@", str(value))
    return text.split("\n", 1)[0].removeprefix("# module:").strip(), text


def learner(subs: Path, name: str, files: dict[str, str]) -> Path:
    """A folder submission holding student/<module>.py for each entry."""
    for module, source in files.items():
        path = subs / name / "student" / f"{module}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
    return subs / name


def batch(course: Path, subs: Path, db: Path, *flags: str, timeout: float = 240) -> dict[str, tuple[str, float]]:
    """Run the batch (jailed where the machine can) and return id -> (state, points) from its gradebook."""
    done = run_cli("batch", str(subs), "--db", str(db), "--jobs", "2", *GRADED_FLAGS, *flags, cwd=course,
                   timeout=timeout)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    book = Gradebook(db, "Mini course for the grader's own tests")
    try:
        rows = book.rows()
        print({r.id: r.message for r in rows if r.state != "graded"})  # shown when a test fails
        return {r.id: (r.state, r.points) for r in rows}
    finally:
        book.close()


# --- 1. ReDoS in the import scanner -------------------------------------------------------------------------------

PATHOLOGICAL = {  # each took the first pattern O(n²): two runs of spaces (or dots, or names) that could trade places
    "from and spaces": "from" + " " * 200_000,
    "from, spaces, newline": "x = 1\nfrom" + " " * 200_000 + "\n",
    "from and dots": "from " + "." * 200_000 + " " * 1000,
    "from, a name, spaces": "from a" + "b" * 200_000 + " " * 200_000 + "x",
    "import and spaces": "from x import" + " " * 200_000 + "\n" + "import" + " " * 200_000,
    "many short lines": "from  \n" * 50_000,
}


@pytest.mark.parametrize("source", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_the_import_scan_is_linear_in_what_the_learner_wrote(source: str) -> None:
    started = time.monotonic()
    assert loops.imported(source) <= {"student.x"}
    assert time.monotonic() - started < 2.0  # the first pattern: about 45 s for 200,000 spaces, hours for 3 million


def test_the_import_scan_still_reads_every_import_form() -> None:
    source = ("from student import (gelu,\n    mlp)\nfrom . import conv1d as c\nfrom .softmax import run\n"
              "import student.layernorm as ln, numpy\n    from student.block import run_block\nfrom .. import up\n")
    assert loops.imported(source) == {"student.gelu", "student.conv1d", "student.softmax", "student.layernorm",
                                      "student.block", "student.up"}


@pytest.mark.slow  # a batch of two learners in the jail: about 15 s
def test_a_redos_line_in_a_learners_file_does_not_hang_the_batch(mini_template: Path, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    learner(subs, "alice", GOOD)
    module, source = hostile("redos_import.py", SPACES=" " * 3_000_000)
    learner(subs, "eve", {**GOOD, module: source})
    rows = batch(mini_template, subs, tmp_path / "book.sqlite", timeout=180)  # before: never returned
    assert rows == {"alice": ("graded", 7.0), "eve": ("graded", 7.0)}


# --- 5. A forged faulthandler stack -------------------------------------------------------------------------------

def test_a_forged_stack_line_names_no_line_and_raises_nothing(tmp_path: Path) -> None:
    from grader.run import capture

    (tmp_path / "double.py").write_text("def run_double(x):\n    while True:\n        pass\n")
    forged = 'File "/submission/student/double.py", line ' + "9" * 5000 + " in run_double\n"
    true = 'File "/submission/student/double.py", line 3 in run_double\n'
    assert capture.learner_line(forged, ["/submission/student"], str(tmp_path)) is None  # before: ValueError
    assert capture.learner_line(forged + true, ["/submission/student"], str(tmp_path)) == "student/double.py:3  pass"


@pytest.mark.slow  # a batch in the jail with a call that loops to its timeout: about 20 s
def test_a_forged_stack_is_the_learners_timeout_not_a_grader_error(mini_template: Path, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    learner(subs, "alice", GOOD)
    module, source = hostile("forged_stack.py")
    learner(subs, "mallory", {**GOOD, module: source})
    lms = tmp_path / "lms.csv"
    rows = batch(mini_template, subs, tmp_path / "book.sqlite", "--stage", "double", "--lms", str(lms))
    assert rows == {"alice": ("graded", 4.0), "mallory": ("graded", 0.0)}  # before: mallory an "error" row
    assert lms.read_text().splitlines()[1:] == ["alice,4", "mallory,0"]  # a zero is imported, not a blank


# --- 3, 4. Feedback file names: bounded, and nobody's id can take another's file -----------------------------------

HIJACK = "def run_double(x):\n    print('Your work was flagged as plagiarism: see the instructor')\n    return x\n"


def test_feedback_file_names_are_distinct_bounded_and_unchosen() -> None:
    from grader.instructor.feedback import file_names

    ids = ["alice", "_alice", "alice_", ".alice", "alice~3c1f", "Bob", "bob", "0" + "a" * 254, "é" * 200, "..", "",
           "a b", "a_b", "a\udcffb", "a\\xffb", "x" * 100, "x" * 101]
    names = file_names(ids)
    assert names["alice"] == "alice.txt" and names["x" * 100] == "x" * 100 + ".txt"
    assert len({n.casefold() for n in names.values()}) == len(ids)  # distinct, even on a case-blind file system
    assert all(len(n.encode()) <= 105 and "/" not in n and not n.startswith(".") for n in names.values())
    assert file_names(reversed(ids)) == names  # the order a cohort is listed in changes nothing
    for sid in ids:  # no id takes the file another would have alone
        assert file_names([sid, "alice"])["alice"] == "alice.txt" or sid == "alice"
    # nor moves it (red team round 20): a name that only casefolds to a plain one (the Kelvin sign's K, the long s)
    # is not plain itself, so it is no twin: kevin keeps kevin.txt, as an LMS's upload by file name expects
    assert file_names(["kevin", "\u212aevin"])["kevin"] == "kevin.txt"
    assert file_names(["kevin", "Kevin", "\u212aevin"])["kevin"] != "kevin.txt"  # a real case twin still is one


@pytest.mark.slow  # a batch of three in the jail with --feedback: about 15 s
def test_feedback_files_cannot_be_taken_or_stopped_by_a_submission_name(mini_template: Path, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    long_name = "0" + "a" * 254  # the longest name a file system takes: the temp file added ~27 bytes to it
    learner(subs, "alice", GOOD)
    learner(subs, "_alice", {"double": HIJACK})
    learner(subs, long_name, GOOD)
    out = tmp_path / "feedback"
    rows = batch(mini_template, subs, tmp_path / "book.sqlite", "--stage", "double", "--feedback", str(out))
    assert rows == {"alice": ("graded", 4.0), "_alice": ("graded", 0.0), long_name: ("graded", 4.0)}
    files = {p.name: p.read_text() for p in out.iterdir()}
    assert len(files) == 3  # before: OSError "File name too long", no file for anyone
    assert "feedback for alice\n" in files["alice.txt"] and "plagiarism" not in files["alice.txt"]  # before: _alice's
    assert sum("plagiarism" in text for text in files.values()) == 1


# --- 2. A helper file whose name is not UTF-8 ---------------------------------------------------------------------

def test_a_helper_name_that_is_not_utf8_enters_as_printable_text(tmp_path: Path) -> None:
    import os

    from grader.instructor import submissions

    sub = learner(tmp_path / "subs", "aaron", {"double": GOOD["double"]})
    with open(os.path.join(os.fsencode(sub / "student"), b"\xff\x1b.py"), "w") as f:
        f.write("X = 1\n")
    written = submissions.unpack(submissions.Submission("aaron", sub), tmp_path / "out", declared=["student/double.py"])
    assert sorted(written) == ["student/\\xff\\x1b.py", "student/double.py"]
    "".join(written).encode("utf-8")  # the gradebook, CSV and JSON can hold it: before, '\udcff' raised there


def test_a_record_the_gradebook_cannot_hold_is_that_learners_error_row(tmp_path: Path) -> None:
    from grader.instructor import batch as batches
    from grader.instructor.gradebook import Entry

    book = Gradebook(tmp_path / "book.sqlite", "course")
    bad = Entry("aaron", "d" * 64, "graded", fingerprints={"student/\udcff.py": [1, 2, 3]}, max_points=4.0)
    recorded = batches._record(book, bad)  # the last guard, should any text get past intake.printable
    assert recorded.state == "error" and "UnicodeEncodeError" in recorded.message
    assert [(r.id, r.state) for r in book.rows()] == [("aaron", "error")]
    book.close()


@pytest.mark.slow  # a batch of two in the jail: about 10 s
def test_a_non_utf8_helper_name_neither_stops_the_batch_nor_the_learner(mini_template: Path, tmp_path: Path) -> None:
    import os

    subs = tmp_path / "subs"
    learner(subs, "alice", GOOD)
    aaron = learner(subs, "aaron", GOOD)
    with open(os.path.join(os.fsencode(aaron / "student"), b"\xff.py"), "w") as f:
        f.write("X = 1\n")
    rows = batch(mini_template, subs, tmp_path / "book.sqlite")  # before: UnicodeEncodeError, the batch stopped
    assert rows == {"alice": ("graded", 7.0), "aaron": ("graded", 7.0)}


# --- 6, 7. Similarity fingerprints: bounded work, bounded storage --------------------------------------------------

def _helpers(folder: Path, count: int, body: str) -> list[str]:
    (folder / "student").mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / "student" / f"helper{i}.py").write_text(body)
    return [f"student/helper{i}.py" for i in range(count)]


def test_fingerprinting_a_huge_submission_takes_about_a_second(tmp_path: Path) -> None:
    from grader.instructor import similarity

    written = _helpers(tmp_path, 3, "X = (" + "a+" * 2_090_000 + "a)\n")  # 4 MiB each: 36 s a file before
    (tmp_path / "student" / "zz_stage.py").write_text(GOOD["double"] * 20 + "def f(a, b):\n    return a @ b.T\n")
    started = time.monotonic()
    prints = similarity.of_files(tmp_path, ["student/zz_stage.py", *written], first=["student/zz_stage.py"])
    assert time.monotonic() - started < 10.0
    assert "student/zz_stage.py" in prints  # the stage file is read first, whatever its name
    assert sum(map(len, prints.values())) <= similarity.MAX_PRINTS


def test_a_submissions_fingerprints_are_bounded_in_the_gradebook(tmp_path: Path) -> None:
    from grader.instructor import similarity
    from grader.instructor.gradebook import Entry

    numbers = "X = (" + "+".join(str(n) for n in range(700_000)) + ")\n"  # 4.6 MB of distinct numbers
    written = _helpers(tmp_path, 3, numbers)
    book = Gradebook(tmp_path / "book.sqlite", "course")
    book.record(Entry("trent", "d" * 64, "graded", fingerprints=similarity.of_files(tmp_path, written)))
    stored = book.db.execute("SELECT sum(length(hashes)) FROM fingerprints").fetchone()[0]
    assert stored <= 8 * similarity.MAX_PRINTS  # before: 36 MB for 15 such files, and every `report` read it all
    book.close()


@pytest.mark.slow  # a batch of two in the jail, one with 12 MB of helpers: about 20 s
def test_huge_helpers_cost_the_batch_and_the_report_little(mini_template: Path, tmp_path: Path) -> None:
    from grader.instructor import similarity

    subs = tmp_path / "subs"
    learner(subs, "alice", GOOD)
    _helpers(learner(subs, "trent", GOOD), 3, "X = (" + "+".join(str(n) for n in range(600_000)) + ")\n")
    db = tmp_path / "book.sqlite"
    started = time.monotonic()
    rows = batch(mini_template, subs, db)
    assert rows == {"alice": ("graded", 7.0), "trent": ("graded", 7.0)}
    assert time.monotonic() - started < 120  # before: about 30 s a helper, after the jail, and not in the row's time
    book = Gradebook(db, "Mini course for the grader's own tests")
    assert sum(map(len, book.fingerprints()["trent"].values())) <= similarity.MAX_PRINTS
    book.close()
    report = run_cli("report", "--db", str(db), cwd=mini_template)
    assert report.returncode == 0, report.stderr


# --- 16. A correct tokenizer failed in the jail: the jail lacked the course's runtime dependencies -----------------

def test_the_fallback_requirements_are_pyprojects() -> None:
    """A grader copy that is not installed (the Gradescope bundle) falls back to this list: pyproject.toml's."""
    import tomllib

    from grader.run.jail import packages

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert list(packages.FALLBACK) == project["dependencies"]


def test_the_jail_shows_every_runtime_dependency() -> None:
    from grader.run.jail import packages
    from grader.run.jail.mounts import SITE_IN_JAIL, Settings, runtime

    rt = runtime(Settings().packages)
    shown = {b.dest for b in rt.binds}
    for requirement in packages.requirements():  # numpy, safetensors, regex (the tokenizer's), pyyaml...
        module = {"pyyaml": "yaml"}.get(packages.name(requirement), packages.name(requirement))
        assert {f"{SITE_IN_JAIL}/{module}", f"{SITE_IN_JAIL}/{module}.py"} & shown, (requirement, sorted(shown))
    assert "regex" in rt.packages  # before: numpy and safetensors only
    assert not any(b.dest.endswith(("/pytest", "/torch", "/hypothesis")) for b in rt.binds)  # the test extra: not


@needs_jail
@pytest.mark.slow  # the real course's tokenizer, 20 cases in the jail: about 10 s
def test_the_reference_tokenizer_passes_in_the_jail(tmp_path: Path) -> None:
    from grader.course import load_course
    from grader.instructor import references
    from grader.judge import grade

    course = load_course(ROOT)
    stage = course.stage("tokenizer")
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "__init__.py").write_text("")
    for rel, text in references.files(course, stage).items():  # `import regex`, as learners are told to
        (tmp_path / rel).write_text(text)
    result = grade.grade_stage(course, stage, grade.Options(root=tmp_path, graded=True))
    assert result.passed, [(c.case, c.status.value, c.message[:200]) for c in result.cases if not c.passed]


@needs_jail
@pytest.mark.slow  # check of one mini stage, its fixtures rebuilt first: about 10 s
def test_check_fails_a_reference_that_imports_what_the_jail_lacks(mini_template: Path, tmp_path: Path) -> None:
    from conftest import copy_course

    root = copy_course(mini_template, tmp_path / "course")
    reference = root / "stages" / "double" / "reference.py"
    reference.write_text("import pytest  # installed here, not a runtime dependency\n" + reference.read_text())
    assert run_cli("fixtures", "build", "--stage", "double", cwd=root).returncode == 0
    done = run_cli("check", "--stage", "double", cwd=root)
    assert "ok   double: the reference passes every case (" in done.stdout  # in the grader, where pytest is
    assert "FAIL double: the reference passes every case in the jail" in done.stdout, done.stdout
    assert "No module named 'pytest'" in done.stdout and done.returncode == 1


# --- found while running these: a concurrent grader's sweep took a live grader's new staging folder ----------------

def test_a_sweep_never_takes_a_folder_its_maker_is_about_to_lock(tmp_path: Path) -> None:
    """Between making its lock file and locking it, a folder looked abandoned to any other grader's sweep.

    Seen as "the grader failed on this submission: FileNotFoundError ... 'jobs'" in one batch in about five, while
    other test suites ran on the machine; a stress run of two makers and two sweepers lost 26 live folders of 4000.
    """
    import os
    import tempfile

    from grader.run.jail import staging

    prefix = f"redteam2-sweep-{os.getpid()}x-"  # this test's own folders: nobody else's are touched
    making = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))
    (making / staging.LOCK).touch()  # made, not yet locked
    dead = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))
    (dead / staging.LOCK).touch()
    os.utime(dead / staging.LOCK, (time.time() - 2 * staging.UNLOCKED_AGE,) * 2)  # its maker died long ago
    live = staging.locked_folder(prefix)
    try:
        assert staging.sweep(prefix) == 1
        assert making.exists() and live.exists() and not dead.exists()
    finally:
        staging.remove(live)
        __import__("shutil").rmtree(making, ignore_errors=True)
