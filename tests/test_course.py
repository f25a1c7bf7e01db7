"""The loader: good courses become typed objects; every bad one is refused with its file, line and key."""

from __future__ import annotations

import re

import pytest

from grader.course import load_course
from grader.errors import CourseError
from tests.conftest import MINI, copy_course, run_cli


@pytest.fixture
def course_dir(tmp_path):
    return copy_course(MINI, tmp_path / "c")


def edit(path, old, new):
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def refused(course_dir, match):
    with pytest.raises(CourseError) as err:
        load_course(course_dir)
    assert re.search(match, str(err.value)), str(err.value)
    return str(err.value)


def test_the_mini_course_loads_into_typed_objects(course_dir):
    course = load_course(course_dir)
    assert [s.id for s in course.stages] == ["double", "combine", "split"]
    double = course.stage("double")
    assert double.tolerance.atol == 1e-6 and double.points == 4 and double.timeout == 3
    assert double.functions[0].params == ("x",) and double.functions[0].elementwise
    assert [c.id for c in double.cases] == ["small", "random", "secret"]
    assert double.case("secret").hidden and double.case("random").weight == 3
    assert course.stage("split").functions[0].keys == ("left", "right")
    assert course.stage("combine").depends_on == ("double",)
    assert course.upstream == "reference" and course.late.per_day == 0  # the defaults for graded runs


def test_upstream_and_late_policies_are_read_and_cached(course_dir):
    edit(course_dir / "course.yaml", "stages:", "upstream: own\nlate: {grace_minutes: 15, per_day: 0.1, "
         "max_days: 3}\nstages:")
    for _ in range(2):  # validated, then from the cache
        course = load_course(course_dir)
        assert course.upstream == "own"
        assert (course.late.grace_minutes, course.late.per_day, course.late.max_days) == (15, 0.1, 3)


STAGE = "stages/double/stage.yaml"


@pytest.mark.parametrize("file,old,new,match", [
    (STAGE, "atol: 1.0e-6", "atoll: 1.0e-6", r"stage.yaml:3: unknown key 'atoll' in tolerance\. Did you mean 'atol'"),
    (STAGE, "atol: 1.0e-6", "atol: -1.0e-6", r"stage.yaml:3: 'atol' in tolerance must be a finite number >= 0"),
    (STAGE, "atol: 1.0e-6", "atol: tiny", r"stage.yaml:3: 'atol' in tolerance must be a number, got text"),
    (STAGE, "id: random", "id: small", r"stage.yaml:\d+: duplicate case id 'small'"),
    (STAGE, "title: Double every element", "titel: Double", r"stage.yaml:2: unknown key 'titel'.*'title'"),
    (STAGE, "params: [x]", "params: [x, y]", r"case 'small': inputs must be exactly the parameters of "
                                              r"run_double\(x, y\); missing \['y'\]"),
    (STAGE, "      x: {random: normal, shape: [8, 16]", "      y: {random: normal, shape: [8, 16]",
     r"case 'random'.*missing \['x'\], unexpected \['y'\]"),
    (STAGE, "reference: double", "reference: [double]", r"'reference' in function 'run_double' must be text"),
    (STAGE, "entry: student.double:run_double", "entry: double:run_double", r"entry must look like"),
    (STAGE, "{random: normal, shape: [8, 16], seed: 7", "{random: gaussian, shape: [8, 16], seed: 7",
     r"random must be one of normal, uniform"),
    (STAGE, "shape: [8, 16]", "shape: [8, -16]", r"shape must be a list of whole numbers"),
    (STAGE, "dtype: float32}\n  - id: random", "dtype: float33}\n  - id: random", r"dtype must be one of"),
    (STAGE, "visibility: hidden", "visibility: secret", r"visibility must be 'public' or 'hidden'"),
    (STAGE, "id: double", "id: doubled", r"id 'doubled' does not match its folder"),
    (STAGE, "hint: Adding 2 is not doubling.", "hnit: Adding 2", r"unknown key 'hnit' in a decoy"),
    (STAGE, "tolerance: {atol: 1.0e-6, rtol: 0.0}\n", "tolerance: {atol: 1.0e-6, rtol: 0.0}\ntolerance: {}\n",
     r"stage.yaml:4: duplicate key 'tolerance' \(first on line 3\)"),
    (STAGE, "cases:", "cases: [\n", r"stage.yaml:\d+: not valid YAML"),
    ("course.yaml", "format_version: 1", "format_version: 2", r"course.yaml:1: format_version 2 is not supported.*"
                                                               r"upgrade the grader"),
    ("course.yaml", "  - split", "  - double", r"course.yaml:\d+: stage 'double' is listed twice"),
    ("course.yaml", "  - split", "  - splot", r"stage 'splot' has no definition: expected .*stages/splot/stage.yaml"),
    ("course.yaml", "  timeout: 3", "  timeout: 0", r"course.yaml:\d+: defaults: timeout must be a number of seconds"),
    ("course.yaml", "  timeout: 3", "  timeout: .nan", r"course.yaml:\d+: defaults: timeout must be"),
    ("course.yaml", "  memory_mb: 1024", "  memory_mb: 99999999999999", r"defaults: timeout must be .* memory_mb"),
    (STAGE, "weight: 3", "weight: .inf", r"weight must be a finite number > 0"),
    (STAGE, "seed: 7", "seed: -1", r"seed must be a whole number from 0"),
    (STAGE, "id: small", "id: ..", r"case id .\.\.. must start with"),
    (STAGE, "[[1.0, -2.0, 3.5], [0.0, 4.0, -1.0]]", "[[1.0, -2.0, 3.5], [0.0]]", r"every row the same length"),
    ("stages/combine/stage.yaml", "depends_on: [double]", "depends_on: [split]",
     r"depends_on 'split' must be a stage listed before 'combine'"),
    ("course.yaml", "stages:", "upstream: mine\nstages:", r"course.yaml:6: upstream must be 'reference' .* or 'own'"),
    ("course.yaml", "stages:", "late:\n  per_day: 10\nstages:", r"course.yaml:7: late.per_day is the share"),
    ("course.yaml", "stages:", "late:\n  grace: 5\nstages:", r"course.yaml:7: unknown key 'grace' in late.*Allowed: "
                                                              r"grace_minutes"),
    ("course.yaml", "stages:", "late:\n  max_days: -1\nstages:", r"course.yaml:7: late.max_days must be"),
])
def test_bad_definitions_are_refused_with_file_line_and_key(course_dir, file, old, new, match):
    edit(course_dir / file, old, new)
    message = refused(course_dir, match)
    assert str(course_dir / file) in message


def test_a_stage_with_no_cases_is_refused(course_dir):
    path = course_dir / "stages/split/stage.yaml"
    path.write_text(path.read_text().split("cases:")[0] + "cases: []\n")
    refused(course_dir, r"split/stage.yaml:\d+: the stage has no cases")


def test_missing_files_are_refused(course_dir):
    (course_dir / "stages/double/reference.py").unlink()
    refused(course_dir, r"missing file .*stages/double/reference.py")


def test_missing_decoys_file_is_refused(course_dir):
    (course_dir / "stages/double/decoys.py").unlink()
    refused(course_dir, r"decoys are listed but .*decoys.py is missing")


def test_generate_without_inputs_py_is_refused(course_dir):
    (course_dir / "stages/combine/inputs.py").unlink()
    refused(course_dir, r"uses 'generate' but .*inputs.py is missing")


def test_not_a_mapping_at_the_top(course_dir):
    (course_dir / "stages/double/stage.yaml").write_text("- just\n- a list\n")
    refused(course_dir, r"stage.yaml:1: stage.yaml must be a mapping of keys, got a list")


def test_binary_garbage_is_refused(course_dir):
    (course_dir / "stages/double/stage.yaml").write_bytes(b"\xff\xfe\x00garbage")
    refused(course_dir, r"stage.yaml: cannot read it")


def test_no_course_here(tmp_path):
    with pytest.raises(CourseError, match="no course here"):
        load_course(tmp_path)


def test_cli_refuses_with_exit_2_and_no_traceback(course_dir):
    edit(course_dir / STAGE, "atol: 1.0e-6", "atoll: 1.0e-6")
    proc = run_cli("--stage", "double", cwd=course_dir)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "unknown key 'atoll'" in proc.stderr
    assert proc.stderr.startswith("error: ") and "stage.yaml:3:" in proc.stderr


@pytest.mark.slow  # three CLI runs; a course the grader never saw: test_second_course.py
def test_adding_a_stage_needs_no_grader_change(course_dir):
    """A new folder and a course.yaml line are enough: the loader, fixtures and grade work on it."""
    new = course_dir / "stages" / "negate"
    new.mkdir()
    (new / "stage.yaml").write_text(
        "id: negate\ntitle: Negate\ntolerance: {atol: 0, rtol: 0}\nfunctions:\n  run_negate:\n"
        "    entry: student.negate:run_negate\n    params: [x]\n    reference: negate\ncases:\n"
        "  - id: one\n    inputs:\n      x: {values: [1, -2, 3]}\n")
    (new / "instructions.md").write_text("# Negate\n")
    (new / "reference.py").write_text("def negate(x):\n    return -x\n")
    edit(course_dir / "course.yaml", "  - split", "  - split\n  - negate")
    assert run_cli("fixtures", "build", "--stage", "negate", cwd=course_dir).returncode == 0
    assert run_cli("reset", "negate", cwd=course_dir).returncode == 0
    (course_dir / "student" / "negate.py").write_text("def run_negate(x):\n    return -x\n")
    proc = run_cli("--stage", "negate", cwd=course_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "negate: all 1 cases pass" in proc.stdout


def test_the_validated_course_is_cached_and_a_same_size_edit_invalidates_it(course_dir):
    first = load_course(course_dir)
    assert (course_dir / ".grader/cache/course.json").exists()
    assert load_course(course_dir) == first
    edit(course_dir / STAGE, "atol: 1.0e-6", "atol: 2.0e-6")  # same size, likely the same mtime tick
    assert load_course(course_dir).stage("double").tolerance.atol == 2e-6
    edit(course_dir / STAGE, "atol: 2.0e-6", "atoll: 2.0e-6")
    refused(course_dir, "unknown key 'atoll'")


def test_a_damaged_cache_is_rebuilt(course_dir):
    first = load_course(course_dir)
    (course_dir / ".grader/cache/course.json").write_text("{garbage")
    assert load_course(course_dir) == first
    assert load_course(course_dir, cache=False) == first
