"""Tolerance calibration, per stage: correct implementations pass with >= 10x headroom, every decoy fails by >= 10x.

"Correct" is three independent ways to compute each function on the inputs a learner receives (float32): plain
numpy in float32, numpy in float64, and torch (float32, the way transformers computes it). "Headroom" is the
comparator's own figure, the largest |actual - expected| / (atol + rtol * |expected|) over a case. A decoy is run
as a learner who made that mistake would run it (on the float32 inputs), and its worst case is what counts.

`pytest -s tests/test_calibration.py` prints the margins.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grader import fixtures
from grader.course import Course, Stage, load_course, stagecode
from grader.fixtures import StageFixtures
from grader.judge import compare

pytestmark = pytest.mark.slow  # every stage, every decoy, numpy and torch: the sweep runs in the full suite

ROOT = Path(__file__).resolve().parents[1]

MLP_KEYS = ("c_fc.weight", "c_fc.bias", "c_proj.weight", "c_proj.bias")
PASS_MARGIN = 10.0  # a correct implementation uses at most 1/10 of the tolerance
FAIL_MARGIN = 10.0  # a decoy's error is at least 10x the tolerance somewhere


# --- numpy implementations, written apart from the references ---------------------------------------------------


def _gelu(x: np.ndarray) -> np.ndarray:
    c = np.asarray(math.sqrt(2 / math.pi), dtype=x.dtype)
    return 0.5 * x * (1 + np.tanh(c * (x + np.asarray(0.044715, dtype=x.dtype) * x * x * x)))


def _conv1d(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    flat = x.reshape(-1, x.shape[-1])  # [N, nx]
    return (np.einsum("ni,io->no", flat, w) + b).reshape(*x.shape[:-1], w.shape[1])


def _mlp(x: np.ndarray, c_fc_weight: np.ndarray, c_fc_bias: np.ndarray, c_proj_weight: np.ndarray,
         c_proj_bias: np.ndarray) -> np.ndarray:
    return _conv1d(_gelu(_conv1d(x, c_fc_weight, c_fc_bias)), c_proj_weight, c_proj_bias)


def _load(checkpoint: str, layer: int, dtype: Any) -> dict[str, np.ndarray]:
    """By hand, as the instructions describe: header length, JSON header, raw little-endian bytes."""
    import json
    import struct

    with open(checkpoint, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        prefix = "transformer." if "transformer.wte.weight" in header else ""
        out = {}
        for key in MLP_KEYS:
            meta = header[f"{prefix}h.{layer}.mlp.{key}"]
            begin, end = meta["data_offsets"]
            f.seek(8 + n + begin)
            out[key] = np.frombuffer(f.read(end - begin), dtype="<f4").reshape(meta["shape"]).astype(dtype)
    return out


def numpy_impls(dtype: Any) -> dict[str, dict[str, Callable[..., Any]]]:
    def cast(v: Any) -> Any:
        return v.astype(dtype) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        return lambda **kw: fn(**{k: cast(v) for k, v in kw.items()})

    def checkpoint_mlp(checkpoint: str, layer: int, x: np.ndarray) -> np.ndarray:
        w = _load(checkpoint, layer, dtype)
        return _mlp(x, w["c_fc.weight"], w["c_fc.bias"], w["c_proj.weight"], w["c_proj.bias"])

    return {
        "gelu": {"run_gelu": wrap(lambda x: _gelu(x))},
        "conv1d": {"run_conv1d": wrap(lambda x, weight, bias: _conv1d(x, weight, bias))},
        "mlp": {"run_mlp": wrap(_mlp)},
        "checkpoint": {"run_load_mlp_weights": lambda checkpoint, layer: _load(checkpoint, layer, dtype),
                       "run_checkpoint_mlp": wrap(checkpoint_mlp)},
    }


def torch_impls() -> dict[str, dict[str, Callable[..., Any]]]:
    import torch
    from safetensors.torch import safe_open

    def t(v: np.ndarray) -> Any:
        return torch.from_numpy(np.ascontiguousarray(v))

    def conv1d(x: Any, w: Any, b: Any) -> Any:  # transformers' Conv1D.forward
        out = torch.addmm(b, x.reshape(-1, x.shape[-1]), w)
        return out.reshape(*x.shape[:-1], w.shape[1])

    def mlp(x: Any, wfc: Any, bfc: Any, wproj: Any, bproj: Any) -> Any:
        return conv1d(torch.nn.functional.gelu(conv1d(x, wfc, bfc), approximate="tanh"), wproj, bproj)

    def load(checkpoint: str, layer: int) -> dict[str, Any]:
        with safe_open(checkpoint, framework="pt") as f:
            prefix = "transformer." if "transformer.wte.weight" in f.keys() else ""
            return {k: f.get_tensor(f"{prefix}h.{layer}.mlp.{k}") for k in MLP_KEYS}

    def checkpoint_mlp(checkpoint: str, layer: int, x: np.ndarray) -> Any:
        w = load(checkpoint, layer)
        return mlp(t(x), w["c_fc.weight"], w["c_fc.bias"], w["c_proj.weight"], w["c_proj.bias"]).numpy()

    return {
        "gelu": {"run_gelu": lambda x: torch.nn.functional.gelu(t(x), approximate="tanh").numpy()},
        "conv1d": {"run_conv1d": lambda x, weight, bias: conv1d(t(x), t(weight), t(bias)).numpy()},
        "mlp": {"run_mlp": lambda **kw: mlp(*(t(kw[k]) for k in ("x", "c_fc_weight", "c_fc_bias", "c_proj_weight",
                                                                    "c_proj_bias"))).numpy()},
        "checkpoint": {"run_load_mlp_weights": lambda checkpoint, layer: {k: v.numpy() for k, v in
                                                                          load(checkpoint, layer).items()},
                       "run_checkpoint_mlp": checkpoint_mlp},
    }


# --- measuring -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def course() -> Course:
    return load_course(ROOT)


def _as_outputs(stage: Stage, case: Any, value: Any) -> dict[str, np.ndarray]:
    if stage.function(case.function).returns == "dict":
        return {k: np.asarray(v) for k, v in value.items()}
    return {"": np.asarray(value)}


def headroom(course: Course, stage: Stage, fns: dict[str, Callable[..., Any]]) -> dict[str, float]:
    """Case id -> the largest share of the tolerance used (inf: wrong shape, wrong keys, or it raised)."""
    data = StageFixtures(course, stage)
    out = {}
    for case in stage.cases:
        if case.function not in fns:
            continue
        try:
            with np.errstate(all="ignore"):
                value = fns[case.function](**data.inputs(case))
        except (ValueError, KeyError, IndexError, RuntimeError):  # a shape error: the mistake cannot even run
            out[case.id] = math.inf
            continue
        actual = _as_outputs(stage, case, value)
        comps = compare.compare_outputs(actual, data.expected(case), case.tolerance)
        out[case.id] = math.inf if not all(c.problem is None for c in comps) else max(c.headroom or 0 for c in comps)
    return out


STAGES = ("gelu", "conv1d", "mlp", "checkpoint")


@pytest.mark.parametrize("stage_id", STAGES)
@pytest.mark.parametrize("impl", ["numpy_float32", "numpy_float64",
                                  pytest.param("torch", marks=pytest.mark.oracle)])
def test_correct_implementations_pass_with_10x_headroom(course: Course, stage_id: str, impl: str) -> None:
    stage = course.stage(stage_id)
    impls = {"numpy_float32": lambda: numpy_impls(np.float32), "numpy_float64": lambda: numpy_impls(np.float64),
             "torch": torch_impls}[impl]()[stage_id]
    used = headroom(course, stage, impls)
    assert set(used) == {c.id for c in stage.cases}
    worst = max(used, key=lambda k: used[k])
    print(f"\n{stage_id} {impl}: worst case {worst} uses {used[worst]:.3g} of the tolerance "
          f"(margin {1 / used[worst] if used[worst] else math.inf:.3g}x)")
    assert used[worst] * PASS_MARGIN <= 1, f"{stage_id}: {impl} uses {used[worst]:.3g} of the tolerance on {worst}"


def _decoys() -> list[Any]:
    course = load_course(ROOT)
    return [pytest.param(s.id, d.id, id=f"{s.id}-{d.id}") for s in course.stages if s.id in STAGES
            for d in s.decoys]


@pytest.mark.parametrize(("stage_id", "decoy_id"), _decoys())
def test_every_decoy_fails_by_10x(course: Course, stage_id: str, decoy_id: str) -> None:
    stage = course.stage(stage_id)
    decoy = next(d for d in stage.decoys if d.id == decoy_id)
    fn = stagecode.function(stage, "decoys.py", decoy.function)
    used = headroom(course, stage, {decoy.target: fn})
    worst = max(used, key=lambda k: used[k])
    finite = {k: v for k, v in used.items() if math.isfinite(v)}
    near = f"; where it runs with the right shape, {min(finite.values()):.3g}x to {max(finite.values()):.3g}x" \
        if finite else ""
    print(f"\n{stage_id} decoy {decoy_id}: fails by {used[worst]:.3g}x on {worst}{near}")
    assert used[worst] >= FAIL_MARGIN, f"{stage_id}: decoy {decoy_id} fails by only {used[worst]:.3g}x"


def test_inputs_are_what_a_learner_receives(course: Course) -> None:
    """The calibration runs on the fixture's float32 inputs, not on the float64 the references see."""
    stage = course.stage("mlp")
    inputs = StageFixtures(course, stage).inputs(stage.cases[0])
    assert {v.dtype for v in inputs.values()} == {np.dtype(np.float32)}
    assert fixtures.upcast(inputs["x"]).dtype == np.float64
