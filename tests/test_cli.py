"""The command line, run as a learner runs it: in a subprocess, reading stdout, stderr and the exit code."""

from __future__ import annotations

import json

import pytest

from tests.conftest import CORPUS, run_cli, write_student

CORRECT = (CORPUS / "correct.py").read_text()


def test_overview_on_a_fresh_course(mini):
    proc = run_cli(cwd=mini.root)
    assert proc.returncode == 0
    assert "1. double" in proc.stdout and "not started" in proc.stdout
    assert "Next: `python -m grader show double`" in proc.stdout


def test_stub_is_not_started_exit_1(mini):
    proc = run_cli("--stage", "double", cwd=mini.root)
    assert proc.returncode == 1
    assert proc.stdout.startswith("TODO  double: not started")
    assert "Traceback" not in proc.stdout + proc.stderr


def test_pass_exit_0_and_progress_recorded(mini):
    write_student(mini, "double", CORRECT)
    proc = run_cli("--stage", "double", cwd=mini.root)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.startswith("PASS  double: all 3 cases pass · 4/4 points")
    assert "uses 0% of the tolerance" in proc.stdout
    progress = json.loads((mini.root / ".grader/progress.json").read_text())
    assert progress["stages"]["double"]["status"] == "pass"
    assert (mini.root / ".grader/.gitignore").read_text() == "*\n"
    overview = run_cli(cwd=mini.root).stdout
    assert "double       passed" in overview and "Next: `python -m grader show combine`" in overview


def test_failure_names_the_mistake(mini):
    write_student(mini, "double", "def run_double(x):\n    return x + 2\n")
    proc = run_cli("--stage", "double", cwd=mini.root)
    assert proc.returncode == 1
    assert "Known mistake: plus_two. Adding 2 is not doubling." in proc.stdout
    assert "worst at [" in proc.stdout and "input there:" in proc.stdout


@pytest.mark.slow  # two runs; the CLI's hidden-case text is checked by the leak test below
def test_hidden_case_feedback_shows_no_values(mini):
    write_student(mini, "double", "def run_double(x):\n    return x + 2\n")
    out = run_cli("--stage", "double", cwd=mini.root).stdout
    secret = out[out.index("hidden 1"):]  # the hidden case 'secret', by its number: never its id
    secret = secret[:secret.index("\n", secret.index("\n") + 1)]
    assert "expected" not in secret and "worst" not in secret and "plus_two" in out and "secret" not in out
    data = json.loads(run_cli("--stage", "double", "--format", "json", cwd=mini.root).stdout)
    hidden = next(c for c in data["stages"][0]["cases"] if c["id"] == "hidden 1")
    assert "comparisons" not in hidden and hidden["diagnosis"] == "plus_two"


@pytest.mark.slow  # the JSON through the CLI: test_formats.py's one run writes every format
def test_json_report_fields(mini):
    write_student(mini, "double", "def run_double(x):\n    return x + 2\n")
    proc = run_cli("--stage", "double", "--format", "json", cwd=mini.root)
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    case = data["stages"][0]["cases"][0]
    for key in ("id", "status", "passed", "points", "max_abs_error", "max_rel_error", "mismatched", "diagnosis",
                "message"):
        assert key in case
    assert case["status"] == "fail" and case["mismatched"] == 6 and case["diagnosis"] == "plus_two"
    assert data["points"] == 0 and data["max_points"] == 4


@pytest.mark.slow  # --output: test_formats.py; --all: test_second_course.py and test_handout.py
def test_output_file_and_all(mini):
    write_student(mini, "double", CORRECT)
    out = mini.root / "out.json"
    proc = run_cli("--all", "--output", f"json={out}", cwd=mini.root)
    assert proc.returncode == 1  # combine and split are not started
    data = json.loads(out.read_text())
    assert [s["id"] for s in data["stages"]] == ["double", "combine", "split"]
    assert "1 of 3 stages pass" in proc.stdout


@pytest.mark.slow  # test_pass_exit_0_and_progress_recorded's stdout starts with PASS, not a colour code
def test_no_colour_unless_a_terminal(mini):
    proc = run_cli("--stage", "double", cwd=mini.root)
    assert "\033[" not in proc.stdout


def test_show_renders_the_tolerance_from_the_yaml(mini):
    proc = run_cli("show", "double", cwd=mini.root)
    assert proc.returncode == 0 and "Tolerance: atol 1e-06, rtol 0." in proc.stdout


@pytest.mark.slow  # three runs; hints counted in-process: test_watch_session.py's h key
def test_hints_one_at_a_time(mini):
    first = run_cli("hint", "double", cwd=mini.root).stdout
    second = run_cli("hint", "double", cwd=mini.root).stdout
    third = run_cli("hint", "double", cwd=mini.root).stdout
    assert "Hint 1 of 2" in first and "Hint 2 of 2" in second and "All 2 hints" in third


@pytest.mark.slow  # two runs; reset and restore in-process: test_learner.py
def test_reset_keeps_a_backup(mini):
    write_student(mini, "double", CORRECT)
    proc = run_cli("reset", "double", cwd=mini.root)
    assert proc.returncode == 0 and "your previous file is saved as .grader/backups/double-" in proc.stdout
    backups = list((mini.root / ".grader/backups").iterdir())
    assert len(backups) == 1 and backups[0].read_text() == CORRECT
    assert "NotImplementedError" in (mini.root / "student/double.py").read_text()
    again = run_cli("reset", "double", cwd=mini.root)  # the stub again: nothing to back up
    assert "saved as" not in again.stdout and len(list((mini.root / ".grader/backups").iterdir())) == 1


def test_unknown_stage_is_a_usage_error(mini):
    proc = run_cli("--stage", "doubel", cwd=mini.root)
    assert proc.returncode == 2 and "no stage 'doubel'" in proc.stderr and "Did you mean 'double'?" in proc.stderr


def test_corrupt_progress_file_is_set_aside(mini):
    (mini.root / ".grader").mkdir(exist_ok=True)
    (mini.root / ".grader/progress.json").write_text("{half a fi")
    write_student(mini, "double", CORRECT)
    proc = run_cli("--stage", "double", cwd=mini.root)
    assert proc.returncode == 0
    assert "was damaged; set aside as progress.damaged-" in proc.stderr
    assert json.loads((mini.root / ".grader/progress.json").read_text())["stages"]["double"]["status"] == "pass"


def test_check_passes_on_the_mini_course(mini):
    proc = run_cli("check", cwd=mini.root)
    assert proc.returncode == 0, proc.stdout
    assert "decoy 'plus_two' fails and is recognised" in proc.stdout and "check passed" in proc.stdout


@pytest.mark.slow  # `check` runs in the fast loop in test_check_passes_on_the_mini_course
def test_check_catches_a_decoy_that_passes(mini):
    (mini.root / "stages/double/decoys.py").write_text(
        "def plus_two(x):\n    return 2 * x\n\n\ndef square(x):\n    return x * x\n")
    proc = run_cli("check", "--stage", "double", cwd=mini.root)
    assert proc.returncode == 1 and "FAIL double: decoy 'plus_two'" in proc.stdout


def test_check_refuses_a_hidden_case_whose_expected_output_is_another_case_s_input(mini):
    """Red team round 32: the tokenizer's hidden decode was given, as its input, the ids its hidden encode must return
    (one text and its encoding); a job holds every call's inputs, so code that returned the other call's input passed
    both hidden cases with no tokenizer. `check` now says so, naming both cases, until one is given other values."""
    import numpy as np

    from grader import fixtures as fx

    secret = mini.stage("double").case("secret")
    doubled = fx.StageFixtures(mini, mini.stage("double")).expected(secret)[""]
    yaml = mini.root / "stages/double/stage.yaml"
    yaml.write_text(yaml.read_text() + f"  - id: given\n    inputs:\n      x: {{values: {doubled.tolist()}, "
                    "dtype: float32}\n")
    assert run_cli("fixtures", "build", "--stage", "double", cwd=mini.root).returncode == 0
    proc = run_cli("check", "--stage", "double", cwd=mini.root)
    assert proc.returncode == 1 and "FAIL double: no hidden case's expected output is another case's input " \
        "(secret's expected output is the input 'x' of double/given" in proc.stdout, proc.stdout
    assert np.asarray(doubled).size >= 2


def test_grading_from_a_subfolder_finds_the_course(mini):
    proc = run_cli("--stage", "double", cwd=mini.root / "student")
    assert proc.returncode == 1 and "double: not started" in proc.stdout


@pytest.mark.slow
def test_isolate_and_upstream_note(mini):
    write_student(mini, "double", "def run_double(x):\n    return x + 2\n")
    write_student(mini, "combine", "from student.double import run_double\n\n\ndef run_combine(x, y):\n"
                                   "    return run_double(x) + y\n")
    proc = run_cli("--stage", "combine", cwd=mini.root)
    assert proc.returncode == 1
    assert "Your code uses student/double.py (stage 'double'), which has not been graded yet" in proc.stdout
    run_cli("--stage", "double", cwd=mini.root)
    proc = run_cli("--stage", "combine", cwd=mini.root)
    assert "Your code uses student/double.py (stage 'double'), which does not pass yet" in proc.stdout
    isolated = run_cli("--stage", "combine", "--isolate", cwd=mini.root)
    assert isolated.returncode == 0, isolated.stdout


@pytest.mark.slow  # two runs; hidden cases' text: test_redteam.py, test_formats.py
def test_hidden_case_leaks_nothing_through_messages_or_prints(mini):
    leak = "def run_double(x):\n    print('LEAK', x.tolist())\n    raise ValueError(f'LEAK {x.tolist()}')\n"
    write_student(mini, "double", leak)
    text = run_cli("--stage", "double", cwd=mini.root).stdout
    secret = [line for line in text.splitlines() if "hidden 1" in line]
    assert secret and "LEAK" not in "".join(secret) and "hidden case" in secret[0]
    assert "LEAK [[1.0, -2.0" in text  # the public cases still show everything
    data = json.loads(run_cli("--stage", "double", "--format", "json", cwd=mini.root).stdout)
    hidden = next(c for c in data["stages"][0]["cases"] if c["id"] == "hidden 1")
    assert "LEAK" not in json.dumps(hidden) and hidden["message"] == "fail (hidden case)"  # how it failed is not shown


def test_a_mistyped_subcommand_is_named(mini):
    proc = run_cli("shwo", "double", cwd=mini.root)
    assert proc.returncode == 2 and "invalid choice: 'shwo'" in proc.stderr and "Traceback" not in proc.stderr
    assert run_cli("--stage", "double", "show", "double", cwd=mini.root).returncode == 0  # option, then command


@pytest.mark.slow  # six runs; inputs, --save-outputs, reset, restore: test_learner.py
def test_the_learners_tools_from_the_command_line(mini, tmp_path):
    write_student(mini, "double", CORRECT)
    inputs = run_cli("inputs", "double", "small", cwd=mini.root)
    assert inputs.returncode == 0 and "np.load(FIXTURES / 'small/x.npy')" in inputs.stdout
    hidden = run_cli("inputs", "double", "secret", cwd=mini.root)
    assert hidden.returncode == 2 and "is hidden" in hidden.stderr
    saved = run_cli("--stage", "double", "--save-outputs", str(tmp_path / "outs"), cwd=mini.root)
    assert "for 2 public cases" in saved.stdout and (tmp_path / "outs/double/random/yours.npy").exists()
    run_cli("reset", "double", cwd=mini.root)
    restored = run_cli("restore", "double", cwd=mini.root)
    assert restored.returncode == 0 and (mini.root / "student/double.py").read_text() == CORRECT
    assert run_cli("--watch", "--next-after", "-1", cwd=mini.root).returncode == 2


@pytest.mark.slow  # two runs; --isolate records nothing: test_learner.py, in-process
def test_an_isolated_pass_is_not_recorded(mini):
    write_student(mini, "combine", "from student.double import run_double\n\n\ndef run_combine(x, y):\n"
                                   "    return run_double(x) + y\n")
    assert run_cli("--stage", "combine", "--isolate", cwd=mini.root).returncode == 0
    assert "combine      not started" in run_cli(cwd=mini.root).stdout
