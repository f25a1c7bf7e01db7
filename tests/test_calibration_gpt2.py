"""Tolerance calibration for the stages past the checkpoint: layernorm, softmax, attention, and (prepared, not yet
in course.yaml) block and gpt2. The margins kept are test_calibration.py's: every correct float32 implementation
uses at most 1/10 of the tolerance on every case; every decoy is at least 10x out on some case. The mistakes that
come nearer are an earlier stage's (the erf GELU inside a block, a layer norm's epsilon): `INHERITED_BOUNDS`
records how near, and which stage names them.

"Correct" is independent ways to compute each function on the float32 inputs a learner receives: the stage's
own reference run in float32 (what `grader check` grades), numpy written apart (BLAS matmuls), numpy with
sequential sums (`np.einsum` without `optimize`, the least accurate way a learner writes it), numpy float64, and
torch float32 (the way transformers computes it). Margins are the comparator's own figure (`headroom`).

layernorm, softmax and attention run on their built fixtures. block and gpt2 need a case input the grader does not
read yet (a dict of named arrays from the stage's checkpoint, `params: {weights: FILE, prefix: P}`), so their
cases are read here from their stage.yaml, the weights from the safetensors files their build.py writes, and the
expected values come from their reference in float64, as a fixture build will make them.

`pytest -s tests/test_calibration_gpt2.py` prints the margins.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from grader.course import Course, Tolerance, load_course, stagecode
from grader.fixtures import StageFixtures
from grader.judge import compare

pytestmark = pytest.mark.slow  # every correct implementation and decoy on every case: about a minute

ROOT = Path(__file__).resolve().parents[1]
PASS_MARGIN = 10.0
FAIL_MARGIN = 10.0
EPS = 1e-5


# --- correct implementations, written apart from the references -------------------------------------------------


def _ln(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    m = x.mean(axis=-1, keepdims=True)
    d = x - m
    return d * (1 / np.sqrt((d * d).mean(axis=-1, keepdims=True) + EPS)) * w + b


def _ln_seq(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    n = x.shape[-1]
    m = np.einsum("...c->...", x)[..., None] / n  # einsum without optimize sums left to right
    d = x - m
    return d / np.sqrt(np.einsum("...c,...c->...", d, d)[..., None] / n + EPS) * w + b


def _softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e * (1 / e.sum(axis=axis, keepdims=True))


def _softmax_lse(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=-1, keepdims=True)
    return np.exp(x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True)))


def _attention(x: np.ndarray, wa: np.ndarray, ba: np.ndarray, wp: np.ndarray, bp: np.ndarray,
               n_head: int) -> np.ndarray:
    """Batched heads, np.where(-inf) mask, the scale folded into q (as transformers does)."""
    *lead, t, c = x.shape
    d = c // n_head
    q, k, v = np.split(x @ wa + ba, 3, axis=-1)
    q, k, v = (z.reshape(*lead, t, n_head, d).swapaxes(-2, -3) for z in (q, k, v))  # [..., H, T, D]
    s = (q * x.dtype.type(1 / math.sqrt(d))) @ k.swapaxes(-1, -2)
    s = np.where(np.tri(t, dtype=bool), s, -np.inf)
    y = (_softmax(s) @ v).swapaxes(-2, -3).reshape(*lead, t, c)
    return y @ wp + bp


def _attention_seq(x: np.ndarray, wa: np.ndarray, ba: np.ndarray, wp: np.ndarray, bp: np.ndarray,
                   n_head: int) -> np.ndarray:
    """Every product by np.einsum without optimize: sequential sums, no BLAS."""
    *lead, t, c = x.shape
    d = c // n_head
    qkv = np.einsum("...tc,cf->...tf", x, wa) + ba
    q, k, v = (z.reshape(*lead, t, n_head, d) for z in np.split(qkv, 3, axis=-1))  # [..., T, H, D]
    s = np.einsum("...qhd,...khd->...hqk", q, k) / math.sqrt(d)
    s = np.where(np.tri(t, dtype=bool), s, -np.inf)
    y = np.einsum("...hqk,...khd->...qhd", _softmax(s), v).reshape(*lead, t, c)
    return np.einsum("...tc,cf->...tf", y, wp) + bp


def _gelu(x: np.ndarray) -> np.ndarray:
    c = np.asarray(math.sqrt(2 / math.pi), dtype=x.dtype)
    return 0.5 * x * (1 + np.tanh(c * (x + np.asarray(0.044715, dtype=x.dtype) * x * x * x)))


def _block(x: np.ndarray, p: dict[str, np.ndarray], n_head: int, seq: bool = False,
           ln: Callable[..., np.ndarray] | None = None, gelu: Callable[..., np.ndarray] = _gelu) -> np.ndarray:
    ln = ln or (_ln_seq if seq else _ln)
    attn = _attention_seq if seq else _attention

    def mm(a: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.einsum("...c,cf->...f", a, w) if seq else a @ w

    x = x + attn(ln(x, p["ln_1.weight"], p["ln_1.bias"]), p["attn.c_attn.weight"], p["attn.c_attn.bias"],
                 p["attn.c_proj.weight"], p["attn.c_proj.bias"], n_head)
    h = gelu(mm(ln(x, p["ln_2.weight"], p["ln_2.bias"]), p["mlp.c_fc.weight"]) + p["mlp.c_fc.bias"])
    return x + mm(h, p["mlp.c_proj.weight"]) + p["mlp.c_proj.bias"]


def _n_layer(params: dict[str, np.ndarray]) -> int:
    return 1 + max(int(k.split(".")[1]) for k in params if k.startswith("h."))


def _gpt2(token_ids: np.ndarray, params: dict[str, np.ndarray], n_head: int, seq: bool = False,
          ln: Callable[..., np.ndarray] | None = None, gelu: Callable[..., np.ndarray] = _gelu) -> np.ndarray:
    ln = ln or (_ln_seq if seq else _ln)
    wte = params["wte.weight"]
    x = wte[token_ids] + params["wpe.weight"][np.arange(token_ids.shape[-1])]
    for i in range(_n_layer(params)):
        block = {k[len(f"h.{i}."):]: v for k, v in params.items() if k.startswith(f"h.{i}.")}
        x = _block(x, block, n_head, seq, ln, gelu)
    x = ln(x, params["ln_f.weight"], params["ln_f.bias"])
    return np.einsum("...c,vc->...v", x, wte) if seq else x @ wte.T


def _cast(dtype: Any) -> Callable[[Any], Any]:
    def cast(v: Any) -> Any:
        if isinstance(v, np.ndarray) and v.dtype.kind == "f":
            return v.astype(dtype)
        if isinstance(v, dict):
            return {k: cast(a) for k, a in v.items()}
        return v
    return cast


def numpy_impls(dtype: Any, seq: bool) -> dict[str, Callable[..., Any]]:
    """run_<stage> for every stage, in `dtype`, with BLAS matmuls or (seq) sequential sums."""
    cast = _cast(dtype)
    return {
        "layernorm": lambda x, weight, bias: (_ln_seq if seq else _ln)(*map(cast, (x, weight, bias))),
        "softmax": lambda x: (_softmax_lse if seq else _softmax)(cast(x)),
        "attention": lambda x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head: (
            _attention_seq if seq else _attention)(*map(cast, (x, c_attn_weight, c_attn_bias, c_proj_weight,
                                                               c_proj_bias)), n_head),
        "block": lambda x, params, n_head: _block(cast(x), cast(params), n_head, seq),
        "gpt2": lambda token_ids, params, n_head: _gpt2(token_ids, cast(params), n_head, seq),
    }


def torch_impls() -> dict[str, Callable[..., Any]]:
    import torch
    functional = torch.nn.functional

    def t(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: t(a) for k, a in v.items()}
        return torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v

    def ln(x: Any, w: Any, b: Any) -> Any:
        return functional.layer_norm(x, (x.shape[-1],), w, b, EPS)

    def attention(x: Any, wa: Any, ba: Any, wp: Any, bp: Any, n_head: int) -> Any:
        c = x.shape[-1]
        q, k, v = torch.addmm(ba, x.reshape(-1, c), wa).reshape(*x.shape[:-1], 3 * c).split(c, dim=-1)
        q, k, v = (z.unflatten(-1, (n_head, c // n_head)).transpose(-2, -3) for z in (q, k, v))
        y = functional.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(-2, -3).reshape(x.shape)
        return torch.addmm(bp, y.reshape(-1, c), wp).reshape(x.shape)

    def block(x: Any, p: dict[str, Any], n_head: int) -> Any:
        x = x + attention(ln(x, p["ln_1.weight"], p["ln_1.bias"]), p["attn.c_attn.weight"], p["attn.c_attn.bias"],
                          p["attn.c_proj.weight"], p["attn.c_proj.bias"], n_head)
        h = functional.gelu(ln(x, p["ln_2.weight"], p["ln_2.bias"]) @ p["mlp.c_fc.weight"] + p["mlp.c_fc.bias"],
                            approximate="tanh")
        return x + h @ p["mlp.c_proj.weight"] + p["mlp.c_proj.bias"]

    def gpt2(ids: Any, p: dict[str, Any], n_head: int) -> Any:
        x = p["wte.weight"][ids] + p["wpe.weight"][torch.arange(ids.shape[-1])]
        for i in range(_n_layer(p)):
            x = block(x, {k[len(f"h.{i}."):]: v for k, v in p.items() if k.startswith(f"h.{i}.")}, n_head)
        return ln(x, p["ln_f.weight"], p["ln_f.bias"]) @ p["wte.weight"].T

    def run(fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(**kw: Any) -> Any:
            with torch.no_grad():
                return fn(**{k: t(v) for k, v in kw.items()}).numpy()
        return call

    return {"layernorm": run(lambda x, weight, bias: ln(x, weight, bias)),
            "softmax": run(lambda x: torch.softmax(x, dim=-1)),
            "attention": run(lambda x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head: attention(
                x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head)),
            "block": run(lambda x, params, n_head: block(x, params, n_head)),
            "gpt2": run(lambda token_ids, params, n_head: gpt2(token_ids, params, n_head))}


# --- cases: the fixtures, or (block, gpt2) the stage.yaml read here --------------------------------------------


class Case:
    """One case's inputs, expected outputs and tolerance, wherever they come from."""

    def __init__(self, case_id: str, inputs: dict[str, Any], expected: np.ndarray, tolerance: Tolerance) -> None:
        self.id, self.inputs, self.expected, self.tolerance = case_id, inputs, expected, tolerance


def _module(path: Path) -> ModuleType:
    """stages/<id>/<file>.py, imported as the grader imports it (its common/ modules with it)."""
    return stagecode.load(load_course(ROOT).stage(path.parent.name), path.name)


def _upcast(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _upcast(a) for k, a in v.items()}
    return v.astype(np.float64) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v


def weights_input(path: Path, prefix: str) -> dict[str, np.ndarray]:
    """What `{weights: FILE, prefix: P}` is to give the learner: every tensor whose key starts with P, P stripped,
    the attention-mask buffers (h.N.attn.bias, h.N.attn.masked_bias) left out."""
    from safetensors.numpy import load_file

    return {k[len(prefix):]: v for k, v in load_file(str(path)).items()
            if k.startswith(prefix) and not k.endswith((".attn.bias", ".attn.masked_bias"))}


@pytest.fixture(scope="module")
def course() -> Course:
    return load_course(ROOT)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The block and gpt2 stages' checkpoints, written once by stages/gpt2/build.py."""
    dest = tmp_path_factory.mktemp("gpt2-artifacts")
    _module(ROOT / "stages" / "gpt2" / "build.py").build(dest)
    return dest


FIXTURE_STAGES = ("layernorm", "softmax", "attention")
PREPARED_STAGES = ("block", "gpt2")
_CASES: dict[str, list[Case]] = {}


def cases_of(course: Course, stage_id: str, artifacts: Path | None = None) -> list[Case]:
    if stage_id not in _CASES:
        stage = course.stage(stage_id)
        data = StageFixtures(course, stage)
        _CASES[stage_id] = [Case(c.id, data.inputs(c), data.expected(c)[""], c.tolerance) for c in stage.cases]
    return _CASES[stage_id]


def headroom(cases: list[Case], fn: Callable[..., Any]) -> dict[str, float]:
    """Case id -> the largest share of the tolerance used (inf: wrong shape, non-finite, or it raised)."""
    out = {}
    for case in cases:
        try:
            with np.errstate(all="ignore"):
                value = np.asarray(fn(**{k: (v.copy() if isinstance(v, np.ndarray) else v)
                                         for k, v in case.inputs.items()}))
        except (ValueError, KeyError, IndexError, RuntimeError):  # the mistake cannot even run on this case
            out[case.id] = math.inf
            continue
        comps = compare.compare_outputs({"": value}, {"": case.expected}, case.tolerance)
        out[case.id] = math.inf if not all(c.problem is None for c in comps) else max(c.headroom or 0 for c in comps)
    return out


def reference_f32(stage_id: str) -> Callable[..., Any]:
    """The stage's reference run on the float32 inputs, as `grader check` grades it."""
    sdir = ROOT / "stages" / stage_id
    import yaml

    (_, fn), = yaml.safe_load((sdir / "stage.yaml").read_text())["functions"].items()
    return getattr(_module(sdir / "reference.py"), fn["reference"])


IMPLS = ["reference_float32", "numpy_float32", "numpy_float32_sequential", "numpy_float64",
         pytest.param("torch_float32", marks=pytest.mark.oracle)]


def _impl(stage_id: str, impl: str) -> Callable[..., Any]:
    if impl == "reference_float32":
        return reference_f32(stage_id)
    if impl == "torch_float32":
        return torch_impls()[stage_id]
    dtype = np.float64 if impl == "numpy_float64" else np.float32
    return numpy_impls(dtype, seq=impl.endswith("sequential"))[stage_id]


def _report_pass(stage_id: str, impl: str, used: dict[str, float]) -> None:
    worst = max(used, key=lambda k: used[k])
    print(f"\n{stage_id} {impl}: worst case {worst} uses {used[worst]:.3g} of the tolerance "
          f"(margin {1 / used[worst] if used[worst] else math.inf:.3g}x)")
    assert used[worst] * PASS_MARGIN <= 1, f"{stage_id}: {impl} uses {used[worst]:.3g} of the tolerance on {worst}"


@pytest.mark.parametrize("stage_id", FIXTURE_STAGES)
@pytest.mark.parametrize("impl", IMPLS)
def test_correct_implementations_pass_with_10x_headroom(course: Course, stage_id: str, impl: str) -> None:
    used = headroom(cases_of(course, stage_id), _impl(stage_id, impl))
    assert set(used) == {c.id for c in course.stage(stage_id).cases}
    _report_pass(stage_id, impl, used)


def _report_decoy(stage_id: str, decoy_id: str, used: dict[str, float]) -> None:
    worst = max(used, key=lambda k: used[k])
    finite = {k: v for k, v in used.items() if math.isfinite(v)}
    near = f"; where it runs and is finite, {min(finite.values()):.3g}x to {max(finite.values()):.3g}x" \
        if finite else ""
    print(f"\n{stage_id} decoy {decoy_id}: fails by {used[worst]:.3g}x on {worst}{near}")
    assert used[worst] >= FAIL_MARGIN, f"{stage_id}: decoy {decoy_id} fails by only {used[worst]:.3g}x"


def _fixture_decoys() -> list[Any]:
    course = load_course(ROOT)
    return [pytest.param(s.id, d.id, id=f"{s.id}-{d.id}") for s in course.stages if s.id in FIXTURE_STAGES
            for d in s.decoys]


@pytest.mark.parametrize(("stage_id", "decoy_id"), _fixture_decoys())
def test_every_decoy_fails_by_10x(course: Course, stage_id: str, decoy_id: str) -> None:
    stage = course.stage(stage_id)
    decoy = next(d for d in stage.decoys if d.id == decoy_id)
    used = headroom(cases_of(course, stage_id), stagecode.function(stage, "decoys.py", decoy.function))
    _report_decoy(stage_id, decoy_id, used)


def test_stage_inputs_are_float32(course: Course) -> None:
    """The calibration runs on the fixture's float32 inputs (the float64 case excepted), not the float64 upcast."""
    for stage_id in FIXTURE_STAGES:
        for case in cases_of(course, stage_id):
            dtypes = {v.dtype for v in case.inputs.values() if isinstance(v, np.ndarray)}
            assert dtypes <= {np.dtype(np.float32), np.dtype(np.float64)}, (stage_id, case.id)
            assert dtypes == {np.dtype(np.float32)} or "float64" in case.id, (stage_id, case.id)


# --- block and gpt2: the cases their stage.yaml declares, made here -------------------------------------------


def _prepared_decoys() -> list[Any]:
    import yaml

    out = []
    for stage_id in PREPARED_STAGES:
        doc = yaml.safe_load((ROOT / "stages" / stage_id / "stage.yaml").read_text())
        out += [pytest.param(stage_id, d["id"], d["function"], id=f"{stage_id}-{d['id']}") for d in doc["decoys"]]
    return out


@pytest.mark.parametrize("stage_id", PREPARED_STAGES)
@pytest.mark.parametrize("impl", IMPLS)
def test_prepared_stages_correct_implementations_pass_with_10x_headroom(course: Course, artifacts: Path,
                                                                         stage_id: str, impl: str) -> None:
    used = headroom(cases_of(course, stage_id, artifacts), _impl(stage_id, impl))
    _report_pass(stage_id, impl, used)


@pytest.mark.parametrize(("stage_id", "decoy_id", "function"), _prepared_decoys())
def test_prepared_stages_every_decoy_fails_by_10x(course: Course, artifacts: Path, stage_id: str, decoy_id: str,
                                                 function: str) -> None:
    fn = getattr(_module(ROOT / "stages" / stage_id / "decoys.py"), function)
    used = headroom(cases_of(course, stage_id, artifacts), fn)
    _report_decoy(stage_id, decoy_id, used)


@pytest.mark.parametrize("stage_id", PREPARED_STAGES)
def test_prepared_stages_decoys_would_be_named(course: Course, artifacts: Path, stage_id: str) -> None:
    """What `grader check` will verify once the stages load: each decoy, run as a learner runs it (float32), fails
    some case and is named as itself there by the grader's own fingerprint over every decoy's output on the
    float64 upcast (how the grader computes decoy outputs)."""
    import yaml

    doc = yaml.safe_load((ROOT / "stages" / stage_id / "stage.yaml").read_text())
    module = _module(ROOT / "stages" / stage_id / "decoys.py")
    decoys = [(d["id"], getattr(module, d["function"])) for d in doc["decoys"]]
    cases = cases_of(course, stage_id, artifacts)
    upcast: dict[tuple[str, str], dict[str, np.ndarray]] = {}

    def produce(decoy_id: str, fn: Callable[..., Any], case: Case) -> Callable[[], dict[str, np.ndarray]]:
        def out() -> dict[str, np.ndarray]:
            if (decoy_id, case.id) not in upcast:
                with np.errstate(all="ignore"):
                    upcast[(decoy_id, case.id)] = {"": np.asarray(fn(**_upcast(case.inputs)), dtype=np.float64)}
            return upcast[(decoy_id, case.id)]
        return out

    for decoy_id, fn in decoys:
        named, failed = [], []
        for case in cases:
            try:
                with np.errstate(all="ignore"):
                    actual = {"": np.asarray(fn(**case.inputs))}
            except (ValueError, IndexError):
                continue  # an error, not a failure: the grader names no mistake on it
            if all(c.ok for c in compare.compare_outputs(actual, {"": case.expected}, case.tolerance)):
                continue
            failed.append(case.id)
            found = compare.fingerprint(actual, [(d, produce(d, f, case)) for d, f in decoys], case.tolerance)
            if found == decoy_id:
                named.append(case.id)
        print(f"\n{stage_id} decoy {decoy_id}: fails {len(failed)} of {len(cases)} cases, named as itself on "
              f"{len(named)}")
        assert named, f"{stage_id}: decoy {decoy_id} is never named as itself (fails {failed})"


# --- mistakes of an earlier stage, inside block and gpt2 -----------------------------------------------------


def _erf_gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf, otypes=[x.dtype])
    return 0.5 * x * (1 + erf(x / x.dtype.type(math.sqrt(2))))


def _ln_unbiased(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return w * (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, ddof=1, keepdims=True) + EPS) + b


def _ln_eps_1e_12(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    return w * (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-12) + b


INHERITED = {"erf_gelu": {"gelu": _erf_gelu}, "ln_unbiased_variance": {"ln": _ln_unbiased},
             "ln_eps_1e_12": {"ln": _ln_eps_1e_12}}
# Each inherited mistake's worst ratio over the stage's cases, at least / at most (None: no bound), as measured.
# They are not decoys of block or gpt2: the stage that owns them names them with a case built for it, and block
# and gpt2 point there ("your code uses student/mlp.py, which does not pass yet").
INHERITED_BOUNDS = {
    # the erf GELU differs from gelu_new by at most 4.7e-4 per hidden unit: 1 to 4x out in a block, and in the whole
    # model 0.3 to 1.8x (it passes some cases). The mlp stage's erf_detector names it at > 60x.
    ("block", "erf_gelu"): (1.0, 10.0), ("gpt2", "erf_gelu"): (1.0, 10.0),
    # ddof=1 is a relative error of 1/(2 n_embd): at least 70x in a block, 10 to 63x in the model; layernorm names it.
    ("block", "ln_unbiased_variance"): (FAIL_MARGIN, None), ("gpt2", "ln_unbiased_variance"): (FAIL_MARGIN, None),
    # eps shows only where a row's variance is small: the embedding-like block cases and block 0 of the tiny model
    # (its embeddings have std ~0.02); never on the trained-like model. layernorm's small_var case names it.
    ("block", "ln_eps_1e_12"): (FAIL_MARGIN, None), ("gpt2", "ln_eps_1e_12"): (FAIL_MARGIN, None),
}


@pytest.mark.parametrize(("stage_id", "mistake"), list(INHERITED_BOUNDS))
def test_inherited_mistakes_distance_is_as_documented(course: Course, artifacts: Path, stage_id: str,
                                                      mistake: str) -> None:
    cast = _cast(np.float32)
    run = {"block": lambda x, params, n_head: _block(cast(x), cast(params), n_head, **INHERITED[mistake]),
           "gpt2": lambda token_ids, params, n_head: _gpt2(token_ids, cast(params), n_head, **INHERITED[mistake])}
    used = headroom(cases_of(course, stage_id, artifacts), run[stage_id])
    worst = max(used, key=lambda k: used[k])
    print(f"\n{stage_id} inherited {mistake}: {used[worst]:.3g}x on {worst}; per case "
          + ", ".join(f"{k} {v:.3g}" for k, v in used.items()))
    least, most = INHERITED_BOUNDS[(stage_id, mistake)]
    assert used[worst] >= least and (most is None or used[worst] < most), (stage_id, mistake, used[worst])
