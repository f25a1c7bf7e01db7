"""Fixtures: rebuilt byte for byte, checked before every grade, refused by name when damaged or stale."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from grader import fixtures
from grader.course import load_course
from grader.errors import FixtureError
from grader.judge import grade
from tests.conftest import ROOT, copy_course, run_cli, write_student

CORRECT = "def run_double(x):\n    return 2 * x\n"


def _tree(path):
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_committed_fixtures_rebuild_from_their_definitions(tmp_path):
    """The shipped fixtures are what the references produce from the seeds.

    Inputs and artifacts byte for byte; expected values to a few float64 ulps: a float64 matmul's last bit depends
    on the BLAS kernel the machine picks (OpenBLAS's Haswell and SkylakeX kernels sum in different orders).
    """
    import io

    import numpy as np

    root = copy_course(ROOT, tmp_path / "course")
    course = load_course(root)
    for stage in course.stages:
        shipped = _tree(ROOT / "fixtures" / stage.id)
        fixtures.build(course, stage)
        rebuilt = _tree(root / "fixtures" / stage.id)
        assert sorted(rebuilt) == sorted(shipped), f"fixtures/{stage.id}: other files after a rebuild"
        for name, data in shipped.items():
            if "expected" in name:
                a, b = (np.load(io.BytesIO(x), allow_pickle=False) for x in (rebuilt[name], data))
                if b.dtype.kind in "U":  # text (a tokenizer's decode): exactly
                    assert a.tolist() == b.tolist(), f"fixtures/{stage.id}/{name}"
                else:
                    # of the array's scale: an attention output near 0 after scores of 1e3 carries the scores' ulps
                    scale = float(np.abs(b).max()) if b.size and np.isfinite(b).all() else 0.0
                    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14 + 1e-12 * scale,
                                               err_msg=f"fixtures/{stage.id}/{name}")
            elif name != "MANIFEST.json":
                assert rebuilt[name] == data, f"fixtures/{stage.id}/{name} differs after a rebuild"


def test_two_builds_are_identical(mini):
    first = {s.id: _tree(mini.root / "fixtures" / s.id) for s in mini.stages}
    for stage in mini.stages:
        fixtures.build(mini, stage)
    assert {s.id: _tree(mini.root / "fixtures" / s.id) for s in mini.stages} == first


def _damage(mini, how):
    folder = mini.root / "fixtures" / "double"
    target = folder / "random" / "expected.npy"
    if how == "missing":
        target.unlink()
    elif how == "truncated":
        target.write_bytes(target.read_bytes()[:-8])
    elif how == "edited":
        data = bytearray(target.read_bytes())
        data[-1] ^= 0x01
        target.write_bytes(bytes(data))
    elif how == "input edited":
        target = folder / "small" / "x.npy"
        data = bytearray(target.read_bytes())
        data[-2] ^= 0x40
        target.write_bytes(bytes(data))
    elif how == "manifest missing":
        (folder / "MANIFEST.json").unlink()
    elif how == "manifest damaged":
        (folder / "MANIFEST.json").write_text("{not json")
    return target


@pytest.mark.parametrize("how,match", [  # a CLI run each: a damaged file and a damaged manifest in the fast loop
    pytest.param("missing", r"random/expected.npy: expected output of case 'random' is missing",
                 marks=pytest.mark.slow),
    pytest.param("truncated", r"random/expected.npy: expected output of case 'random' does not match its digest",
                 marks=pytest.mark.slow),
    ("edited", r"random/expected.npy: expected output of case 'random' does not match its digest"),
    pytest.param("input edited", r"small/x.npy: input 'x' of case 'small' does not match its digest",
                 marks=pytest.mark.slow),
    pytest.param("manifest missing", r"fixtures for stage 'double' are missing; build them with",
                 marks=pytest.mark.slow),
    ("manifest damaged", r"MANIFEST.json: the manifest is damaged"),
])
def test_damaged_fixtures_are_refused_by_name_and_never_graded(mini, how, match):
    write_student(mini, "double", CORRECT)
    _damage(mini, how)
    with pytest.raises(FixtureError, match=match) as err:
        grade.grade_stage(mini, mini.stage("double"))
    assert "python -m grader fixtures build --stage double" in str(err.value)
    proc = run_cli("--stage", "double", cwd=mini.root)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "PASS" not in proc.stdout and re.search(match, proc.stderr)


def test_a_damaged_fixture_is_refused_even_before_the_learner_code_runs(mini):
    marker = mini.root / "ran"
    write_student(mini, "double", f"open({str(marker)!r}, 'w').close()\ndef run_double(x):\n    return 2 * x\n")
    _damage(mini, "edited")
    with pytest.raises(FixtureError):
        grade.grade_stage(mini, mini.stage("double"))
    assert not marker.exists()


def test_a_changed_case_definition_makes_the_fixture_stale(mini):
    path = mini.root / "stages/double/stage.yaml"
    path.write_text(path.read_text().replace("seed: 7", "seed: 70"))
    course = load_course(mini.root)
    with pytest.raises(FixtureError, match="case 'random' was built from a different definition"):
        grade.grade_stage(course, course.stage("double"))


def test_a_changed_reference_makes_the_fixtures_stale(mini):
    path = mini.root / "stages/double/reference.py"
    path.write_text(path.read_text() + "\n# changed\n")
    with pytest.raises(FixtureError, match="another version of .*reference code"):
        grade.grade_stage(mini, mini.stage("double"))


def test_verify_command(mini):
    assert run_cli("fixtures", "verify", cwd=mini.root).returncode == 0
    _damage(mini, "edited")
    proc = run_cli("fixtures", "verify", cwd=mini.root)
    assert proc.returncode == 2 and "does not match its digest" in proc.stderr


def test_manifest_lists_digests_and_visibility(mini):
    manifest = json.loads((mini.root / "fixtures/double/MANIFEST.json").read_text())
    assert manifest["cases"]["secret"]["hidden"] is True
    assert len(manifest["cases"]["small"]["inputs"]["x"]["sha256"]) == 64


def test_an_array_is_shared_by_cases_but_never_by_a_hidden_and_a_public_one(mini):
    """A graded jail is handed one copy per fixture file: a hidden call's copy must not be a public call's."""
    path = mini.root / "stages/double/stage.yaml"
    same = "x: {random: normal, shape: [8, 16], seed: 7, dtype: float32}"
    path.write_text(path.read_text().replace("x: {random: uniform, shape: [5], low: -3, high: 3, seed: 8, "
                                             "dtype: float32}", same)
                    + f"  - id: again\n    inputs:\n      {same}\n")
    fixtures.build(load_course(mini.root), load_course(mini.root).stage("double"))
    cases = json.loads((mini.root / "fixtures/double/MANIFEST.json").read_text())["cases"]
    files = {c: cases[c]["inputs"]["x"]["file"] for c in ("random", "again", "secret")}
    assert files["again"] == files["random"] != files["secret"], files  # the same bytes, a file of the hidden's own
    assert cases["secret"]["inputs"]["x"]["sha256"] == cases["random"]["inputs"]["x"]["sha256"]


def test_a_failed_build_leaves_the_previous_fixtures(mini):
    before = _tree(mini.root / "fixtures" / "double")
    (mini.root / "stages/double/reference.py").write_text("def double(x):\n    raise RuntimeError('broken')\n")
    course = load_course(mini.root)
    with pytest.raises(FixtureError, match="the reference failed on case 'small'"):
        fixtures.build(course, course.stage("double"))
    assert _tree(mini.root / "fixtures" / "double") == before
    assert not list((mini.root / "fixtures").glob(".double*"))





def test_a_long_lived_fixture_set_still_sees_an_edit(mini):
    """Watch sessions and batch workers keep one StageFixtures: a file edited after it was hashed is refused."""
    stage = mini.stage("double")
    data = fixtures.StageFixtures(mini, stage)
    case = stage.case("random")
    data.expected(case)  # hashed, then remembered by its stat
    path = mini.root / "fixtures" / "double" / "random" / "expected.npy"
    flipped = bytearray(path.read_bytes())
    flipped[-1] ^= 0x01
    path.write_bytes(bytes(flipped))  # same size; ctime moves even within one mtime tick
    with pytest.raises(FixtureError, match="does not match its digest"):
        data.expected(case)


def test_a_manifest_of_the_wrong_shape_is_refused_not_a_traceback(mini):
    path = mini.root / "fixtures/double/MANIFEST.json"
    manifest = json.loads(path.read_text())
    manifest["cases"]["small"]["inputs"] = ["not", "a", "mapping"]
    path.write_text(json.dumps(manifest))
    with pytest.raises(FixtureError, match="the manifest is damaged"):
        grade.grade_stage(mini, mini.stage("double"))


def test_a_generator_keyword_the_yaml_misspelt_is_a_located_error(mini):
    path = mini.root / "stages/combine/stage.yaml"
    path.write_text(path.read_text().replace("n: 12", "m: 12"))
    course = load_course(mini.root)
    with pytest.raises(FixtureError, match=r"stage.yaml:\d+: case 'pair', input 'y': cannot make it: TypeError"):
        fixtures.build(course, course.stage("combine"))


WEIGHTS_STAGE = {
    "course.yaml": "format_version: 1\ntitle: Weights\nstages: [affine]\n",
    "stages/affine/stage.yaml": """\
id: affine
title: An affine map from a parameter dict
tolerance: {atol: 1.0e-6, rtol: 1.0e-6}
artifacts: build
functions:
  run_affine:
    entry: student.affine:run_affine
    params: [x, params]
    reference: affine
decoys:
  - id: no_bias
    function: no_bias
    hint: The bias is missing.
cases:
  - id: layer0
    inputs:
      x: {random: normal, shape: [3, 4], seed: 1}
      params: {weights: model.safetensors, prefix: "layer.0.", exclude: ["mask*"]}
  - id: layer1
    inputs:
      x: {random: normal, shape: [2, 4], seed: 2}
      params: {weights: model.safetensors, prefix: "layer.1.", exclude: ["mask*"]}
""",
    "stages/affine/instructions.md": "Return x @ params['w'] + params['b'].\n",
    "stages/affine/reference.py": "def affine(x, params):\n    return x @ params['w'] + params['b']\n",
    "stages/affine/decoys.py": "def no_bias(x, params):\n    return x @ params['w']\n",
    "stages/affine/build.py": """\
import numpy as np
from safetensors.numpy import save_file


def build(dest):
    rng = np.random.RandomState(0)
    tensors = {}
    for i in range(2):
        tensors[f"layer.{i}.w"] = rng.normal(size=(4, 5)).astype(np.float32)
        tensors[f"layer.{i}.b"] = rng.normal(size=(5,)).astype(np.float32)
        tensors[f"layer.{i}.mask"] = np.ones((2, 2), np.float32)
    save_file(tensors, str(dest / "model.safetensors"))
""",
}


def test_a_weights_input_is_a_dict_of_the_prefixed_tensors(tmp_path):
    root = tmp_path / "course"
    for name, text in WEIGHTS_STAGE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    course = load_course(root)
    stage = course.stage("affine")
    fixtures.build(course, stage)
    store = fixtures.StageFixtures(course, stage)
    params = store.inputs(stage.case("layer1"))["params"]
    assert sorted(params) == ["b", "w"] and params["w"].shape == (4, 5) and params["w"].dtype == np.float32
    (root / "student").mkdir()
    (root / "student" / "__init__.py").write_text("")
    zeroed = "def run_affine(x, params):\n    params['w'] = params['w'] * 0\n    return x @ params['w']\n"
    write_student(course, "affine", zeroed)
    result = grade.grade_stage(course, stage)
    assert [c.status.value for c in result.cases] == ["fail", "fail"]  # and no_bias was not named: w was zeroed
    write_student(course, "affine", "def run_affine(x, params):\n    params['w'] *= 0\n    return x @ params['w']\n")
    result = grade.grade_stage(course, stage)  # shared weights are read-only views: no copy per call
    assert [c.status.value for c in result.cases] == ["exception", "exception"]
    assert "read-only" in result.cases[0].message
    write_student(course, "affine", "def run_affine(x, params):\n    return x @ params['w']\n")
    result = grade.grade_stage(course, stage)
    assert [c.diagnosis for c in result.cases] == ["no_bias", "no_bias"]
    write_student(course, "affine", "def run_affine(x, params):\n    return x @ params['w'] + params['b']\n")
    assert grade.grade_stage(course, stage).passed
    assert store.inputs(stage.case("layer1"))["params"]["w"].any()  # a learner's in-place change stays in the child


def test_a_fixture_file_is_hashed_again_only_when_its_stats_change(mini, monkeypatch):
    """What a grade hashed is kept under .grader/ with the file's inode, size, mtime and ctime: the next cold grade
    reads nothing it need not, and any change to a file (ctime cannot be set back) is hashed again."""
    import os

    from grader.fixtures import store

    stage = mini.stage("double")
    first = fixtures.StageFixtures(mini, stage)
    for case in stage.cases:
        first.inputs(case)
    hashed = []
    real = store.hashlib.sha256
    def counting(*data: bytes) -> object:  # a fixture file: streamed (no argument) or whole; not a small digest
        if not data or bytes(data[0][:6]) == b"\x93NUMPY":
            hashed.append(1)
        return real(*data)

    monkeypatch.setattr(store.hashlib, "sha256", counting)
    again = fixtures.StageFixtures(mini, stage)
    for case in stage.cases:
        again.inputs(case)
        again.expected(case)
    assert hashed == []
    target = next((mini.root / "fixtures" / "double").rglob("expected.npy"))
    st = target.stat()
    target.write_bytes(target.read_bytes())  # the same bytes, and the old mtime put back: the ctime still moves
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    fixtures.StageFixtures(mini, stage)
    assert len(hashed) == 1


def test_weights_are_memory_mapped_views_equal_to_what_safetensors_reads(tmp_path: Path) -> None:
    """read_weights maps the file instead of copying it; the arrays are the library's, bit for bit, read-only."""
    import struct

    from safetensors.numpy import load_file, save_file

    from grader.fixtures.inputs import read_weights

    mixed = {"a.f64": np.arange(6.0).reshape(2, 3), "a.i8": np.array([-1, 2], dtype=np.int8),
             "b.bool": np.array([True, False]), "b.empty": np.zeros((0, 4), dtype=np.float32),
             "b.f16": np.array([1.5, -2.0], dtype=np.float16)}
    save_file(mixed, str(tmp_path / "mixed.safetensors"))
    for path in [tmp_path / "mixed.safetensors", ROOT / "fixtures" / "checkpoint" / "artifacts" / "model.safetensors"]:
        got, want = read_weights(path), load_file(str(path))
        assert set(got) == set(want)
        for key, array in want.items():
            assert got[key].dtype == array.dtype and got[key].shape == array.shape and np.array_equal(got[key], array)
            assert not got[key].flags.writeable
    assert set(read_weights(tmp_path / "mixed.safetensors", "a.", ("i*",))) == {"f64"}
    # bfloat16, which numpy lacks: the library reads it and says so (as before), nothing half-read
    header = json.dumps({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}).encode()
    (tmp_path / "bf16.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + b"\x80\x3f\x80\x3f")
    with pytest.raises(Exception, match="(?i)bf16|bfloat16|not understood|dtype"):
        read_weights(tmp_path / "bf16.safetensors")
    # a damaged header: the library's own error, not a crash in the grader's reader
    damaged = tmp_path / "damaged.safetensors"
    damaged.write_bytes((tmp_path / "mixed.safetensors").read_bytes()[:40])
    with pytest.raises(Exception):  # noqa: B017 - whatever safetensors raises for it
        read_weights(damaged)
