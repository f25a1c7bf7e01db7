"""The comparator under hypothesis (issue 6): any shape, any dtype, NaN/inf anywhere, empty and zero-size arrays.

Every verdict (ok, the count of mismatched and of non-finite elements, the problem for a wrong dtype or shape)
must match a slow reference that looks at one Python value at a time, and no input may raise. The expected side
is what fixtures hold (float64, occasionally float32); the actual side is anything a learner could return.
"""

from __future__ import annotations

import math

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.course import Tolerance
from grader.judge.compare import compare, compare_outputs

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ACTUAL_DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint64", "bool",
                 "complex64", "complex128"]
shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)
tolerances = st.builds(Tolerance, atol=st.sampled_from([0.0, 1e-8, 1e-5, 1e-2, 1.0, 1e300]),
                       rtol=st.sampled_from([0.0, 1e-6, 1e-3, 0.5, 1e300]))
specials = st.sampled_from([0.0, -0.0, 1.0, -1.0, math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324,
                            65504.0, 1e-7])


def reference(actual: np.ndarray, expected: np.ndarray, tol: Tolerance) -> tuple[bool, int, int, str | None]:
    """(ok, mismatched, nonfinite, kind of problem), one element at a time with Python floats."""
    if actual.dtype.kind == "c":
        return False, 0, 0, "complex"
    if actual.dtype.kind not in "biuf":
        return False, 0, 0, "type"
    if actual.shape != expected.shape:
        return False, 0, 0, "shape"
    bad = nonfinite = 0
    for x, y in zip(actual.ravel().tolist(), expected.ravel().tolist(), strict=True):
        x, y = float(x), float(y)
        if math.isfinite(x) and math.isfinite(y):
            err = abs(x - y)
            bad += err > tol.atol + tol.rtol * abs(y)
            continue
        same = (math.isnan(x) and math.isnan(y)) or x == y
        bad += not same
        nonfinite += not math.isfinite(x) and not same
    return bad == 0, bad, nonfinite, None


def _kind(problem: str | None) -> str | None:
    if problem is None:
        return None
    return "complex" if "complex" in problem else "shape" if "shape" in problem else "type"


def check(actual: np.ndarray, expected: np.ndarray, tol: Tolerance) -> None:
    with np.errstate(all="ignore"):
        want_ok, want_bad, want_nonfinite, want_problem = reference(actual, expected, tol)
    got = compare(actual, expected, tol)
    assert _kind(got.problem) == want_problem, got.problem
    assert got.ok == want_ok
    if want_problem is None:
        assert (got.mismatched, got.nonfinite) == (want_bad, want_nonfinite)
        assert got.total == expected.size
        if got.ok:  # a pass uses at most all of the tolerance
            assert got.headroom is None or got.headroom <= 1 or expected.size == 0, got.headroom
        for m in got.first:
            assert len(m.index) == expected.ndim


@st.composite
def pairs(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    shape = draw(shapes)
    e_dtype = draw(st.sampled_from(["float64", "float64", "float32"]))
    elements = st.one_of(specials, st.floats(allow_nan=True, allow_infinity=True, width=64 if e_dtype ==
                                             "float64" else 32))
    expected = draw(hnp.arrays(e_dtype, shape, elements=elements))
    how = draw(st.sampled_from(["copy", "noise", "cast", "other", "reshape", "special"]))
    a_dtype = draw(st.sampled_from(ACTUAL_DTYPES))
    with np.errstate(all="ignore"):
        if how == "copy":
            actual = expected.copy()
        elif how == "noise":
            actual = expected + draw(hnp.arrays("float64", shape, elements=st.floats(-1e-3, 1e-3)))
        elif how == "cast":
            actual = expected.astype(a_dtype)
        elif how == "other":
            actual = draw(hnp.arrays(a_dtype, shape))
        elif how == "reshape":
            actual = draw(hnp.arrays(a_dtype, draw(shapes)))
        else:
            actual = expected.copy()
            if actual.size:
                flat = actual.reshape(-1)
                flat[draw(st.integers(0, actual.size - 1))] = draw(specials)
    return actual, expected


@pytest.mark.slow
@SETTINGS
@given(pair=pairs(), tol=tolerances)
def test_verdict_matches_a_slow_reference_for_any_dtype_shape_and_values(pair, tol):
    check(*pair, tol)


@pytest.mark.slow
@SETTINGS
@given(shape=shapes, dtype=st.sampled_from(["float16", "float32", "float64"]), tol=tolerances,
       where=st.data())
def test_nan_and_inf_anywhere(shape, dtype, tol, where):
    expected = np.zeros(shape)
    actual = np.zeros(shape, dtype=dtype)
    for arr in (expected, actual):
        if arr.size:
            for _ in range(where.draw(st.integers(0, 3))):
                arr.reshape(-1)[where.draw(st.integers(0, arr.size - 1))] = where.draw(
                    st.sampled_from([math.nan, math.inf, -math.inf]))
    check(actual, expected, tol)


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 0, 2), ()])
def test_empty_and_zero_size_arrays(shape):
    e = np.zeros(shape)
    c = compare(np.zeros(shape, dtype=np.float32), e, Tolerance(0.0, 0.0))
    assert c.ok == True and c.mismatched == 0  # noqa: E712 - exactly True, not truthy
    assert not compare(np.zeros((1, *shape)), e, Tolerance(1.0, 1.0)).ok


def test_object_and_text_arrays_are_refused_not_raised():
    e = np.zeros(2)
    for actual in (np.array([1.0, "x"], dtype=object), np.array(["a", "b"]), np.zeros(2, dtype="V8"),
                   np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]")):
        c = compare(actual, e, Tolerance(1.0, 1.0))
        assert not c.ok and c.problem


@pytest.mark.slow
@SETTINGS
@given(keys_a=st.sets(st.sampled_from(["", "a", "b", "c.weight"]), max_size=3),
       keys_e=st.sets(st.sampled_from(["", "a", "b", "c.weight"]), min_size=1, max_size=3))
def test_dict_outputs_any_key_sets(keys_a, keys_e):
    actual = {k: np.zeros(2) for k in keys_a}
    expected = {k: np.zeros(2) for k in keys_e}
    comps = compare_outputs(actual, expected, Tolerance(0.0, 0.0))
    assert all(c.ok for c in comps) == (keys_a == keys_e)
