"""A second course on the same, unchanged grader: a tiny CNN (conv2d, maxpool) in tests/cnncourse/.

STYLE.md habit 1: the course is data, and the same loader runs a different course. Here the whole of a learner's
and an instructor's loop (check, the overview, show, hint, grading, a named mistake, the handout) runs on a course
that has nothing to do with GPT-2, and no file under grader/ names a stage of either course.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from grader.course import Course, load_course
from grader.results import Status
from tests.conftest import ROOT, copy_course, grade_source, run_cli, write_student

GRADER = ROOT / "grader"

# Written apart from the references: what a learner who got it right might write.
CONV2D = """import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def run_conv2d(x, weight, bias):
    kh, kw = weight.shape[2:]
    patches = sliding_window_view(x, (kh, kw), axis=(2, 3))  # [N, C_in, H_out, W_out, kH, kW]
    return np.einsum("nchwij,ocij->nohw", patches, weight) + bias.reshape(1, -1, 1, 1)
"""
MAXPOOL = """import numpy as np


def run_maxpool(x, k):
    n, c, h, w = x.shape
    out = np.empty((n, c, h // k, w // k), dtype=x.dtype)
    for i in range(h // k):
        for j in range(w // k):
            out[:, :, i, j] = x[:, :, i * k:(i + 1) * k, j * k:(j + 1) * k].max(axis=(2, 3))
    return out
"""
# Each known mistake as a learner would make it (not the decoy's code): the grader must name it.
MISTAKES = {
    ("conv2d", "flipped_kernel"): CONV2D.replace("patches, weight)", "patches, weight[:, :, ::-1, ::-1])"),
    ("conv2d", "no_bias"): CONV2D.replace(" + bias.reshape(1, -1, 1, 1)", ""),
    ("conv2d", "weight_in_out_swapped"): CONV2D.replace('"nchwij,ocij->nohw"', '"nchwij,coij->nohw"'),
    ("maxpool", "average_pool"): MAXPOOL.replace(".max(axis=(2, 3))", ".mean(axis=(2, 3))"),
    ("maxpool", "stride_one"): """import numpy as np


def run_maxpool(x, k):
    n, c, h, w = x.shape
    out = np.empty((n, c, h - k + 1, w - k + 1), dtype=x.dtype)
    for i in range(h - k + 1):
        for j in range(w - k + 1):
            out[:, :, i, j] = x[:, :, i:i + k, j:j + k].max(axis=(2, 3))
    return out
""",
}


@pytest.fixture
def cnn(cnn_template: Path, tmp_path: Path) -> Course:
    """A fresh, writable copy of the CNN course for one test."""
    return load_course(copy_course(cnn_template, tmp_path / "cnncourse-copy"))


@pytest.mark.slow  # `check` on the mini course: test_cli.py
def test_check_passes_references_decoys_and_stubs(cnn_template: Path, tmp_path: Path) -> None:
    proc = run_cli("--root", str(cnn_template), "check", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    course = load_course(cnn_template)
    assert [s.id for s in course.stages] == ["conv2d", "maxpool"]
    for stage in course.stages:
        assert f"ok   {stage.id}: the reference passes every case" in proc.stdout
        assert f"ok   {stage.id}: the stub reports 'not started' on every case" in proc.stdout
        assert stage.decoys
        for decoy in stage.decoys:
            assert f"ok   {stage.id}: decoy '{decoy.id}' fails and is recognised" in proc.stdout, proc.stdout
    assert proc.stdout.rstrip().endswith("check passed")


@pytest.mark.slow  # two runs; the overview and stubs on the mini course: test_cli.py
def test_overview_and_stubs_are_not_started(cnn: Course) -> None:
    overview = run_cli("--root", str(cnn.root), cwd=cnn.root.parent)
    assert overview.returncode == 0, overview.stderr
    assert "Build a tiny CNN" in overview.stdout and re.search(r"1\. conv2d +not started", overview.stdout)
    assert re.search(r"2\. maxpool +not started", overview.stdout)
    assert "Next: `python -m grader show conv2d`" in overview.stdout
    graded = run_cli("--all", cwd=cnn.root)
    assert graded.returncode == 1
    assert graded.stdout.startswith("TODO  conv2d: not started") and "TODO  maxpool: not started" in graded.stdout
    assert "Traceback" not in graded.stdout + graded.stderr


def test_correct_files_pass_every_case(cnn: Course) -> None:
    write_student(cnn, "conv2d", CONV2D)
    write_student(cnn, "maxpool", MAXPOOL)
    proc = run_cli("--all", cwd=cnn.root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS  conv2d: all 5 cases pass · 6/6 points" in proc.stdout
    assert "PASS  maxpool: all 4 cases pass · 4/4 points" in proc.stdout


@pytest.mark.slow  # through the CLI; every mistake is named in-process below
def test_a_mistake_is_named_with_its_hint(cnn: Course) -> None:
    write_student(cnn, "conv2d", MISTAKES["conv2d", "flipped_kernel"])
    proc = run_cli("--stage", "conv2d", cwd=cnn.root)
    assert proc.returncode == 1
    assert "Known mistake: flipped_kernel. This is the textbook convolution" in proc.stdout
    assert "worst at [" in proc.stdout


@pytest.mark.parametrize(("stage_id", "mistake"), sorted(MISTAKES))
def test_every_mistake_a_learner_makes_is_named(cnn: Course, stage_id: str, mistake: str) -> None:
    result = grade_source(cnn, stage_id, MISTAKES[stage_id, mistake])
    failing = [c for c in result.cases if c.status is Status.FAIL]
    assert not result.passed and failing, [(c.case, c.status, c.message[:200]) for c in result.cases]
    assert {c.diagnosis for c in failing} == {mistake}, [(c.case, c.diagnosis) for c in failing]


@pytest.mark.slow  # two runs; `show` on the mini course: test_cli.py
def test_show_and_hint(cnn: Course) -> None:
    show = run_cli("show", "conv2d", cwd=cnn.root)
    assert show.returncode == 0, show.stderr
    assert show.stdout.startswith("# Conv2d, a CNN's convolution")
    assert "`run_conv2d(x, weight, bias)` in `student/conv2d.py`" in show.stdout
    assert "Tolerance: atol 0.0001, rtol 0.0001." in show.stdout and "hidden_" not in show.stdout
    hints = [run_cli("hint", "maxpool", cwd=cnn.root).stdout for _ in range(2)]
    assert "Hint 1 of 2 for maxpool: Crop x" in hints[0] and "Hint 2 of 2 for maxpool: The maximum" in hints[1]


@pytest.mark.slow  # a handout made and graded twice; test_handout.py makes one in the fast loop
def test_handout(cnn_template: Path, tmp_path: Path) -> None:
    out = tmp_path / "learners"
    made = run_cli("--root", str(cnn_template), "handout", str(out), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert not list(out.rglob("reference.py"))
    for stage_id in ("conv2d", "maxpool"):  # the mistakes ship as recordings, not as the instructor's code
        shipped = (out / "stages" / stage_id / "decoys.py").read_text()
        assert "recorded(" in shipped and "return _correlate" not in shipped and "sliding_window" not in shipped
    for stage_id, hidden in (("conv2d", "hidden_2x4x7x7_k3"), ("maxpool", "hidden_2x2x6x9_k3")):
        definition = yaml.safe_load((out / "stages" / stage_id / "stage.yaml").read_text())
        assert hidden not in [c["id"] for c in definition["cases"]] and definition["hidden_cases"] == 1
        assert not (out / "fixtures" / stage_id / hidden).exists()
    fresh = run_cli("--all", cwd=out)
    assert fresh.returncode == 1 and fresh.stdout.count("not started") >= 2, fresh.stdout
    (out / "student" / "conv2d.py").write_text(CONV2D)
    (out / "student" / "maxpool.py").write_text(MISTAKES["maxpool", "average_pool"])
    graded = run_cli("--all", cwd=out)
    assert graded.returncode == 1
    assert "PASS  conv2d" in graded.stdout and "Known mistake: average_pool" in graded.stdout  # from recordings


def _grader_files() -> dict[str, str]:
    files = {str(p.relative_to(ROOT)): p.read_text(errors="replace") for p in sorted(GRADER.rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts}
    assert "grader/cli/__init__.py" in files and any(name.startswith("grader/templates/") for name in files)
    return files


def test_no_file_in_the_grader_names_a_stage_of_this_course() -> None:
    found = [f"{name}:{n}: {line.strip()}" for name, text in _grader_files().items()
             for n, line in enumerate(text.splitlines(), 1) if re.search(r"conv2d|maxpool", line, re.I)]
    assert not found, "\n".join(found)


# GPT-2's own names: its tensors and hyperparameters. ('gelu', 'GPT-2' and 'safetensors' still appear in grader/ as
# examples, help text, a learner-visible note and the handout's requirements; see the commit that added this test.)
GPT2_NAMES = r"\b(wte|wpe|c_fc|c_proj|c_attn|ln_1|ln_2|ln_f|n_embd|n_layer|n_head|mlp|conv1d)\b|\btransformer\."


def test_no_file_in_the_grader_names_gpt2_tensors() -> None:
    found = [f"{name}:{n}: {line.strip()}" for name, text in _grader_files().items()
             for n, line in enumerate(text.splitlines(), 1) if re.search(GPT2_NAMES, line)]
    assert not found, "\n".join(found)
