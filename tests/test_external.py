"""--checkpoint: expected values computed once per file digest and kept under .grader/external/."""

from __future__ import annotations

import os
import shutil

import numpy as np

from grader import fixtures
from grader.course import load_course
from grader.judge import external
from tests.conftest import ROOT, linked_course


def test_expected_values_are_kept_per_file_digest_and_recomputed_when_the_file_changes(tmp_path):
    root = linked_course(tmp_path / "course")
    course = load_course(root)
    stage = course.stage("checkpoint")
    model = tmp_path / "mine" / "model.safetensors"
    model.parent.mkdir()
    shutil.copy(ROOT / "fixtures" / "checkpoint" / "artifacts" / "model.safetensors", model)
    source = external.source_for(course, stage, model)
    case = next(c for c in stage.cases if not c.hidden and c.function == "run_checkpoint_mlp")
    first = source.expected(case)
    kept = sorted((root / ".grader" / "external").glob("*.np[yz]"))
    assert len(kept) == 1 and (root / ".grader" / "external" / "digests.json").exists()
    assert kept[0].suffix == ".npy"  # one array: memory-mapped when read back, not copied
    assert isinstance(external.source_for(course, stage, model).expected(case)[""], np.memmap)
    again = external.source_for(course, stage, model)
    calls = []
    again._compute = lambda c: calls.append(c) or {}  # type: ignore[method-assign]
    assert again.expected(case)[""].tobytes() == first[""].tobytes() and calls == []
    stored = fixtures.StageFixtures(course, stage).expected(case)[""]
    assert abs(first[""] - stored).max() < 1e-12
    st = model.stat()
    os.utime(model, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched, same bytes: same digest, kept
    touched = external.source_for(course, stage, model)
    touched._compute = lambda c: calls.append(c) or first  # type: ignore[method-assign]
    touched.expected(case)
    assert calls == []
    shutil.copy(ROOT / "fixtures" / "checkpoint" / "artifacts" / "published-layout.safetensors", model)
    changed = external.source_for(course, stage, model)
    changed._compute = lambda c: calls.append(c) or first  # type: ignore[method-assign]
    changed.expected(case)
    assert calls == [case]


def test_weights_are_read_once_and_shared_by_every_case(tmp_path):
    course = load_course(linked_course(tmp_path / "course"))
    stage = course.stage("checkpoint")
    source = external.source_for(course, stage, ROOT / "fixtures" / "checkpoint" / "artifacts" / "model.safetensors")
    assert source._weights == {}  # the checkpoint stage's learners open the file themselves


def test_gpt2_on_a_learners_own_model_folder(tmp_path):
    """--checkpoint for the whole model: n_head from the config.json beside the weights; logits as the fixture's."""
    import json

    import numpy as np
    import pytest

    from grader.errors import UsageError

    course = load_course(linked_course(tmp_path / "course"))
    stage = course.stage("gpt2")
    mine = tmp_path / "my-gpt2"
    mine.mkdir()
    shutil.copy(ROOT / "fixtures" / "gpt2" / "artifacts" / "trained-like" / "model.safetensors", mine)
    with pytest.raises(UsageError, match="no config.json beside it"):
        external.source_for(course, stage, mine)
    (mine / "config.json").write_text(json.dumps({"n_head": 4}))
    source = external.source_for(course, stage, mine)
    assert "4 heads" in (source.against or "")
    stored = fixtures.StageFixtures(course, stage)
    case = next(c for c in stage.cases if c.id.startswith("trained") and not c.hidden)
    assert source.inputs(case)["n_head"] == 4 and sorted(source.inputs(case)["params"]) == sorted(
        stored.inputs(case)["params"])
    assert np.allclose(source.expected(case)[""], stored.expected(case)[""], rtol=1e-12, atol=1e-12)
    (mine / "config.json").write_text(json.dumps({"n_head": 5}))
    with pytest.raises(UsageError, match="does not divide"):
        external.source_for(course, stage, mine)
