"""Every reference against implementations no one here wrote: torch, and Hugging Face transformers' GPT-2.

The fixtures' expected values come from our references; these tests check them against
`torch.nn.functional.gelu(approximate="tanh")`, transformers' `NewGELUActivation`, `Conv1D`, `GPT2MLP`, and
`GPT2LMHeadModel.from_pretrained` on the fixture checkpoint (both of its files). torch and transformers are the
`test` extra; importing them takes seconds, so one module-scoped fixture does it once.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grader.course import Course, load_course, stagecode
from grader.fixtures import StageFixtures

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
MLP_KEYS = ("c_fc.weight", "c_fc.bias", "c_proj.weight", "c_proj.bias")


@pytest.fixture(scope="module")
def hf() -> Any:
    """torch and the transformers pieces, imported once."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.activations import ACT2FN
    from transformers.models.gpt2.modeling_gpt2 import GPT2MLP
    from transformers.pytorch_utils import Conv1D

    class HF:
        pass

    out = HF()
    out.torch, out.transformers, out.ACT2FN, out.GPT2MLP, out.Conv1D = torch, transformers, ACT2FN, GPT2MLP, Conv1D
    return out


@pytest.fixture(scope="module")
def course() -> Course:
    return load_course(ROOT)


def _within(actual: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> float:
    """The share of the tolerance used by the worst element (< 1 passes)."""
    assert actual.shape == expected.shape
    return float(np.max(np.abs(actual - expected) / (atol + rtol * np.abs(expected))))


def _t(hf: Any, a: np.ndarray) -> Any:
    return hf.torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64))


def test_gelu_reference_is_torch_tanh_gelu_and_transformers_gelu_new(hf: Any, course: Course) -> None:
    stage = course.stage("gelu")
    gelu_new = stagecode.reference(stage, "run_gelu")
    x = np.concatenate([np.linspace(-10, 10, 20001), [-1e4, -30.0, 30.0, 1e4]])
    mine = gelu_new(x)
    torch_tanh = hf.torch.nn.functional.gelu(_t(hf, x), approximate="tanh").numpy()
    new_gelu = hf.ACT2FN["gelu_new"](_t(hf, x)).numpy()
    assert np.max(np.abs(mine - torch_tanh)) <= 1e-12
    assert np.max(np.abs(mine - new_gelu)) <= 1e-12
    data = StageFixtures(course, stage)
    for case in stage.cases:
        got = hf.torch.nn.functional.gelu(_t(hf, data.inputs(case)["x"]), approximate="tanh").numpy()
        assert _within(got, data.expected(case)[""], case.tolerance.atol, case.tolerance.rtol) <= 1e-6, case.id


def test_conv1d_fixtures_match_transformers_conv1d(hf: Any, course: Course) -> None:
    stage = course.stage("conv1d")
    data = StageFixtures(course, stage)
    for case in stage.cases:
        inputs = data.inputs(case)
        nx, nf = inputs["weight"].shape
        layer = hf.Conv1D(nf, nx).double()
        with hf.torch.no_grad():
            layer.weight.copy_(_t(hf, inputs["weight"]))
            layer.bias.copy_(_t(hf, inputs["bias"]))
            got = layer(_t(hf, inputs["x"])).numpy()
        assert _within(got, data.expected(case)[""], case.tolerance.atol, case.tolerance.rtol) <= 1e-6, case.id


def _gpt2_mlp(hf: Any, inputs: dict[str, np.ndarray]) -> Any:
    n_embd, n_inner = inputs["c_fc_weight"].shape
    config = hf.transformers.GPT2Config(n_embd=n_embd, n_inner=n_inner, activation_function="gelu_new",
                                        resid_pdrop=0.0)
    mlp = hf.GPT2MLP(n_inner, config).double().eval()
    with hf.torch.no_grad():
        for name, param in (("c_fc_weight", mlp.c_fc.weight), ("c_fc_bias", mlp.c_fc.bias),
                            ("c_proj_weight", mlp.c_proj.weight), ("c_proj_bias", mlp.c_proj.bias)):
            param.copy_(_t(hf, inputs[name]))
    return mlp


def test_mlp_fixtures_match_transformers_gpt2mlp(hf: Any, course: Course) -> None:
    stage = course.stage("mlp")
    data = StageFixtures(course, stage)
    for case in stage.cases:
        inputs = data.inputs(case)
        with hf.torch.no_grad():
            got = _gpt2_mlp(hf, inputs)(_t(hf, inputs["x"])).numpy()
        assert _within(got, data.expected(case)[""], case.tolerance.atol, case.tolerance.rtol) <= 1e-6, case.id


@pytest.fixture(scope="module")
def models(hf: Any, course: Course, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """GPT2LMHeadModel.from_pretrained on each fixture file, in a Hugging Face model folder with config.json."""
    artifacts = ROOT / "fixtures" / "checkpoint" / "artifacts"
    out = {}
    for name in sorted(p.name for p in artifacts.glob("*.safetensors")):
        folder = tmp_path_factory.mktemp(name.split(".")[0])
        shutil.copy(artifacts / "config.json", folder / "config.json")
        shutil.copy(artifacts / name, folder / "model.safetensors")
        model, info = hf.transformers.GPT2LMHeadModel.from_pretrained(folder, output_loading_info=True,
                                                                       torch_dtype=hf.torch.float64)
        out[name] = (model.eval(), info)
    return out


def test_fixture_checkpoint_loads_completely_in_transformers(models: dict[str, Any]) -> None:
    assert set(models) == {"model.safetensors", "published-layout.safetensors"}
    for name, (model, info) in models.items():
        assert not info["missing_keys"], (name, info["missing_keys"])
        assert all(k.endswith(".attn.bias") for k in info["unexpected_keys"]), (name, info["unexpected_keys"])
        assert not info.get("mismatched_keys"), (name, info["mismatched_keys"])
        assert len(model.transformer.h) == 4


def test_fixture_checkpoint_has_save_pretrained_layout(hf: Any, models: dict[str, Any], tmp_path: Path) -> None:
    from safetensors import safe_open

    model, _ = models["model.safetensors"]
    copy.deepcopy(model).float().save_pretrained(tmp_path)
    artifacts = ROOT / "fixtures" / "checkpoint" / "artifacts"
    shapes = {}
    for path in (tmp_path / "model.safetensors", artifacts / "model.safetensors"):
        with safe_open(str(path), framework="numpy") as f:
            shapes[path] = {k: (f.get_slice(k).get_dtype(), tuple(f.get_slice(k).get_shape())) for k in f.keys()}
    saved, ours = shapes.values()
    assert saved == ours
    with safe_open(str(artifacts / "published-layout.safetensors"), framework="numpy") as f:
        published = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
    masks = {k for k in published if k.endswith(".attn.bias")}
    assert len(masks) == 4 and all(published[k] == (1, 1, 128, 128) for k in masks)
    assert {"transformer." + k for k in published if k not in masks} == set(ours)


def test_checkpoint_fixtures_match_from_pretrained(hf: Any, course: Course, models: dict[str, Any]) -> None:
    stage = course.stage("checkpoint")
    data = StageFixtures(course, stage)
    for case in stage.cases:
        inputs = data.inputs(case)
        model, _ = models[Path(inputs["checkpoint"]).name]
        block = model.transformer.h[inputs["layer"]]
        expected = data.expected(case)
        if case.function == "run_load_mlp_weights":
            got = {"c_fc.weight": block.mlp.c_fc.weight, "c_fc.bias": block.mlp.c_fc.bias,
                   "c_proj.weight": block.mlp.c_proj.weight, "c_proj.bias": block.mlp.c_proj.bias}
            for key in MLP_KEYS:
                assert np.array_equal(got[key].detach().numpy(), expected[key]), (case.id, key)
        else:
            with hf.torch.no_grad():
                out = block.mlp(_t(hf, inputs["x"])).numpy()
            assert _within(out, expected[""], case.tolerance.atol, case.tolerance.rtol) <= 1e-6, case.id
            with hf.torch.no_grad():  # and in float32, as a learner's torch code would run it: within tolerance
                out32 = copy.deepcopy(block.mlp).float()(hf.torch.from_numpy(inputs["x"])).numpy()
            assert _within(out32.astype(np.float64), expected[""], case.tolerance.atol, case.tolerance.rtol) < 0.1


def test_every_block_differs(models: dict[str, Any]) -> None:
    """Blocks must differ, or 'always block 0' could pass: the fixture's cases rely on it."""
    model, _ = models["model.safetensors"]
    weights = [b.mlp.c_fc.weight.detach().numpy() for b in model.transformer.h]
    assert all(not np.allclose(weights[0], w) for w in weights[1:])
    biases = [p.detach().numpy() for n, p in model.named_parameters() if n.endswith(".bias")]
    assert all(np.all(b != 0) for b in biases), "every bias of the fixture model is non-zero"
