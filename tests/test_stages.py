"""The conv1d, mlp and checkpoint stages as a learner meets them: upstream notes, --isolate, and --checkpoint PATH.

Learner code is written into a temporary student/ folder (never the committed stubs) and graded by the real
grader; the CLI tests run `python -m grader` in a subprocess on a throwaway course folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import save_file

from grader import fixtures
from grader.course import Course, load_course
from grader.errors import UsageError
from grader.judge import external, grade
from grader.results import StageResult

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "fixtures" / "checkpoint" / "artifacts"

GELU = """
import math
import numpy as np

def run_gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
"""
GELU_RELU = """
import numpy as np

def run_gelu(x):
    return np.maximum(x, 0)
"""
CONV1D = """
def run_conv1d(x, weight, bias):
    return x @ weight + bias
"""
MLP = """
from student.conv1d import run_conv1d
from student.gelu import run_gelu

def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return run_conv1d(run_gelu(run_conv1d(x, c_fc_weight, c_fc_bias)), c_proj_weight, c_proj_bias)
"""
MLP_NO_C_PROJ_BIAS = """
from student.conv1d import run_conv1d
from student.gelu import run_gelu

def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    return run_gelu(run_conv1d(x, c_fc_weight, c_fc_bias)) @ c_proj_weight
"""
CHECKPOINT = """
from safetensors import safe_open
from student.mlp import run_mlp

def run_load_mlp_weights(checkpoint, layer):
    with safe_open(checkpoint, framework="numpy") as f:
        prefix = "transformer." if "transformer.wte.weight" in f.keys() else ""
        return {k: f.get_tensor(f"{prefix}h.{layer}.mlp.{k}")
                for k in ("c_fc.weight", "c_fc.bias", "c_proj.weight", "c_proj.bias")}

def run_checkpoint_mlp(checkpoint, layer, x):
    w = run_load_mlp_weights(checkpoint, layer)
    return run_mlp(x, w["c_fc.weight"], w["c_fc.bias"], w["c_proj.weight"], w["c_proj.bias"])
"""
CHECKPOINT_BLOCK_0 = CHECKPOINT.replace('h.{layer}.mlp', 'h.0.mlp')
CHECKPOINT_BY_HAND = """
import json, struct
import numpy as np
from student.mlp import run_mlp

def run_load_mlp_weights(checkpoint, layer):
    with open(checkpoint, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    prefix = "transformer." if "transformer.wte.weight" in header else ""
    out = {}
    for key in ("c_fc.weight", "c_fc.bias", "c_proj.weight", "c_proj.bias"):
        meta = header[f"{prefix}h.{layer}.mlp.{key}"]
        begin, end = meta["data_offsets"]
        out[key] = np.frombuffer(data[begin:end], dtype="<f4").reshape(meta["shape"]).copy()
    return out

def run_checkpoint_mlp(checkpoint, layer, x):
    w = run_load_mlp_weights(checkpoint, layer)
    return run_mlp(x, w["c_fc.weight"], w["c_fc.bias"], w["c_proj.weight"], w["c_proj.bias"])
"""


@pytest.fixture(scope="module")
def course() -> Course:
    return load_course(ROOT)


def learner(tmp_path: Path, **files: str) -> Path:
    """A student/ folder holding the given files (stage id -> source); returns its root."""
    (tmp_path / "student").mkdir(parents=True, exist_ok=True)
    (tmp_path / "student" / "__init__.py").write_text("")
    for stage_id, source in files.items():
        (tmp_path / "student" / f"{stage_id}.py").write_text(source)
    return tmp_path


def run(course: Course, stage_id: str, root: Path, **options: object) -> StageResult:
    return grade.grade_stage(course, course.stage(stage_id), grade.Options(root=root, **options))  # type: ignore[arg-type]


# --- upstream notes and --isolate ----------------------------------------------------------------------------


@pytest.mark.slow
def test_mlp_names_the_failing_gelu_stage_and_isolate_clears_it(course: Course, tmp_path: Path) -> None:
    root = learner(tmp_path, gelu=GELU_RELU, conv1d=CONV1D, mlp=MLP)
    result = run(course, "mlp", root, passed={"gelu": False, "conv1d": True})
    assert not result.passed
    assert {c.diagnosis for c in result.cases} == {"relu"}  # the MLP's output is the ReLU MLP's
    assert len(result.notes) == 1
    assert "student/gelu.py (stage 'gelu')" in result.notes[0] and "--isolate" in result.notes[0]
    isolated = run(course, "mlp", root, isolate=True)
    assert isolated.passed and not isolated.notes


@pytest.mark.slow
def test_mlp_with_correct_upstream_passes_without_notes(course: Course, tmp_path: Path) -> None:
    root = learner(tmp_path, gelu=GELU, conv1d=CONV1D, mlp=MLP)
    assert run(course, "mlp", root).passed
    assert run(course, "mlp", root, isolate=True).passed


def test_checkpoint_names_the_failing_mlp_stage_and_isolate_clears_it(course: Course, tmp_path: Path) -> None:
    root = learner(tmp_path, gelu=GELU, conv1d=CONV1D, mlp=MLP_NO_C_PROJ_BIAS, checkpoint=CHECKPOINT)
    result = run(course, "checkpoint", root, passed={"gelu": True, "conv1d": True, "mlp": False})
    failing = {c.case for c in result.cases if not c.passed}
    assert failing == {c.id for c in course.stage("checkpoint").cases if c.function == "run_checkpoint_mlp"}
    assert any("student/mlp.py (stage 'mlp')" in n for n in result.notes)
    assert not any("stage 'gelu'" in n or "stage 'conv1d'" in n for n in result.notes)
    isolated = run(course, "checkpoint", root, isolate=True)  # reference mlp, gelu and conv1d stand in
    assert isolated.passed and not isolated.notes


def test_checkpoint_names_always_block_0(course: Course, tmp_path: Path) -> None:
    root = learner(tmp_path, gelu=GELU, conv1d=CONV1D, mlp=MLP, checkpoint=CHECKPOINT_BLOCK_0)
    result = run(course, "checkpoint", root)
    named = {c.case: c.diagnosis for c in result.cases if not c.passed}
    assert named and set(named.values()) == {"always_block_0", "always_block_0_mlp"}
    assert all("h.0" not in case and "block_0" not in case for case in named)  # block 0's cases still pass


def test_checkpoint_read_by_hand_passes(course: Course, tmp_path: Path) -> None:
    root = learner(tmp_path, gelu=GELU, conv1d=CONV1D, mlp=MLP, checkpoint=CHECKPOINT_BY_HAND)
    result = run(course, "checkpoint", root)
    assert result.passed, [(c.case, c.message) for c in result.cases if not c.passed]


# --- --checkpoint PATH -----------------------------------------------------------------------------------------


def write_gpt2(path: Path, n_embd: int = 64, n_layer: int = 4, prefix: str = "", masks: bool = True,
               dtype: str = "float32", transposed: bool = False, drop: str = "", seed: int = 0) -> Path:
    """A GPT-2 checkpoint in the Hugging Face layout, of any width and depth, with small variations."""
    rng = np.random.default_rng(seed)
    n, k = n_embd, 4 * n_embd
    shapes = {"wte.weight": (100, n), "wpe.weight": (32, n), "ln_f.weight": (n,), "ln_f.bias": (n,)}
    for i in range(n_layer):
        shapes.update({f"h.{i}.{name}": shape for name, shape in {
            "ln_1.weight": (n,), "ln_1.bias": (n,), "attn.c_attn.weight": (n, 3 * n), "attn.c_attn.bias": (3 * n,),
            "attn.c_proj.weight": (n, n), "attn.c_proj.bias": (n,), "ln_2.weight": (n,), "ln_2.bias": (n,),
            "mlp.c_fc.weight": (k, n) if transposed else (n, k), "mlp.c_fc.bias": (k,),
            "mlp.c_proj.weight": (n, k) if transposed else (k, n), "mlp.c_proj.bias": (n,)}.items()})
    tensors = {prefix + name: (rng.standard_normal(shape) * 0.02 * np.sqrt(768 / n)).astype(dtype)
               for name, shape in shapes.items() if name != drop}
    if masks:
        tensors.update({f"{prefix}h.{i}.attn.bias": np.tril(np.ones((1, 1, 32, 32), np.float32))
                        for i in range(n_layer)})
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata={"format": "pt"})
    return path


def test_fixture_file_as_checkpoint_gives_the_fixture_itself(course: Course) -> None:
    stage = course.stage("checkpoint")
    stored = fixtures.StageFixtures(course, stage)
    compared = []
    for name in ("model.safetensors", "published-layout.safetensors"):
        source = external.source_for(course, stage, ARTIFACTS / name)
        assert str(ARTIFACTS / name) in source.against and "n_embd 64, 4 blocks" in source.against
        assert "inputs made at width" not in source.against
        for case in stage.cases:
            mine, theirs = source.inputs(case), stored.inputs(case)
            assert mine["layer"] == theirs["layer"]
            if "x" in theirs:
                assert np.array_equal(mine["x"], theirs["x"]) and mine["x"].dtype == np.float32
            if Path(theirs["checkpoint"]).name == name:
                got, want = source.expected(case), stored.expected(case)
                assert got.keys() == want.keys()  # to float64 ulps: the BLAS kernel picks the summation order
                assert all(np.allclose(got[k], want[k], rtol=1e-12, atol=1e-14) for k in got)
                compared.append(name)
            assert source.dtype(case) == stored.dtype(case) == "float32"
    assert set(compared) == {"model.safetensors", "published-layout.safetensors"}  # each file's cases compared


@pytest.mark.slow
@pytest.mark.parametrize("prefix", ["", "transformer."])
def test_wider_checkpoint_makes_inputs_at_its_width(course: Course, tmp_path: Path, prefix: str) -> None:
    path = write_gpt2(tmp_path / "gpt2-wide" / "model.safetensors", n_embd=96, n_layer=5, prefix=prefix,
                      masks=not prefix)
    stage = course.stage("checkpoint")
    source = external.source_for(course, stage, path.parent)  # a model folder works too
    assert source.against.startswith(str(path)) and "n_embd 96, 5 blocks" in source.against
    assert "inputs made at width 96" in source.against
    mlp_cases = [case for case in stage.cases if case.function == "run_checkpoint_mlp"]
    assert mlp_cases
    for case in mlp_cases:
        assert source.inputs(case)["x"].shape[-1] == 96
        assert source.expected(case)[""].shape == source.inputs(case)["x"].shape
    root = learner(tmp_path, gelu=GELU, conv1d=CONV1D, mlp=MLP, checkpoint=CHECKPOINT)
    result = run(course, "checkpoint", root, source=source)
    assert result.passed and result.against == source.against
    wrong = run(course, "checkpoint", learner(tmp_path / "b0", gelu=GELU, conv1d=CONV1D, mlp=MLP,
                                              checkpoint=CHECKPOINT_BLOCK_0), source=source)
    assert "always_block_0" in {c.diagnosis for c in wrong.cases}


BAD = {
    "not_safetensors": ("not a safetensors file", lambda p: p.write_bytes(b"\x00" * 64) and p),
    "pytorch_bin": ("PyTorch pytorch_model.bin", lambda p: p.write_bytes(b"PK\x03\x04" + b"\x00" * 60) and p),
    "no_wte": ("not a GPT-2 checkpoint", lambda p: write_gpt2(p, drop="wte.weight")),
    "missing_tensor": ("h.2.mlp.c_proj.bias", lambda p: write_gpt2(p, drop="h.2.mlp.c_proj.bias")),
    "linear_orientation": ("nn.Linear", lambda p: write_gpt2(p, transposed=True)),
    "float16": ("F16", lambda p: write_gpt2(p, dtype="float16")),
    "too_few_blocks": ("allows layer 0 to 1", lambda p: write_gpt2(p, n_layer=2)),
    "missing": ("does not exist", lambda p: p),
    "empty_folder": ("folder without a model.safetensors", lambda p: p.mkdir() or p),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_bad_checkpoint_files_are_refused_with_the_file_and_what_to_do(course: Course, tmp_path: Path,
                                                                       kind: str) -> None:
    words, make = BAD[kind]
    path = make(tmp_path / "model.safetensors" if kind != "empty_folder" else tmp_path / "folder")
    with pytest.raises(UsageError) as e:
        external.source_for(course, course.stage("checkpoint"), path)
    message = str(e.value)
    assert words in message and str(path) in message
    assert "openai-community/gpt2" in message or "at least" in message or "float32" in message


def test_checkpoint_flag_refuses_other_stages(course: Course) -> None:
    for stage_id in ("gelu", "conv1d", "mlp"):
        with pytest.raises(UsageError, match=f"stage '{stage_id}' does not read a checkpoint.*--stage checkpoint"):
            external.source_for(course, course.stage(stage_id), ARTIFACTS / "model.safetensors")


def _course_copy(tmp_path: Path, **files: str) -> Path:
    """A course folder that shares this one's stages, common/ and fixtures (symlinks) and has its own student/."""
    dest = tmp_path / "course"
    dest.mkdir()
    (dest / "course.yaml").write_text((ROOT / "course.yaml").read_text())
    for sub in ("stages", "common", "fixtures"):
        os.symlink(ROOT / sub, dest / sub)
    learner(dest, **files)
    return dest


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "grader", "--root", str(root), *args], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.slow
def test_cli_checkpoint_grades_against_the_named_file(tmp_path: Path) -> None:
    root = _course_copy(tmp_path, gelu=GELU, conv1d=CONV1D, mlp=MLP, checkpoint=CHECKPOINT)
    path = write_gpt2(tmp_path / "real" / "model.safetensors", n_embd=128, n_layer=4)
    done = _cli(root, "--stage", "checkpoint", "--checkpoint", str(path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"graded against {path}" in done.stdout and "all 7 cases pass" in done.stdout
    as_json = _cli(root, "--stage", "checkpoint", "--checkpoint", str(path), "--format", "json")
    assert str(path) in json.dumps(json.loads(as_json.stdout))


def test_cli_checkpoint_bad_file_is_a_usage_error(tmp_path: Path) -> None:
    root = _course_copy(tmp_path, gelu=GELU, conv1d=CONV1D, mlp=MLP, checkpoint=CHECKPOINT)
    bad = tmp_path / "weights.bin"
    bad.write_bytes(b"PK\x03\x04 not weights")
    done = _cli(root, "--stage", "checkpoint", "--checkpoint", str(bad))
    assert done.returncode == 2 and done.stdout == ""
    assert f"error: --checkpoint {bad}: not a safetensors file" in done.stderr
    other = _cli(root, "--stage", "mlp", "--checkpoint", str(ARTIFACTS / "model.safetensors"))
    assert other.returncode == 2 and "does not read a checkpoint" in other.stderr


@pytest.mark.slow
def test_wrong_student_reports_name_the_mistake(tmp_path: Path) -> None:
    """The text report a learner reads names the mistake and its fix."""
    transposed = "def run_conv1d(x, weight, bias):\n    return x @ weight.T + bias\n"
    root = _course_copy(tmp_path, conv1d=transposed)
    done = _cli(root, "--stage", "conv1d")
    assert done.returncode == 1
    assert "Known mistake: transposed_weight" in done.stdout and "x @ weight + bias" in done.stdout
    assert "square_2x16x768" in done.stdout
