"""A course's common/ folder: code several stages import, loaded, digested and shipped by the grader's rules.

The mini course is given a common/ here: `maths` (reference code: double and combine's references import it) and
`ramps` (combine's input generator, listed under `common: public:`, so a handout may hold it).
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import GRADED_FLAGS, copy_course, run_cli
from test_batch import GOOD, folder, student

from grader import fixtures
from grader.course import Course, load_course, stagecode
from grader.errors import CourseError, FixtureError
from grader.instructor import batch, check, gradescope, handout, references, submissions

MATHS = '"""Reference code two stages share."""\n\n\ndef double(x):\n    return 2 * x  # the shared double\n'
RAMPS = '''import numpy as np


def ramp(rng, n, shape):
    return (np.arange(n, dtype=np.float32) + rng.uniform(0, 1, n).astype(np.float32)).reshape(shape)
'''
FILES = {
    "common/maths.py": MATHS,
    "common/ramps.py": RAMPS,
    "stages/double/reference.py": '"""double."""\n\nfrom common.maths import double\n\n__all__ = ["double"]\n',
    "stages/combine/reference.py": "from common.maths import double\n\n\ndef combine(x, y):\n"
                                   "    return double(x) + y\n",
    "stages/combine/inputs.py": "from common.ramps import ramp\n\n__all__ = ['ramp']\n",
}


def shared(src: Path, dest: Path, files: dict[str, str] | None = None) -> Course:
    """A copy of the mini course whose stages import common/, its fixtures rebuilt."""
    root = copy_course(src, dest)
    for rel, text in {**FILES, **(files or {})}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    yaml = root / "course.yaml"
    yaml.write_text(yaml.read_text().replace("stages:", "common:\n  public: [ramps]\nstages:"))
    course = load_course(root)
    for stage in course.stages:
        fixtures.build(course, stage)
    return course


@pytest.fixture(scope="module")
def template(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared(mini_template, tmp_path_factory.mktemp("shared")).root


@pytest.fixture
def course(template: Path, tmp_path: Path) -> Course:
    return load_course(copy_course(template, tmp_path / "course"))


def test_stage_files_import_common_and_the_course_checks_itself(course: Course) -> None:
    import numpy as np

    assert stagecode.reference(course.stage("combine"), "run_combine")(np.ones(2), 1.0).tolist() == [3.0, 3.0]
    assert not [n for n in sys.modules if n == "common" or n.startswith("common.")]  # only while a file loads
    assert stagecode.sources(course.stage("combine"), "reference.py")[1:] == [course.root / "common/maths.py"]
    report = check.check(course, list(course.stages))
    assert report.ok, [(x.stage, x.what, x.detail) for x in report.lines if not x.ok]
    assert ("combine", "the common modules its shipped files import are public") in [
        (x.stage, x.what) for x in report.lines]


def test_an_edited_common_module_makes_the_fixtures_stale_and_is_reloaded(course: Course) -> None:
    import numpy as np

    stage = course.stage("double")
    fixtures.StageFixtures(course, stage).verify_all()
    (course.root / "common/maths.py").write_text(MATHS.replace("2 * x", "3 * x"))
    with pytest.raises(FixtureError, match=r"reference code \(stages/double/reference.py, common/maths.py\)"):
        fixtures.StageFixtures(course, stage).verify_all()
    assert stagecode.reference(stage, "run_double")(np.ones(1)).tolist() == [3.0]
    fixtures.build(course, stage)
    fixtures.StageFixtures(course, stage).verify_all()


def test_two_courses_in_one_process_each_see_their_own(course: Course, tmp_path: Path) -> None:
    import numpy as np

    other = load_course(copy_course(course.root, tmp_path / "other"))
    (other.root / "common/maths.py").write_text(MATHS.replace("2 * x", "5 * x"))
    assert stagecode.reference(course.stage("double"), "run_double")(np.ones(1)).tolist() == [2.0]
    assert stagecode.reference(other.stage("double"), "run_double")(np.ones(1)).tolist() == [5.0]


@pytest.mark.parametrize("source, message", [
    ("def double(x):\n    from common.maths import double\n    return double(x)\n", "at the top of the file"),
    ("from common.nowhere import double\n", r"imports common.nowhere, but there is no .*common/nowhere.py"),
    ("from common import *\n", "not `\\*`"),
])
def test_common_imports_the_grader_cannot_follow_are_refused(course: Course, source: str, message: str) -> None:
    (course.stage("double").dir / "reference.py").write_text(source)
    with pytest.raises(CourseError, match=message):
        stagecode.reference(course.stage("double"), "run_double")


@pytest.mark.parametrize("public, message", [("[nowhere]", "no .*common/nowhere.py"), ("[1]", "module names")])
def test_public_lists_existing_modules(course: Course, public: str, message: str) -> None:
    yaml = course.root / "course.yaml"
    yaml.write_text(yaml.read_text().replace("public: [ramps]", f"public: {public}"))
    with pytest.raises(CourseError, match=rf"course.yaml:\d+: .*{message}"):
        load_course(course.root, cache=False)


def test_a_handout_holds_the_public_modules_its_files_import_and_no_other(course: Course, tmp_path: Path) -> None:
    done = handout.build_handout(course, tmp_path / "h")
    assert sorted(p.name for p in (done.path / "common").iterdir()) == ["ramps.py"]
    shipped = b"".join(p.read_bytes() for p in done.path.rglob("*") if p.is_file())
    assert b"the shared double" not in shipped
    assert run_cli("fixtures", "verify", cwd=done.path).returncode == 0
    (done.path / "student" / "combine.py").write_text(GOOD["combine"])
    assert run_cli("--stage", "combine", cwd=done.path).returncode == 0


def test_a_handout_refuses_a_shipped_file_that_needs_reference_code(course: Course, tmp_path: Path) -> None:
    inputs = course.stage("combine").dir / "inputs.py"
    inputs.write_text(inputs.read_text() + "from common.maths import double  # noqa\n")
    fixtures.build(course, course.stage("combine"))
    report = check.check(course, [course.stage("combine")])
    line = next(x for x in report.lines if x.what.startswith("the common modules"))
    assert not line.ok and "inputs.py needs common/maths.py" in line.detail
    with pytest.raises(CourseError, match=r"combine/inputs.py: a learner's handout .* needs common/maths.py"):
        handout.build_handout(course, tmp_path / "h")
    assert not (tmp_path / "h").exists()


def test_the_bundle_ships_the_common_modules_of_the_references_it_holds(course: Course, tmp_path: Path) -> None:
    gradescope.build_bundle(course, tmp_path / "autograder.zip")
    with zipfile.ZipFile(tmp_path / "autograder.zip") as zf:
        names = zf.namelist()
    assert "course/stages/double/reference.py" in names  # combine depends on double: `upstream: reference`
    assert sorted(n for n in names if n.startswith("course/common/")) == ["course/common/maths.py",
                                                                          "course/common/ramps.py"]


def test_a_reference_written_as_the_learners_file_reads_common_from_beside_it(course: Course, tmp_path: Path) -> None:
    files = references.files(course, course.stage("double"))
    assert sorted(files) == ["student/_course_common_maths.py", "student/double.py"]  # as a submission may hold
    assert files["student/double.py"].startswith('"""double."""\n\nimport importlib')  # after the docstring
    folder(tmp_path, "sub", {**files, "student/__init__.py": ""})
    done = subprocess.run([sys.executable, "-c", "from student.double import run_double; print(run_double(4))"],
                          cwd=tmp_path / "sub", capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "8", done.stderr


def test_graded_with_references_the_jail_gets_their_common_modules(course: Course, tmp_path: Path) -> None:
    calls_double = "from student.double import run_double\n\n\ndef run_combine(x, y):\n    return run_double(x) + y\n"
    folder(tmp_path / "subs", "upstream", student({**GOOD, "combine": calls_double,
                                                   "double": "def run_double(x):\n    return x + 2\n"}))
    sub = next(iter(submissions.discover(tmp_path / "subs")))
    entry = batch.grade_submission(course, sub, "digest", batch.BatchOptions(unsandboxed=bool(GRADED_FLAGS)))
    assert entry.report is not None
    combine = entry.report.stages[1]
    assert combine.passed, [(c.case, c.message) for c in combine.cases]
    assert combine.upstream is not None and combine.upstream.failing == ["double"]


def test_what_a_file_imports_from_common_is_kept_by_its_bytes(course: Course, monkeypatch) -> None:
    """Every grade checks the fixtures' code digest, which needs these imports: parsed once per file version."""
    combine = course.stage("combine")
    files = [combine.dir / "reference.py", combine.dir / "inputs.py"]
    first = stagecode.common_sources(course.root, files)
    assert [p.name for p in first] == ["maths.py", "ramps.py"]
    kept = course.root / ".grader" / "cache" / "imports.json"
    assert kept.exists()

    def no_parsing(source: bytes, filename: str) -> tuple[str, ...]:
        raise AssertionError(f"{filename} parsed again")

    monkeypatch.setattr(stagecode, "_scan", no_parsing)
    assert stagecode.common_sources(course.root, files) == first  # from the kept answers
    monkeypatch.undo()
    (combine.dir / "inputs.py").write_text("import numpy as np\n\n\ndef ramp(rng, n, shape):\n"
                                           "    return np.zeros(shape)  # from common.ramps, no longer\n")
    assert [p.name for p in stagecode.common_sources(course.root, files)] == ["maths.py"]  # new bytes, parsed
    kept.write_text("{not json")  # a damaged cache is read as empty
    assert [p.name for p in stagecode.common_sources(course.root, files)] == ["maths.py"]
    (combine.dir / "reference.py").write_text("def combine(x, y):\n    from common.maths import double\n"
                                              "    return double(x) + y\n")
    for _ in range(2):  # a file that does not parse the grader's way is refused every time, never kept
        with pytest.raises(CourseError, match="at the top of the file"):
            stagecode.common_sources(course.root, files)
