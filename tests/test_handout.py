"""The learners' handout: no reference code, no hidden case, stubs not started, a solution passes, check is plain."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import ROOT, run_cli

from grader.course import Course, load_course
from grader.errors import UsageError
from grader.instructor import handout
from grader.judge import grade

SOLUTIONS = {
    "double": "def run_double(x):\n    return 2 * x\n",
    "combine": "def run_combine(x, y):\n    return 2 * x + y\n",
    "split": "def run_split(x):\n    n = x.shape[-1] // 2\n    return {'left': x[..., :n], 'right': x[..., n:]}\n",
}


@pytest.fixture(scope="module")
def built(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("handout") / "learners"
    result = run_cli("handout", str(out), cwd=mini_template)
    assert result.returncode == 0, result.stderr
    assert "1 hidden cases kept back" in result.stdout
    return out


def _all_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def test_handout_holds_no_reference_code(built: Path, mini_template: Path) -> None:
    assert not list(built.rglob("reference.py"))
    shipped = b"\n".join(p.read_bytes() for p in _all_files(built))
    checked = []
    for ref in (mini_template / "stages").glob("*/reference.py"):
        for line in ref.read_text().splitlines():
            if line.strip().startswith("return"):  # the body of each reference function
                assert line.strip().encode() not in shipped, f"{ref}: '{line.strip()}' is in the handout"
                checked.append(ref.parent.name)
    assert sorted(checked) == ["combine", "double", "split"]  # one return line per reference, each looked for
    decoys = (mini_template / "stages" / "double" / "decoys.py").read_text()
    assert "x + 2" in decoys and b"return x + 2" not in shipped


def test_handout_holds_no_hidden_case(built: Path, mini_template: Path) -> None:
    stage_yaml = yaml.safe_load((built / "stages" / "double" / "stage.yaml").read_text())
    assert [c["id"] for c in stage_yaml["cases"]] == ["small", "random"]
    assert stage_yaml["hidden_cases"] == 1
    # the hidden case's input and expected arrays (their raw bytes) appear in no file of the handout
    secret = mini_template / "fixtures" / "double" / "secret"
    arrays = [np.load(p) for p in secret.glob("*.npy")]
    assert len(arrays) == 2
    shipped = b"".join(p.read_bytes() for p in _all_files(built))
    for a in arrays:
        assert a.tobytes() not in shipped
    assert b"secret" not in (built / "fixtures" / "double" / "MANIFEST.json").read_bytes()
    assert not (built / "fixtures" / "double" / "secret").exists()


@pytest.mark.slow  # the handout graded: test_correct_solution_passes_every_public_case
def test_stubs_grade_as_not_started(built: Path, tmp_path: Path) -> None:
    result = run_cli("--all", cwd=built)
    assert result.returncode == 1
    assert result.stdout.count("not started") >= 3 and "Traceback" not in result.stdout + result.stderr


def test_correct_solution_passes_every_public_case(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "learner"
    shutil.copytree(built, copy)
    for stage, source in SOLUTIONS.items():
        (copy / "student" / f"{stage}.py").write_text(source)
    result = run_cli("--all", cwd=copy)
    assert result.returncode == 0, result.stdout
    assert "All public checks passed; 1 more are run at grading." in result.stdout
    assert "3 of 3 stages pass" in result.stdout


@pytest.mark.slow  # the handout graded: test_correct_solution_passes_every_public_case
def test_mistakes_are_still_named_from_recordings(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "learner"
    shutil.copytree(built, copy)
    (copy / "student" / "double.py").write_text("def run_double(x):\n    return x + 2\n")
    result = run_cli("--stage", "double", cwd=copy)
    assert result.returncode == 1
    assert "Known mistake: plus_two" in result.stdout


@pytest.mark.slow  # `check` on the mini course: test_cli.py
def test_check_says_which_checks_need_the_instructors_copy(built: Path) -> None:
    result = run_cli("check", cwd=built)
    assert "need the instructor's copy" in result.stdout
    assert result.returncode == 0 and "skip double: the reference passes and every decoy is named" in result.stdout
    assert "fixtures match their manifest" in result.stdout and "not started' on every case" in result.stdout
    assert "Traceback" not in result.stderr


def test_refuses_to_write_over_a_folder(mini_template: Path, tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "notes.txt").write_text("mine")
    result = run_cli("handout", str(tmp_path / "out"), cwd=mini_template)
    assert result.returncode == 2 and "not empty" in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "out" / "notes.txt").read_text() == "mine"
    with pytest.raises(UsageError, match="outside the course folder"):
        handout.build_handout(load_course(mini_template), mini_template / "handout")


@pytest.mark.slow  # three graders in subprocesses
def test_classroom_workflow_grades_each_stage(built: Path, tmp_path: Path) -> None:
    import shutil

    workflow = yaml.safe_load((built / ".github" / "workflows" / "classroom.yml").read_text())
    assert "push" in workflow["on"]
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    graders = {s["id"]: s["with"] for s in steps if s.get("uses", "").startswith(
        "classroom-resources/autograding-command-grader")}
    course = load_course(built)
    assert set(graders) == {s.id for s in course.stages}
    assert {k: v["max-score"] for k, v in graders.items()} == {s.id: s.points for s in course.stages}
    reporter = next(s for s in steps if s.get("uses", "").startswith("classroom-resources/autograding-grading"))
    assert reporter["with"]["runners"].split(",") == [s.id for s in course.stages]
    assert all(f"steps.{k}.outputs.result" in v for k, v in zip(graders, reporter["env"].values(), strict=True))
    copy = tmp_path / "learner"
    shutil.copytree(built, copy)
    (copy / "student" / "double.py").write_text(SOLUTIONS["double"])
    for stage_id, spec in graders.items():  # each stage's command, as the action would run it
        done = subprocess.run(spec["command"].replace("python", sys.executable, 1), shell=True, cwd=copy,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == (0 if stage_id == "double" else 1), done.stdout


@pytest.mark.slow
def test_real_course_handout(tmp_path: Path) -> None:
    course = load_course(ROOT)
    done = handout.build_handout(course, tmp_path / "h")
    copy = load_course(done.path)
    assert not list(done.path.rglob("reference.py"))
    # of common/, the modules learners may read (its shipped files import each), never the reference model
    assert sorted(p.stem for p in (done.path / "common").glob("*.py")) == sorted(course.common_public)
    shipped = b"\n".join(p.read_bytes() for p in done.path.rglob("*.py"))
    for name in ("gpt2", "greedy"):
        assert name not in course.common_public
        for line in (ROOT / "common" / f"{name}.py").read_text().splitlines():
            if line.strip().startswith("return") and len(line.strip()) > 20:  # not `return None`
                assert line.strip().encode() not in shipped, f"common/{name}.py: '{line.strip()}' is in the handout"
    # red team round 29: a docstring of the grader's quoted a hidden prompt, and the grader's code ships. No text
    # a stage.yaml gives a hidden case (the strings in its comments, its inline values) is in any shipped file.
    texts = b"\n".join(p.read_bytes() for p in done.path.rglob("*") if p.is_file() and p.suffix in {
        ".py", ".md", ".yaml", ".yml", ".txt", ".json", ".j2", ".toml", ".cfg"})
    for secret in _hidden_texts(course):
        assert secret.encode() not in texts, f"a hidden case's text is in the handout: {secret!r}"
    for stage, derived in zip(course.stages, copy.stages, strict=True):
        assert [c.id for c in derived.cases] == [c.id for c in stage.cases if not c.hidden]
        assert derived.hidden_count == sum(c.hidden for c in stage.cases) and derived.derived
    # the kvcache stage's check of how the generator works ships (it holds no solution), so learners get it too
    assert (done.path / "stages" / "kvcache" / "checks.py").read_bytes() == \
        (ROOT / "stages" / "kvcache" / "checks.py").read_bytes()
    assert copy.stage("kvcache").function("run_generate_cached").observe == ("student.kvcache:run_attention_cached",)
    # the drift locator works in a handout too, on the reference's values recorded at each site of the public cases
    from tests.test_drift import CORRECT

    for stage_id, source in CORRECT.items():
        if stage_id == "attention":
            source = source.replace("math.sqrt(C // n_head)", "math.sqrt(C)")
        (done.path / "student" / f"{stage_id}.py").write_text(source)
    assert not list((done.path / "stages" / "gpt2").glob("reference*"))
    result = grade.grade_stage(copy, copy.stage("gpt2"))
    drift = [n for n in result.notes if n.startswith("Drift:")]
    assert not result.passed and len(drift) == 1, result.notes
    assert "block 0 · attention" in drift[0] and "It looks like scale_sqrt_n_embd" in drift[0], drift[0]


def _hidden_texts(course: Course) -> set[str]:
    """The strings a course's stage.yaml files give their hidden cases: quoted text in the comments of each hidden
    case's lines, and each inline list of three or more input values (`values: [...]`), as YAML writes it."""
    import re

    found: set[str] = set()
    for stage in course.stages:
        hidden = {c.id for c in stage.cases if c.hidden}
        block: list[str] = []
        for line in (stage.dir / "stage.yaml").read_text().splitlines() + ["  - id: end"]:
            m = re.match(r"\s*- id:\s*(\S+)", line)
            if m:
                if block and block[0] in hidden:
                    text = "\n".join(block[1:])
                    found |= {q for q in re.findall(r'"([^"]{6,})"', " ".join(x.partition("#")[2] for x in block[1:]))}
                    found |= {v for v in re.findall(r"values:\s*\[([-0-9., ]+)\]", text) if v.count(",") >= 2}
                block = [m.group(1), line]
            elif block:
                block.append(line)
    # the check sees what it looks for: a prompt quoted in a comment (generate's hidden cases) and a list of ids
    assert any(not t[0].isdigit() for t in found) and any(t[0].isdigit() for t in found), found
    return found


LITTER = {"stages/double/reference.py~": "def double(x):\n    return 2 * x  # backup\n",
          "stages/double/.decoys.py.swp": "b0VIM swap of decoys.py",
          "stages/double/#reference.py#": "emacs autosave",
          "stages/double/solutions/solution.ipynb": '{"cells": ["return 2 * x"]}',
          "stages/double/notes.txt": "the answer is 2 * x",
          "stages/combine/reference.py.orig": "merge leftover",
          "stages/combine/__pycache__/reference.cpython-311.pyc": "bytecode"}


def test_only_the_allow_list_ships_not_backups_swap_files_or_notebooks(mini_template: Path, tmp_path: Path) -> None:
    """An author's folder holds more than the stage: editor backups, swap files, notebooks of solutions, notes."""
    from conftest import copy_course

    from grader.instructor import gradescope

    root = copy_course(mini_template, tmp_path / "course")
    for rel, text in LITTER.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    package = tmp_path / "pkg"
    handout.copy_grader(tmp_path / "copied")  # the real package: its modules and templates
    for rel, text in {"cli.py": "x = 1\n", "cli.py~": "backup", ".cli.py.swp": "swap", "templates/a.j2": "t",
                      "templates/a.j2.bak": "b", "notes.ipynb": "{}", "__pycache__/cli.cpython-311.pyc": "b"}.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text)
    handout.copy_grader(tmp_path / "fake", package)
    assert sorted(p.relative_to(tmp_path / "fake").as_posix() for p in (tmp_path / "fake").rglob("*")
                  if p.is_file()) == ["grader/cli.py", "grader/templates/a.j2"]
    assert (tmp_path / "copied" / "grader" / "run" / "jail" / "inside.py").exists()
    done = handout.build_handout(load_course(root), tmp_path / "h")
    bundle = tmp_path / "autograder.zip"
    gradescope.build_bundle(load_course(root), bundle)
    import zipfile

    with zipfile.ZipFile(bundle) as zf:
        in_bundle = [n.removeprefix("course/") for n in zf.namelist()]
    in_handout = [p.relative_to(done.path).as_posix() for p in done.path.rglob("*") if p.is_file()]
    for names in (in_handout, in_bundle):
        stage_files = sorted(n for n in names if n.startswith("stages/double/") and "/recorded/" not in n)
        # `upstream: reference` (the mini course's): the bundle ships the references of the stages others depend on
        shipped = ["stages/double/reference.py"] if names is in_bundle else []
        assert stage_files == sorted(["stages/double/decoys.py", "stages/double/instructions.md",
                                      "stages/double/stage.yaml", *shipped]), stage_files
        assert not [n for n in names if n.endswith(("~", ".swp", ".ipynb", ".orig", ".pyc", "#", "notes.txt"))]
    assert sorted(n for n in in_handout if n.startswith("stages/combine/")) == [
        "stages/combine/inputs.py", "stages/combine/instructions.md", "stages/combine/stage.yaml"]
