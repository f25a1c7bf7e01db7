"""The drift locator on a small composed course: the first site where the learner's functions leave the reference."""

from __future__ import annotations

import pytest

from grader.course import load_course
from grader.judge import grade
from tests.conftest import course_from_files

FILES = {
    "course.yaml": "format_version: 1\ntitle: Drift\nstages: [scale, shift, affine]\n",
    "stages/scale/stage.yaml": """\
id: scale
title: Scale
tolerance: {atol: 1.0e-6, rtol: 1.0e-6}
functions:
  run_scale: {entry: "student.scale:run_scale", params: [x, s], reference: scale}
decoys:
  - {id: added, function: added, hint: "Scaling multiplies: x * s, not x + s."}
cases:
  - id: one
    inputs: {x: {random: normal, shape: [4], seed: 1}, s: {value: 3.0}}
""",
    "stages/scale/reference.py": "def scale(x, s):\n    return x * s\n",
    "stages/scale/decoys.py": "def added(x, s):\n    return x + s\n",
    "stages/shift/stage.yaml": """\
id: shift
title: Shift
tolerance: {atol: 1.0e-6, rtol: 1.0e-6}
functions:
  run_shift: {entry: "student.shift:run_shift", params: [x, b], reference: shift}
cases:
  - id: one
    inputs: {x: {random: normal, shape: [4], seed: 2}, b: {value: 0.5}}
""",
    "stages/shift/reference.py": "def shift(x, b):\n    return x + b\n",
    "stages/affine/stage.yaml": """\
id: affine
title: Scale, then shift
tolerance: {atol: 1.0e-6, rtol: 1.0e-6}
depends_on: [scale, shift]
drift: affine_sites
functions:
  run_affine: {entry: "student.affine:run_affine", params: [x, s, b], reference: affine}
cases:
  - id: small
    inputs: {x: {random: normal, shape: [3, 4], seed: 3}, s: {value: 2.0}, b: {value: 1.0}}
  - id: secret
    visibility: hidden
    inputs: {x: {random: normal, shape: [2], seed: 4}, s: {value: 2.0}, b: {value: 1.0}}
""",
    "stages/affine/reference.py": """\
def affine(x, s, b):
    return x * s + b


def affine_sites(x, s, b):
    scaled = x * s
    return [{"name": "the scaling", "stage": "scale", "function": "run_scale", "inputs": {"x": x, "s": s},
             "output": scaled},
            {"name": "the shift", "stage": "shift", "function": "run_shift", "inputs": {"x": scaled, "b": b},
             "output": scaled + b}]
""",
}
for _name in ("scale", "shift", "affine"):
    FILES[f"stages/{_name}/instructions.md"] = f"{_name}\n"

AFFINE = ("from student.scale import run_scale\nfrom student.shift import run_shift\n\n\n"
          "def run_affine(x, s, b):\n    return run_shift(run_scale(x, s), b)\n")


def test_a_wrong_component_is_named_with_its_mistake(tmp_path):
    course = course_from_files(tmp_path / "course", FILES, {"scale": "def run_scale(x, s):\n    return x + s\n",
                                                           "shift": "def run_shift(x, b):\n    return x + b\n",
                                                           "affine": AFFINE})
    result = grade.grade_stage(course, course.stage("affine"))
    assert not result.passed
    drift = [n for n in result.notes if n.startswith("Drift:")]
    assert len(drift) == 1 and "the scaling is the first place" in drift[0] and "run_scale" in drift[0]
    assert "student/scale.py" in drift[0] and "It looks like added" in drift[0] and "case 'small'" in drift[0]


def test_the_watch_draws_the_verdict_before_the_drift_locator_runs(tmp_path):
    """On a terminal the verdict is drawn as soon as the cases are judged; the drift note follows in a second frame."""
    from grader.learner import grading
    from grader.learner.screen import CLEAR
    from grader.learner.watch import Watch
    from tests.test_watch_session import FakeWriter

    course = course_from_files(tmp_path / "course", FILES, {"scale": "def run_scale(x, s):\n    return x + s\n",
                                                           "shift": "def run_shift(x, b):\n    return x + b\n",
                                                           "affine": AFFINE})
    writer = FakeWriter(columns=160, rows=60)
    watch = Watch(course, grading.Settings(stage="affine"), writer, tty=True)  # type: ignore[arg-type]
    watch.grade()
    frames = "".join(writer.out).split(CLEAR)
    drawn = [f for f in frames if "affine" in f and "FAIL" in f]
    assert len(drawn) >= 2, frames
    assert "Drift:" not in drawn[0] and "the scaling is the first place" in drawn[-1], drawn
    options = grade.Options(later_drift=True)
    result = grade.grade_stage(course, course.stage("affine"), options)
    assert not any(n.startswith("Drift:") for n in result.notes)  # left to drift_notes
    later = grade.drift_notes(course, course.stage("affine"), options, result)
    assert later == [n for n in grade.grade_stage(course, course.stage("affine")).notes if n.startswith("Drift:")]


def test_right_components_put_together_wrongly_point_at_the_composed_function(tmp_path):
    wrong = AFFINE.replace("run_shift(run_scale(x, s), b)", "run_scale(run_shift(x, b), s)")
    course = course_from_files(tmp_path / "course", FILES, {"scale": "def run_scale(x, s):\n    return x * s\n",
                                                           "shift": "def run_shift(x, b):\n    return x + b\n",
                                                           "affine": wrong})
    result = grade.grade_stage(course, course.stage("affine"))
    drift = [n for n in result.notes if n.startswith("Drift:")]
    assert len(drift) == 1 and "agree with the reference" in drift[0] and "run_affine itself" in drift[0]


def test_nothing_runs_when_the_stage_passes_or_only_a_hidden_case_fails(tmp_path):
    course = course_from_files(tmp_path / "course", FILES, {"scale": "def run_scale(x, s):\n    return x * s\n",
                                                           "shift": "def run_shift(x, b):\n    return x + b\n",
                                                           "affine": AFFINE})
    assert grade.grade_stage(course, course.stage("affine")).passed
    hidden_only = AFFINE.replace("    return run_shift", "    if x.ndim == 1:\n        return x\n    return run_shift")
    (course.root / "student" / "affine.py").write_text(hidden_only)
    result = grade.grade_stage(course, course.stage("affine"))
    assert [c.passed for c in result.cases] == [True, False]
    assert not [n for n in result.notes if n.startswith("Drift:")]


# --- the drift locator on the real course: one component broken inside an otherwise correct GPT-2 -------------------

LAYERNORM = """import numpy as np


def run_layernorm(x, weight, bias):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return weight * (x - mean) / np.sqrt(var + 1e-5) + bias
"""
ATTENTION = """import math

import numpy as np


def run_attention(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    T, C = x.shape[-2], x.shape[-1]
    q, k, v = np.split(x @ c_attn_weight + c_attn_bias, 3, axis=-1)
    heads = lambda t: t.reshape(*t.shape[:-1], n_head, C // n_head).swapaxes(-2, -3)
    q, k, v = heads(q), heads(k), heads(v)
    scores = q @ k.swapaxes(-1, -2) / math.sqrt(C // n_head)
    scores = np.where(np.tri(T, dtype=bool), scores, -np.inf)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True)
    out = (w @ v).swapaxes(-2, -3).reshape(*x.shape)
    return out @ c_proj_weight + c_proj_bias
"""
MLP = """import math

import numpy as np


def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    h = x @ c_fc_weight + c_fc_bias
    h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h ** 3)))
    return h @ c_proj_weight + c_proj_bias
"""
BLOCK = """from student.attention import run_attention
from student.layernorm import run_layernorm
from student.mlp import run_mlp


def run_block(x, params, n_head):
    p = params
    a = run_attention(run_layernorm(x, p["ln_1.weight"], p["ln_1.bias"]), p["attn.c_attn.weight"],
                      p["attn.c_attn.bias"], p["attn.c_proj.weight"], p["attn.c_proj.bias"], n_head)
    x = x + a
    m = run_mlp(run_layernorm(x, p["ln_2.weight"], p["ln_2.bias"]), p["mlp.c_fc.weight"], p["mlp.c_fc.bias"],
                p["mlp.c_proj.weight"], p["mlp.c_proj.bias"])
    return x + m
"""
GPT2 = """import numpy as np

from student.block import run_block
from student.layernorm import run_layernorm


def run_gpt2(token_ids, params, n_head):
    x = params["wte.weight"][token_ids] + params["wpe.weight"][np.arange(token_ids.shape[-1])]
    n_layer = len({k.split(".")[1] for k in params if k.startswith("h.")})
    for i in range(n_layer):
        x = run_block(x, {k[len(f"h.{i}."):]: v for k, v in params.items() if k.startswith(f"h.{i}.")}, n_head)
    x = run_layernorm(x, params["ln_f.weight"], params["ln_f.bias"])
    return x @ params["wte.weight"].T
"""
CORRECT = {"layernorm": LAYERNORM, "attention": ATTENTION, "mlp": MLP, "block": BLOCK, "gpt2": GPT2}


@pytest.mark.slow
@pytest.mark.parametrize("broken, change, site, mistake", [
    ("layernorm", ("np.sqrt(var + 1e-5)", "(np.sqrt(var) + 1e-5)"), "block 0 · ln_1", "eps_outside_sqrt"),
    ("attention", ("math.sqrt(C // n_head)", "math.sqrt(C)"), "block 0 · attention", "scale_sqrt_n_embd"),
    ("block", ("    x = x + a\n", "    x = run_layernorm(x, p['ln_1.weight'], p['ln_1.bias']) + a\n"), "block 0 is the",
     None),
    ("gpt2", ("    x = run_layernorm(x, params[\"ln_f.weight\"], params[\"ln_f.bias\"])\n", ""), "run_gpt2 itself",
     None),
])
def test_the_first_wrong_component_of_a_gpt2_is_named(tmp_path, broken, change, site, mistake):
    from tests.conftest import ROOT, copy_course

    course = load_course(copy_course(ROOT, tmp_path / "course"))
    for stage_id, source in CORRECT.items():
        if stage_id == broken:
            assert change[0] in source
            source = source.replace(*change)
        (course.root / "student" / f"{stage_id}.py").write_text(source)
    result = grade.grade_stage(course, course.stage("gpt2"))
    assert not result.passed
    drift = [n for n in result.notes if n.startswith("Drift:")]
    assert len(drift) == 1, result.notes
    assert site in drift[0], drift[0]
    if mistake:
        assert f"It looks like {mistake}" in drift[0], drift[0]
    if broken == "block":
        assert "Its parts (run_attention, run_layernorm, run_mlp) agree there" in drift[0]
