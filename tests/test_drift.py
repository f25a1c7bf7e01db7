"""The drift locator on a small composed course: the first site where the learner's functions leave the reference."""

from __future__ import annotations

from pathlib import Path

from grader import fixtures
from grader.course import load_course
from grader.judge import grade

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


def _course(tmp_path: Path, student: dict[str, str]):
    root = tmp_path / "course"
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "student").mkdir()
    (root / "student" / "__init__.py").write_text("")
    for name, text in student.items():
        (root / "student" / f"{name}.py").write_text(text)
    course = load_course(root)
    for stage in course.stages:
        fixtures.build(course, stage)
    return course


def test_a_wrong_component_is_named_with_its_mistake(tmp_path):
    course = _course(tmp_path, {"scale": "def run_scale(x, s):\n    return x + s\n",
                                "shift": "def run_shift(x, b):\n    return x + b\n", "affine": AFFINE})
    result = grade.grade_stage(course, course.stage("affine"))
    assert not result.passed
    drift = [n for n in result.notes if n.startswith("Drift:")]
    assert len(drift) == 1 and "the scaling is the first place" in drift[0] and "run_scale" in drift[0]
    assert "student/scale.py" in drift[0] and "It looks like added" in drift[0] and "case 'small'" in drift[0]


def test_right_components_put_together_wrongly_point_at_the_composed_function(tmp_path):
    wrong = AFFINE.replace("run_shift(run_scale(x, s), b)", "run_scale(run_shift(x, b), s)")
    course = _course(tmp_path, {"scale": "def run_scale(x, s):\n    return x * s\n",
                                "shift": "def run_shift(x, b):\n    return x + b\n", "affine": wrong})
    result = grade.grade_stage(course, course.stage("affine"))
    drift = [n for n in result.notes if n.startswith("Drift:")]
    assert len(drift) == 1 and "agree with the reference" in drift[0] and "run_affine itself" in drift[0]


def test_nothing_runs_when_the_stage_passes_or_only_a_hidden_case_fails(tmp_path):
    course = _course(tmp_path, {"scale": "def run_scale(x, s):\n    return x * s\n",
                                "shift": "def run_shift(x, b):\n    return x + b\n", "affine": AFFINE})
    assert grade.grade_stage(course, course.stage("affine")).passed
    hidden_only = AFFINE.replace("    return run_shift", "    if x.ndim == 1:\n        return x\n    return run_shift")
    (course.root / "student" / "affine.py").write_text(hidden_only)
    result = grade.grade_stage(course, course.stage("affine"))
    assert [c.passed for c in result.cases] == [True, False]
    assert not [n for n in result.notes if n.startswith("Drift:")]
