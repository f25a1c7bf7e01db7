"""The comparator: shapes before values, non-finite values named, the worst element found, headroom measured."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from grader.course import Tolerance
from grader.judge.compare import compare, compare_outputs, fingerprint

TOL = Tolerance(atol=1e-5, rtol=0.0)


def test_broadcastable_shape_is_refused_naming_both_shapes():
    a, e = np.zeros((1, 4, 64)), np.zeros((4, 64))
    assert np.allclose(a, e)  # numpy would have said yes
    c = compare(a, e, TOL)
    assert not c.ok and "[1, 4, 64]" in c.problem and "[4, 64]" in c.problem and "size-1" in c.problem


def test_transposed_shape_is_named():
    c = compare(np.zeros((3, 2)), np.zeros((2, 3)), TOL)
    assert "transposed" in c.problem


def test_worst_element_index_values_and_input():
    e = np.linspace(-1, 1, 12).reshape(3, 4)
    a = e.copy()
    a[2, 1] += 3e-5
    a[0, 3] += 2e-5
    c = compare(a, e, TOL, inputs=np.arange(12.0).reshape(3, 4))
    assert not c.ok and c.mismatched == 2 and c.total == 12
    assert c.worst.index == (2, 1) and c.worst.input == 9.0
    assert c.worst.expected == e[2, 1] and c.worst.actual == a[2, 1]
    assert c.max_abs_index == (2, 1) and abs(c.max_abs_error - 3e-5) < 1e-12
    assert [m.index for m in c.first] == [(0, 3), (2, 1)]
    assert 2.9 < c.headroom < 3.1


def test_one_ulp_float32_miss_is_reported_at_full_precision():
    e = np.array([1.0])
    a = np.array([np.nextafter(np.float32(1), np.float32(2))], dtype=np.float32)
    c = compare(a, e, Tolerance(0.0, 0.0))
    assert not c.ok and repr(c.worst.actual) == "1.0000001192092896"


def test_relative_tolerance_and_headroom_on_pass():
    e = np.array([100.0, 1.0])
    a = e * (1 + 5e-5)
    c = compare(a, e, Tolerance(atol=0.0, rtol=1e-4))
    assert c.ok and abs(c.headroom - 0.5) < 1e-6


def test_non_finite_values():
    e = np.array([1.0, np.nan, np.inf, 2.0])
    same = compare(e.copy(), e, TOL)
    assert same.ok
    a = np.array([np.nan, np.nan, np.inf, np.inf])
    c = compare(a, e, TOL)
    assert not c.ok and c.nonfinite == 2 and c.mismatched == 2 and c.headroom == float("inf")


def test_complex_and_empty():
    assert "complex" in compare(np.zeros(3, complex), np.zeros(3), TOL).problem
    assert compare(np.zeros((0, 4)), np.zeros((0, 4)), TOL).ok
    assert not compare(np.zeros((0, 4)), np.zeros((4, 0)), TOL).ok


def test_dict_keys_are_checked_both_ways():
    e = {"a": np.zeros(2), "b": np.zeros(2)}
    [c] = compare_outputs({"a": np.zeros(2), "c": np.zeros(2)}, e, TOL)
    assert not c.ok and "missing ['b']" in c.problem and "unexpected ['c']" in c.problem
    comps = compare_outputs({"a": np.zeros(2), "b": np.ones(2)}, e, TOL)
    assert [c.ok for c in comps] == [True, False] and comps[1].key == "b"


def test_fingerprint_picks_the_closest_decoy_within_tolerance():
    x = np.linspace(-3, 3, 50)
    learner = {"": np.maximum(x, 0)}
    decoys = [("abs", lambda: {"": np.abs(x)}), ("relu", lambda: {"": np.maximum(x, 0) + 1e-7}),
              ("boom", lambda: 1 / 0)]
    assert fingerprint(learner, decoys, TOL) == "relu"
    assert fingerprint({"": x}, decoys, TOL) is None


def _slow_verdict(a, e, atol, rtol):
    """An obviously right elementwise verdict, one Python float at a time."""
    if a.shape != e.shape:
        return False
    for x, y in zip(a.ravel().tolist(), e.ravel().tolist(), strict=True):
        if np.isnan(x) and np.isnan(y):
            continue
        if np.isinf(x) or np.isinf(y) or np.isnan(x) or np.isnan(y):
            if x != y:
                return False
            continue
        if abs(x - y) > atol + rtol * abs(y):
            return False
    return True


floats = st.floats(allow_nan=True, allow_infinity=True, width=32)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
       atol=st.sampled_from([0.0, 1e-5, 1e-2]), rtol=st.sampled_from([0.0, 1e-4]))
def test_verdict_matches_a_slow_reference(data, shape, atol, rtol):
    e = data.draw(hnp.arrays(np.float64, shape, elements=floats))
    noise = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-1e-2, 1e-2)))
    a = data.draw(st.sampled_from([e.copy(), e + noise, e.astype(np.float32)]))
    c = compare(a, e, Tolerance(atol, rtol))
    assert c.ok == _slow_verdict(a.astype(np.float64), e, atol, rtol)
    assert c.total == e.size


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4),
       atol=st.sampled_from([0.0, 1e-5, 1e-2]), rtol=st.sampled_from([0.0, 1e-4]))
def test_the_fast_decoy_match_agrees_with_the_full_comparison(data, shape, atol, rtol):
    from grader.judge.compare import matches

    e = data.draw(hnp.arrays(np.float64, shape, elements=floats))
    noise = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-1e-2, 1e-2)))
    a = data.draw(st.sampled_from([e.copy(), e + noise, e.astype(np.float32)]))
    tol = Tolerance(atol, rtol)
    score = matches({"": a}, {"": e}, tol)
    assert (score <= 1.0) == compare(a, e, tol).ok, score


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), bad=st.integers(0, 3), where=st.integers(0, 4999))
def test_the_sampled_decoy_match_never_changes_the_verdict(seed, bad, where):
    """Large outputs are first checked on a sample: a miss anywhere still fails, a full match still matches."""
    from grader.judge.compare import matches

    rng = np.random.RandomState(seed)
    e = rng.normal(size=(50, 100))
    a = e + rng.uniform(-5e-6, 5e-6, size=e.shape)
    if bad == 1:
        a.flat[where] += 1e-3  # one element off, most likely outside the sample
    elif bad == 2:
        a.flat[where] = np.nan
    elif bad == 3:
        a = a + 1e-3  # everything off
    score = matches({"": a}, {"": e}, TOL)
    assert (score <= 1.0) == compare(a, e, TOL).ok == (bad == 0)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(data=st.data(), shape=hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=6))
def test_the_finite_fast_path_reports_what_the_general_path_reports(data, shape):
    """A plain wrong answer (all finite) takes fewer array passes; its report must equal the general path's."""
    from grader.judge.compare import _finite_failure, _general_failure
    from grader.results import Comparison

    e = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-1e3, 1e3))).ravel()
    a = e + data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-1e-2, 1e-2))).ravel()
    tol = data.draw(st.sampled_from([Tolerance(1e-4, 1e-4), Tolerance(0.0, 0.0), Tolerance(1e-3, 0.0)]))
    fast, slow = Comparison(ok=False, shape_expected=e.shape), Comparison(ok=False, shape_expected=e.shape)
    bad_fast, worst_fast = _finite_failure(np.abs(a - e), e, tol, fast)
    bad_slow, worst_slow = _general_failure(a, e, tol, slow)
    assert fast == slow and worst_fast == worst_slow and (bad_fast == bad_slow).all()


def test_the_chunked_common_path_gives_the_numbers_of_one_pass(monkeypatch):
    """Large outputs are compared a chunk at a time (a model's logits); the report's numbers do not change."""
    import grader.judge.compare as cmp

    rng = np.random.default_rng(3)
    expected = rng.normal(size=(13, 17)) * 10
    actual = (expected + rng.normal(scale=1e-6, size=expected.shape)).astype(np.float32)
    tol = Tolerance(atol=1e-4, rtol=1e-4)
    whole = cmp.compare(actual, expected, tol)
    monkeypatch.setattr(cmp, "CHUNK", 7)
    chunked = cmp.compare(actual, expected, tol)
    assert whole.ok and chunked.ok
    for field in ("max_abs_error", "max_abs_index", "max_rel_error", "max_rel_index", "headroom"):
        assert getattr(chunked, field) == getattr(whole, field), field


def test_what_a_learner_s_keys_and_text_add_to_a_case_is_bounded() -> None:
    """Red team round 26: 1,024 returned keys of 200 unassigned astral characters each were escaped after the cut
    (ten characters each) and listed, twice, whole: 4.5 million characters in one case's problem, gigabytes of grader
    memory, gradebook and feedback for a course. Escaped text is cut after escaping; a key listing names eight."""
    from grader.run.safetext import MESSAGE_CAP, safe_text

    flood = safe_text("\U000e0080" * 20_000)
    assert len(flood) == MESSAGE_CAP and flood.startswith("\\U000e0080")
    keys = {safe_text(chr(0xE01F0 + i) * 200, 200): np.zeros(1) for i in range(1024)}
    (comparison,) = compare_outputs(keys, {"out": np.zeros(1)}, TOL)
    assert comparison.problem is not None and len(comparison.problem) < 2_000, len(comparison.problem or "")
    assert "(1024 in all)" in comparison.problem and "missing ['out']" in comparison.problem
