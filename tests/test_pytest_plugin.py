"""`pytest --stage ID`: the plugin the package registers collects each case as an item with the grader's text."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def pytest_run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_each_case_is_an_item(mini_template: Path, tmp_path: Path) -> None:
    course = tmp_path / "c"
    shutil.copytree(mini_template, course)
    (course / "student" / "double.py").write_text("def run_double(x):\n    return x + 2\n")
    (course / "student" / "split.py").write_text(
        "def run_split(x):\n    n = x.shape[-1] // 2\n    return {'left': x[..., :n], 'right': x[..., n:]}\n")
    done = pytest_run(course, "--stage", "double", "--stage", "split", "-v")
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    for item in ("double::small", "double::random", "double::secret"):
        assert f"{item} FAILED" in out
    assert "split::halves PASSED" in out
    assert "Known mistake: plus_two" in out and "Adding 2 is not doubling." in out
    assert "3 failed, 1 passed" in out


@pytest.mark.slow
def test_public_only_and_a_clean_usage_error(mini_template: Path, tmp_path: Path) -> None:
    done = pytest_run(mini_template, "--stage", "double", "--public-only", "--co", "-q")
    assert "double::secret" not in done.stdout and "double::small" in done.stdout
    bad = pytest_run(mini_template, "--stage", "dubble")
    assert bad.returncode == 4 and "no stage 'dubble'" in bad.stderr and "Did you mean 'double'" in bad.stderr


@pytest.mark.slow  # pytest in a subprocess; this session loads the plugin without --stage too
def test_without_stage_nothing_is_added(mini_template: Path) -> None:
    done = pytest_run(mini_template, "--co", "-q")
    assert done.returncode == 5  # no tests collected: the plugin stays out of the way
