"""The references of the stages past the checkpoint against code no one here wrote: torch and transformers' GPT-2.

layernorm against `torch.nn.functional.layer_norm`, softmax against `torch.softmax`, attention against
transformers' `GPT2Attention` (eager with the causal mask the model would pass it, and sdpa), on every fixture
case. block and gpt2 are prepared but not in course.yaml yet (their cases need a grader feature, see
tests/test_calibration_gpt2.py), so their references run here on tensors read with safetensors from the
checkpoints stages/gpt2/build.py writes: block against `GPT2Block`, the gpt2 reference's logits and its drift
sites against `GPT2LMHeadModel.from_pretrained` on both built models.

Oracle trap: `GPT2Attention` called on its own with attention_mask=None is causal under sdpa but NOT under eager
attention (the model builds the mask and passes it down); test_eager_attention_without_a_mask_is_not_causal
pins that, so an oracle that forgets the mask fails loudly instead of agreeing with a no-mask decoy.
"""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from grader.course import Course, load_course, stagecode
from grader.fixtures import StageFixtures

pytestmark = [pytest.mark.oracle, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
MASKS = (".attn.bias", ".attn.masked_bias")


@pytest.fixture(scope="module")
def torch() -> Any:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    return torch


@pytest.fixture(scope="module")
def course() -> Course:
    return load_course(ROOT)


def _module(path: Path) -> ModuleType:
    """stages/<id>/<file>.py, imported as the grader imports it (its common/ modules with it)."""
    return stagecode.load(load_course(ROOT).stage(path.parent.name), path.name)


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("gpt2-artifacts")
    _module(ROOT / "stages" / "gpt2" / "build.py").build(dest)
    return dest


def _within(actual: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> float:
    """The share of the tolerance used by the worst element (< 1 passes)."""
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    return float(np.max(np.abs(actual - expected) / (atol + rtol * np.abs(expected))))


def _t(torch: Any, a: np.ndarray, dtype: Any = None) -> Any:
    return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float64 if dtype is None else dtype))


def _params(path: Path, prefix: str = "") -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file

    return {k[len(prefix):]: v for k, v in load_file(str(path)).items() if k.startswith(prefix)
            and not k.endswith(MASKS)}


def _upcast(params: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: v.astype(np.float64) for k, v in params.items()}


# --- layernorm, softmax ------------------------------------------------------------------------------------------


def test_layernorm_reference_is_torch_layer_norm(torch: Any, course: Course) -> None:
    stage = course.stage("layernorm")
    data = StageFixtures(course, stage)
    for case in stage.cases:
        inputs = data.inputs(case)
        x, w, b = (_t(torch, inputs[k]) for k in ("x", "weight", "bias"))
        got = torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5).numpy()
        assert _within(got, data.expected(case)[""], case.tolerance.atol, case.tolerance.rtol) <= 1e-6, case.id
        with torch.no_grad():  # and nn.LayerNorm in float32, as a learner's torch code would run it
            layer = torch.nn.LayerNorm(x.shape[-1], eps=1e-5)
            layer.weight.copy_(_t(torch, inputs["weight"], np.float32))
            layer.bias.copy_(_t(torch, inputs["bias"], np.float32))
            got32 = layer(_t(torch, inputs["x"], np.float32)).double().numpy()
        assert _within(got32, data.expected(case)[""], case.tolerance.atol, case.tolerance.rtol) < 0.1, case.id


def test_softmax_reference_is_torch_softmax(torch: Any, course: Course) -> None:
    stage = course.stage("softmax")
    data = StageFixtures(course, stage)
    for case in stage.cases:
        got = torch.softmax(_t(torch, data.inputs(case)["x"]), dim=-1).numpy()
        assert _within(got, data.expected(case)[""], case.tolerance.atol, case.tolerance.rtol) <= 1e-6, case.id


# --- attention ---------------------------------------------------------------------------------------------------


def _gpt2_config(n_embd: int, n_head: int, attn: str, **kwargs: Any) -> Any:
    from transformers import GPT2Config

    config = GPT2Config(n_embd=n_embd, n_head=n_head, attn_pdrop=0.0, resid_pdrop=0.0, embd_pdrop=0.0, **kwargs)
    config._attn_implementation = attn
    return config


def _causal_mask(torch: Any, n_seq: int, dtype: Any) -> Any:
    """The additive [1, 1, T, T] mask GPT2Model builds for eager attention: 0 on and below the diagonal."""
    hidden = ~torch.ones(n_seq, n_seq, dtype=torch.bool).tril()
    return torch.zeros(n_seq, n_seq, dtype=dtype).masked_fill(hidden, torch.finfo(dtype).min)[None, None]


def _hf_attention(torch: Any, inputs: dict[str, Any], attn: str, mask: bool = True, dtype: Any = None) -> np.ndarray:
    from transformers.models.gpt2.modeling_gpt2 import GPT2Attention

    dtype = dtype or torch.float64
    x = inputs["x"]
    module = GPT2Attention(_gpt2_config(x.shape[-1], inputs["n_head"], attn), layer_idx=0).to(dtype).eval()
    with torch.no_grad():
        for layer, name in ((module.c_attn, "c_attn"), (module.c_proj, "c_proj")):
            layer.weight.copy_(torch.from_numpy(inputs[f"{name}_weight"]).to(dtype))
            layer.bias.copy_(torch.from_numpy(inputs[f"{name}_bias"]).to(dtype))
        hidden = torch.from_numpy(x if x.ndim == 3 else x[None]).to(dtype)  # GPT2Attention wants [B, T, C]
        causal = _causal_mask(torch, hidden.shape[1], dtype) if attn == "eager" and mask else None
        out = module(hidden, attention_mask=causal)[0].double().numpy()
    return out if x.ndim == 3 else out[0]


@pytest.mark.parametrize("attn", ["eager", "sdpa"])
def test_attention_reference_is_transformers_gpt2attention(torch: Any, course: Course, attn: str) -> None:
    stage = course.stage("attention")
    data = StageFixtures(course, stage)
    for case in stage.cases:
        inputs = data.inputs(case)
        expected = data.expected(case)[""]
        got = _hf_attention(torch, inputs, attn)
        assert _within(got, expected, case.tolerance.atol, case.tolerance.rtol) <= 1e-6, (attn, case.id)
        if inputs["x"].shape[-2] <= 64:  # and in float32, as a learner's torch code would run it
            got32 = _hf_attention(torch, inputs, attn, dtype=torch.float32)
            assert _within(got32, expected, case.tolerance.atol, case.tolerance.rtol) < 0.1, (attn, case.id)


def test_eager_attention_without_a_mask_is_not_causal(torch: Any, course: Course) -> None:
    """The trap the module docstring names: eager GPT2Attention with attention_mask=None matches the no-mask decoy."""
    stage = course.stage("attention")
    data = StageFixtures(course, stage)
    case = stage.case("gpt2_1x16x768")
    inputs = data.inputs(case)
    unmasked = _hf_attention(torch, inputs, "eager", mask=False)
    assert _within(unmasked, data.expected(case)[""], case.tolerance.atol, case.tolerance.rtol) > 100
    no_mask = stagecode.function(stage, "decoys.py", "no_causal_mask")(
        **{k: v.astype(np.float64) if isinstance(v, np.ndarray) else v for k, v in inputs.items()})
    assert _within(unmasked, no_mask, case.tolerance.atol, case.tolerance.rtol) <= 1e-6


# --- block and gpt2, on the checkpoints build.py writes ------------------------------------------------------------


MODELS = {"tiny": 4, "trained-like": 4}  # folder -> n_head


@pytest.fixture(scope="module")
def hf_models(torch: Any, artifacts: Path) -> dict[str, Any]:
    """GPT2LMHeadModel.from_pretrained on each built folder, float64, eval; with its loading info."""
    from transformers import GPT2LMHeadModel

    out = {}
    for name in MODELS:
        model, info = GPT2LMHeadModel.from_pretrained(artifacts / name, output_loading_info=True,
                                                      dtype=torch.float64, attn_implementation="eager")
        out[name] = (model.eval(), info)
    return out


def test_built_checkpoints_load_completely(hf_models: dict[str, Any], artifacts: Path) -> None:
    import json

    for name, (model, info) in hf_models.items():
        config = json.loads((artifacts / name / "config.json").read_text())
        assert not info["missing_keys"], (name, info["missing_keys"])
        assert all(k.endswith(MASKS) for k in info["unexpected_keys"]), (name, info["unexpected_keys"])
        assert not info.get("mismatched_keys"), (name, info["mismatched_keys"])
        assert len(model.transformer.h) == config["n_layer"] and model.config.n_head == MODELS[name]
        assert model.lm_head.weight.data_ptr() == model.transformer.wte.weight.data_ptr()  # tied
        biases = [p.detach().numpy() for n, p in model.named_parameters() if n.endswith(".bias")]
        assert all(np.all(b != 0) for b in biases), f"{name}: every bias is non-zero"


def test_tiny_model_is_the_checkpoint_stage_model(artifacts: Path) -> None:
    """The gpt2 stage's tiny/ is the checkpoint stage's published-layout file: the weights learners already know."""
    ours = _params(artifacts / "tiny" / "model.safetensors")
    theirs = _params(ROOT / "fixtures" / "checkpoint" / "artifacts" / "published-layout.safetensors")
    assert ours.keys() == theirs.keys() and all(np.array_equal(ours[k], theirs[k]) for k in ours)


def test_trained_like_model_has_trained_magnitudes(artifacts: Path) -> None:
    """What makes it 'trained-like' (calibration section 6), so a later edit of build.py cannot lose it."""
    gpt2 = _module(ROOT / "stages" / "gpt2" / "reference.py")
    softmax = _module(ROOT / "stages" / "softmax" / "reference.py").softmax
    params = _upcast(_params(artifacts / "trained-like" / "model.safetensors"))
    ids = np.random.RandomState(0).randint(0, 2048, size=64)
    sites = gpt2.gpt2_sites(ids, params, 4)
    logits = sites["logits"]
    assert -115 < logits.min() and logits.max() < -40 and -90 < np.median(logits) < -70
    assert np.abs(sites["h.3"]).max() > 250  # the massive channels at position 0
    weights = []
    for i in range(4):
        p = gpt2.block_params(params, i)
        q, k, _ = np.split(sites[f"h.{i}.ln_1"] @ p["attn.c_attn.weight"] + p["attn.c_attn.bias"], 3, axis=-1)
        q, k = (z.reshape(64, 4, 32).swapaxes(0, 1) for z in (q, k))
        weights.append(softmax(q @ k.swapaxes(-1, -2) / math.sqrt(32) + (1 - np.tri(64)) * -1e10))
    assert np.mean([w[:, 8:, :].max(axis=-1).mean() for w in weights]) > 0.4  # sharp: ~1/T would be uniform


def test_block_reference_is_transformers_gpt2block(torch: Any, artifacts: Path) -> None:
    import yaml
    from transformers.models.gpt2.modeling_gpt2 import GPT2Block

    sdir = ROOT / "stages" / "block"
    block = _module(sdir / "reference.py")
    generators = _module(sdir / "inputs.py")
    doc = yaml.safe_load((sdir / "stage.yaml").read_text())
    for case in doc["cases"]:
        spec = case["inputs"]
        x = getattr(generators, spec["x"]["generate"])(np.random.RandomState(spec["x"]["seed"]), **{
            k: v for k, v in spec["x"].items() if k not in ("generate", "seed")})
        params = _params(artifacts / spec["params"]["weights"], spec["params"]["prefix"])
        n_head = spec["n_head"]["value"]
        expected = block.transformer_block(x.astype(np.float64), _upcast(params), n_head)
        for attn in ("eager", "sdpa"):
            module = GPT2Block(_gpt2_config(x.shape[-1], n_head, attn), layer_idx=0).double().eval()
            module.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()}, strict=True)
            hidden = _t(torch, x if x.ndim == 3 else x[None])
            with torch.no_grad():
                out = module(hidden, attention_mask=_causal_mask(torch, hidden.shape[1], torch.float64)
                             if attn == "eager" else None)
            out = (out[0] if isinstance(out, tuple) else out).numpy()
            got = out if x.ndim == 3 else out[0]
            assert _within(got, expected, 1e-4, 1e-4) <= 1e-6, (case["id"], attn)


@pytest.mark.parametrize("name", list(MODELS))
def test_gpt2_reference_logits_match_from_pretrained(torch: Any, artifacts: Path, hf_models: dict[str, Any],
                                                     name: str) -> None:
    gpt2 = _module(ROOT / "stages" / "gpt2" / "reference.py")
    params = _upcast(_params(artifacts / name / "model.safetensors"))
    model, _ = hf_models[name]
    n_positions = model.config.n_positions
    rng = np.random.RandomState(1)
    for shape in ((1,), (7,), (2, 16), (n_positions,)):
        ids = rng.randint(0, model.config.vocab_size, size=shape)
        expected = gpt2.gpt2(ids, params, MODELS[name])
        batch = torch.from_numpy(ids if ids.ndim == 2 else ids[None])
        with torch.no_grad():
            logits = model(batch, use_cache=False).logits.numpy()
        got = logits if ids.ndim == 2 else logits[0]
        assert np.max(np.abs(got - expected)) <= 1e-10 * max(1.0, np.abs(expected).max()), (name, shape)  # float64
        assert _within(got, expected, 1e-4, 1e-4) <= 1e-6, (name, shape)


@pytest.mark.parametrize("name", list(MODELS))
def test_gpt2_reference_float32_transformers_within_tolerance(torch: Any, artifacts: Path, name: str) -> None:
    """transformers in float32 (sdpa, its default), as a learner's torch port runs: well inside atol=rtol=1e-4."""
    from transformers import GPT2LMHeadModel

    gpt2 = _module(ROOT / "stages" / "gpt2" / "reference.py")
    params = _upcast(_params(artifacts / name / "model.safetensors"))
    model = GPT2LMHeadModel.from_pretrained(artifacts / name, dtype=torch.float32).eval()
    ids = np.random.RandomState(2).randint(0, model.config.vocab_size, size=(2, 64))
    with torch.no_grad():
        got = model(torch.from_numpy(ids), use_cache=False).logits.double().numpy()
    assert _within(got, gpt2.gpt2(ids, params, MODELS[name]), 1e-4, 1e-4) < 0.1, name


@pytest.mark.parametrize("name", list(MODELS))
def test_gpt2_sites_match_transformers_hooks(torch: Any, artifacts: Path, hf_models: dict[str, Any],
                                             name: str) -> None:
    """gpt2_sites, the drift locator's expected values, site by site against forward hooks on the HF modules."""
    gpt2 = _module(ROOT / "stages" / "gpt2" / "reference.py")
    params = _upcast(_params(artifacts / name / "model.safetensors"))
    model, _ = hf_models[name]
    ids = np.random.RandomState(3).randint(0, model.config.vocab_size, size=32)
    sites = gpt2.gpt2_sites(ids, params, MODELS[name])
    n_layer = len(model.transformer.h)
    want = ["emb"] + [f"h.{i}{s}" for i in range(n_layer) for s in (".ln_1", ".attn", ".ln_2", ".mlp", "")]
    assert list(sites) == [*want, "ln_f", "logits"]
    assert np.array_equal(sites["logits"], gpt2.gpt2(ids, params, MODELS[name]))
    seen: dict[str, np.ndarray] = {}

    def hook(site: str) -> Any:
        def record(module: Any, args: Any, output: Any) -> None:
            out = output[0] if isinstance(output, tuple) else output
            seen[site] = out[0].detach().numpy()
        return record

    handles = [model.transformer.ln_f.register_forward_hook(hook("ln_f"))]
    for i, block in enumerate(model.transformer.h):
        for site, module in ((f"h.{i}.ln_1", block.ln_1), (f"h.{i}.attn", block.attn), (f"h.{i}.ln_2", block.ln_2),
                             (f"h.{i}.mlp", block.mlp), (f"h.{i}", block)):
            handles.append(module.register_forward_hook(hook(site)))
    try:
        with torch.no_grad():
            out = model(torch.from_numpy(ids[None]), use_cache=False, output_hidden_states=True)
    finally:
        for handle in handles:
            handle.remove()
    seen["emb"] = out.hidden_states[0][0].numpy()
    seen["logits"] = out.logits[0].numpy()
    for site, value in sites.items():
        scale = max(1.0, float(np.abs(value).max()))
        assert np.max(np.abs(seen[site] - value)) <= 1e-10 * scale, site
