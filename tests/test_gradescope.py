"""The Gradescope bundle: unpacked and run the way Gradescope does, it always leaves a valid results.json."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import GRADED_FLAGS, run_cli
from test_formats import validate_gradescope

GOOD = {"double": "def run_double(x):\n    return 2 * x\n",
        "combine": "def run_combine(x, y):\n    return 2 * x + y\n",
        "split": "def run_split(x):\n    n = x.shape[-1] // 2\n    return {'left': x[..., :n], 'right': x[..., n:]}\n"}


@pytest.fixture(scope="module")
def bundle(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gs") / "autograder.zip"
    result = run_cli("gradescope", str(out), *GRADED_FLAGS, cwd=mini_template)
    assert result.returncode == 0, result.stderr
    return out


def autograder_root(bundle: Path, tmp: Path, files: dict[str, str]) -> Path:
    """/autograder as Gradescope lays it out: source/ (the unpacked zip), submission/, results/."""
    root = tmp / "autograder"
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(root / "source")
        for info in zf.infolist():  # extractall drops permissions; Gradescope keeps them
            (root / "source" / info.filename).chmod((info.external_attr >> 16) & 0o777)
    for rel, text in files.items():
        (root / "submission" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "submission" / rel).write_text(text)
    (root / "submission").mkdir(exist_ok=True)
    (root / "results").mkdir()
    return root


def run_autograder(root: Path) -> dict:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run([str(root / "source" / "run_autograder")], cwd=root, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads((root / "results" / "results.json").read_text())
    validate_gradescope(data)
    return data


def test_bundle_layout(bundle: Path) -> None:
    with zipfile.ZipFile(bundle) as zf:
        names = zf.namelist()
        modes = {i.filename: (i.external_attr >> 16) for i in zf.infolist()}
    assert "setup.sh" in names and "run_autograder" in names  # at the root of the zip, per the spec
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    assert not [n for n in names if "/.grader/" in n or "__pycache__" in n]
    # references only of the stages others depend on, for `upstream: reference` (combine depends on double)
    assert [n for n in names if n.endswith("reference.py")] == ["course/stages/double/reference.py"]
    assert "course/fixtures/double/secret/x.npy" in names  # hidden cases ship in the autograder
    assert "course/grader/cli/__init__.py" in names and "course/grader/run/jail/inside.py" in names


def test_setup_script_is_valid_bash(bundle: Path, tmp_path: Path) -> None:
    root = autograder_root(bundle, tmp_path, {})
    assert subprocess.run(["bash", "-n", str(root / "source" / "setup.sh")]).returncode == 0
    assert "requirements.txt" in (root / "source" / "setup.sh").read_text()
    assert "numpy" in (root / "source" / "course" / "requirements.txt").read_text()


def test_correct_submission_scores_full_marks(bundle: Path, tmp_path: Path) -> None:
    data = run_autograder(autograder_root(bundle, tmp_path, {f"student/{k}.py": v for k, v in GOOD.items()}))
    assert data["score"] == 7.0 and sum(t["max_score"] for t in data["tests"]) == pytest.approx(7.0)
    assert {t["status"] for t in data["tests"]} == {"passed"}
    assert "double: hidden 1" in [t["name"] for t in data["tests"]]  # the hidden case 'secret', by its number
    assert "secret" not in json.dumps(data)  # its id is the course author's, never shown to a learner


@pytest.mark.slow  # a second autograder run; hidden feedback: test_formats.py
def test_files_uploaded_without_a_folder_and_hidden_feedback(bundle: Path, tmp_path: Path) -> None:
    files = {f"{k}.py": v for k, v in GOOD.items()}
    files["double.py"] = "def run_double(x):\n    print('x is', x.tolist())\n    return x * x\n"
    data = run_autograder(autograder_root(bundle, tmp_path, files))
    tests = {t["name"]: t for t in data["tests"]}
    secret = tests["double: hidden 1"]
    assert secret["status"] == "failed" and "Known mistake: square" in secret["output"]
    assert "x is" not in secret["output"] and "[" not in secret["output"]  # no hidden inputs or values
    assert "x is" in tests["double: small"]["output"]  # a public case shows what the code printed
    assert data["score"] == 3.0


@pytest.mark.slow  # a third autograder run
def test_unusable_submission_still_gets_results(bundle: Path, tmp_path: Path) -> None:
    data = run_autograder(autograder_root(bundle, tmp_path, {"notes.txt": "no code"}))
    assert data["score"] == 0.0 and data["tests"] == [] and "could not be graded" in data["output"]


def test_results_written_even_when_python_cannot_start(bundle: Path, tmp_path: Path) -> None:
    root = autograder_root(bundle, tmp_path, {})
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": str(tmp_path / "no-python")}
    subprocess.run([str(root / "source" / "run_autograder")], cwd=root, env=env, capture_output=True, timeout=60)
    data = json.loads((root / "results" / "results.json").read_text())
    validate_gradescope(data)
    assert data["score"] == 0.0 and "could not start" in data["output"]


def test_bundle_name_must_be_a_zip(mini_template: Path, tmp_path: Path) -> None:
    result = run_cli("gradescope", str(tmp_path / "bundle.tar"), cwd=mini_template)
    assert result.returncode == 2 and ".zip" in result.stderr
