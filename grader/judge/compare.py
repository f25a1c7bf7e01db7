"""Shape and finiteness first, then |actual - expected| <= atol + rtol * |expected| elementwise; and fingerprints.

Written by hand rather than calling numpy.testing or torch.testing: both raise with prose (numpy's wording changes
between releases and prints a 1-ULP float32 miss as `1.` vs `1.`), while the grader needs the numbers as data: the
worst element, its index and input, the share of the tolerance used, the first mismatches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

from grader.course import Tolerance
from grader.results import Comparison, Mismatch

FIRST = 5  # mismatches listed


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def _shape_hint(actual: tuple[int, ...], expected: tuple[int, ...]) -> str:
    if actual == expected[::-1] and len(actual) > 1:
        return " It looks transposed."
    if tuple(d for d in actual if d != 1) == tuple(d for d in expected if d != 1):
        return " Only size-1 axes differ: check for a stray keepdims, [None] or squeeze."
    if int(np.prod(actual)) == int(np.prod(expected)):
        return " Same number of elements: an axis in the wrong place, or a reshape?"
    return ""


def compare(actual: np.ndarray, expected: np.ndarray, tol: Tolerance, key: str | None = None,
            inputs: np.ndarray | None = None) -> Comparison:
    """Compare one output with its expected array; `inputs` (same shape) is reported at mismatches."""
    a_shape, e_shape = tuple(actual.shape), tuple(expected.shape)
    result = Comparison(ok=False, key=key, shape_actual=a_shape, shape_expected=e_shape, total=int(expected.size))
    if expected.dtype.kind == "U":
        return _compare_text(actual, expected, result)
    if actual.dtype.kind == "c":
        result.problem = f"returned complex numbers ({actual.dtype}); the answer is real"
        return result
    if actual.dtype.kind not in "biuf":
        result.problem = f"returned values of type {actual.dtype}; expected numbers"
        return result
    if a_shape != e_shape:
        result.problem = (f"shape {list(a_shape)} but expected {list(e_shape)}."
                          f"{_shape_hint(a_shape, e_shape)}")
        return result
    if _all_within(actual.ravel(), np.asarray(expected).ravel(), tol, result):
        return result
    a = actual.astype(np.float64).ravel()
    e = np.asarray(expected, dtype=np.float64).ravel()
    flat_in = inputs.ravel() if inputs is not None and inputs.shape == expected.shape else None

    def point(i: int) -> Mismatch:
        x = float(flat_in[i]) if flat_in is not None else None
        return Mismatch(index=_index(i, e_shape), actual=float(a[i]), expected=float(e[i]), input=x)

    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(a - e)
    if np.isfinite(err).all():  # a plain wrong answer: every value finite, fewer passes over the arrays
        bad, worst = _finite_failure(err, e, tol, result)
    else:
        bad, worst = _general_failure(a, e, tol, result)
    if a.size:
        result.worst = point(worst)
        result.first = [point(int(i)) for i in np.flatnonzero(bad)[:FIRST]]
    return result


def _compare_text(actual: np.ndarray, expected: np.ndarray, result: Comparison) -> Comparison:
    """Text compared exactly; a difference is shown where it starts, with a little context on each side."""
    if actual.dtype.kind != "U" or actual.shape != ():
        result.problem = f"returned {actual.dtype} values of shape {list(actual.shape)}; expected text (a str)"
        return result
    a, e = str(actual), str(expected)
    if a == e:
        result.ok, result.headroom = True, 0.0
        return result
    at = next((i for i, (x, y) in enumerate(zip(a, e, strict=False)) if x != y), min(len(a), len(e)))
    lo = max(0, at - 20)
    result.mismatched = 1
    result.problem = (f"text differs from character {at} on (of {len(e)} expected, {len(a)} returned): "
                      f"expected {e[lo:at + 20]!r}, got {a[lo:at + 20]!r}")
    return result


def _general_failure(a: np.ndarray, e: np.ndarray, tol: Tolerance, result: Comparison) -> tuple[np.ndarray, int]:
    """The report of any output, non-finite values included; returns the mismatch mask and the worst index."""
    shape = result.shape_expected or ()
    worst = 0
    with np.errstate(invalid="ignore", over="ignore"):
        both_finite = np.isfinite(a) & np.isfinite(e)
        same_special = ~both_finite & ((np.isnan(a) & np.isnan(e)) | (a == e))
        err = np.where(both_finite, np.abs(a - e), 0.0)
        allowed = tol.atol + tol.rtol * np.abs(np.where(both_finite, e, 0.0))
        bad = (both_finite & (err > allowed)) | (~both_finite & ~same_special)
        ratio = np.where(err == 0, 0.0, np.divide(err, allowed, out=np.full_like(err, np.inf), where=allowed > 0))
        rel = np.divide(err, np.abs(e), out=np.where(err == 0, 0.0, np.inf), where=both_finite & (e != 0))
    result.mismatched = int(bad.sum())
    result.nonfinite = int((~np.isfinite(a) & ~same_special).sum())
    result.ok = result.mismatched == 0
    if a.size == 0:
        result.headroom = 0.0
        return bad, worst
    if both_finite.any():
        i_abs = int(np.argmax(np.where(both_finite, err, -1.0)))
        result.max_abs_error, result.max_abs_index = float(err[i_abs]), _index(i_abs, shape)
        i_rel = int(np.argmax(np.where(both_finite, rel, -1.0)))
        result.max_rel_error, result.max_rel_index = float(rel[i_rel]), _index(i_rel, shape)
        finite_ratio = np.where(both_finite, ratio, -1.0)
        result.headroom = float(finite_ratio.max())
        worst = int(np.argmax(finite_ratio))
    if result.nonfinite or not both_finite.any():
        worst = int(np.argmax(bad)) if bad.any() else 0
        result.headroom = float("inf") if bad.any() else (result.headroom or 0.0)
    return bad, worst


def _finite_failure(err: np.ndarray, e: np.ndarray, tol: Tolerance, result: Comparison) -> tuple[np.ndarray, int]:
    """The report of an output whose every error is finite; returns the mismatch mask and the worst index."""
    shape = result.shape_expected or ()
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        allowed = tol.atol + tol.rtol * np.abs(e)
        bad = err > allowed
        ratio = np.divide(err, allowed, out=np.full_like(err, np.inf), where=allowed > 0)
        ratio[err == 0] = 0.0
        rel = np.divide(err, np.abs(e), out=np.where(err == 0, 0.0, np.inf), where=e != 0)
    result.mismatched, result.nonfinite = int(bad.sum()), 0
    result.ok = result.mismatched == 0
    i_abs, i_rel, worst = int(np.argmax(err)), int(np.argmax(rel)), int(np.argmax(ratio))
    result.max_abs_error, result.max_abs_index = float(err[i_abs]), _index(i_abs, shape)
    result.max_rel_error, result.max_rel_index = float(rel[i_rel]), _index(i_rel, shape)
    result.headroom = float(ratio[worst])
    return bad, worst


# Elements compared at a time on the common path: three float64 temporaries of 2 MB each stay in the caches between
# the passes (1 << 20 was 1.7x slower on [256, 50257] logits: every pass went to memory; 1 << 16 is no faster)
CHUNK = 1 << 18


def _all_within(a: np.ndarray, e: np.ndarray, tol: Tolerance, result: Comparison) -> bool:
    """The common case: every element finite and within tolerance. Fills `result` if so.

    Compared a chunk at a time, so a model's logits ([256, 50257] float64, 100 MB) cost no more than 6 MB of
    temporaries; the same numbers as one pass over the whole array. Kept to few passes over memory, in place: on a
    model's logits this is most of the grader's own work. Anything unusual (a non-finite value, an element at or
    past its allowance, a zero allowance) is left to the exact path, which decides.
    """
    if a.size == 0:
        result.ok, result.headroom = True, 0.0
        return True
    abs_err, abs_at, rel_err, rel_at, worst = -1.0, 0, -1.0, 0, -1.0
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for start in range(0, a.size, CHUNK):
            y = np.asarray(e[start:start + CHUNK], dtype=np.float64)  # a view when already float64
            err = a[start:start + CHUNK].astype(np.float64)
            np.subtract(err, y, out=err)
            np.abs(err, out=err)
            size = np.abs(y)
            ratio = size * tol.rtol
            ratio += tol.atol  # the allowance, atol + rtol * |e| ...
            np.divide(err, ratio, out=ratio)  # ... and each error's share of it
            top = float(ratio.max())  # NaN (a non-finite value, 0/0) and inf fail `< 1` too
            if not top < 1.0:
                return False
            worst = max(worst, top)
            i = int(np.argmax(err))
            if err[i] > abs_err:
                abs_err, abs_at = float(err[i]), start + i
            np.divide(err, size, out=size, where=size != 0)  # relative errors; 0 where e is 0, as the exact path says
            i = int(np.argmax(size))
            if size[i] > rel_err:
                rel_err, rel_at = float(size[i]), start + i
    shape = result.shape_expected or ()
    result.ok = True
    result.max_abs_error, result.max_abs_index = abs_err, _index(abs_at, shape)
    result.max_rel_error, result.max_rel_index = rel_err, _index(rel_at, shape)
    result.headroom = worst
    return True


def compare_outputs(actual: dict[str, np.ndarray], expected: dict[str, np.ndarray], tol: Tolerance,
                    inputs: np.ndarray | None = None) -> list[Comparison]:
    """Compare every named output; keys are checked both ways before any value."""
    if set(actual) != set(expected):
        missing, extra = sorted(set(expected) - set(actual)), sorted(set(actual) - set(expected))
        problem = f"returned the keys {_some(sorted(actual))}; expected {_some(sorted(expected))}"
        problem += f" (missing {_some(missing)})" if missing else ""
        problem += f" (unexpected {_some(extra)})" if extra else ""
        return [Comparison(ok=False, problem=problem)]
    return [compare(actual[k], expected[k], tol, key=k or None, inputs=inputs) for k in expected]


def _some(keys: list[str], shown: int = 8) -> str:
    """At most `shown` keys, each cut to 60 characters: a learner's function may return 1,024 keys of 200 (round 26)."""
    listed = repr([k if len(k) <= 60 else k[:57] + "..." for k in keys[:shown]])
    return listed if len(keys) <= shown else f"{listed[:-1]}, ... ({len(keys)} in all)]"


def matches(actual: dict[str, np.ndarray], other: dict[str, np.ndarray], tol: Tolerance) -> float:
    """How closely `actual` follows `other`: its largest error / allowed (<= 1 is a match), inf when it cannot.

    Only a number, never a report: it runs once per known mistake on every failing case, so it stops early.
    """
    if set(actual) != set(other):
        return float("inf")
    worst = 0.0
    for key, b in other.items():
        a = actual[key]
        if b.dtype.kind == "U" or a.dtype.kind == "U":
            if not (a.dtype.kind == b.dtype.kind == "U" and a.shape == b.shape and bool((a == b).all())):
                return float("inf")
            continue
        if a.shape != b.shape or a.dtype.kind not in "biuf":
            return float("inf")
        a64, b64 = a.astype(np.float64, copy=False).ravel(), np.asarray(b, dtype=np.float64).ravel()
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            if a64.size > 4 * SAMPLE and not _sample_within(a64, b64, tol):
                return float("inf")  # most known mistakes are ruled out by a few hundred elements
            err = np.abs(a64 - b64)
            allowed = tol.atol + tol.rtol * np.abs(b64)
            within = (err <= allowed) & np.isfinite(err)  # an infinite expected value allows nothing but itself
            if not within.all():
                same_special = (np.isnan(a64) & np.isnan(b64)) | (~np.isfinite(b64) & (a64 == b64))
                if not (within | same_special).all():
                    return float("inf")
                err = np.where(same_special, 0.0, err)
            ratio = np.divide(err, allowed, out=np.zeros_like(err), where=allowed > 0)
        if ratio.size:
            worst = max(worst, float(ratio.max()))
    return worst


D = TypeVar("D")  # whatever names a known mistake (a course Decoy)
SAMPLE = 256  # elements a decoy match looks at first


def _sample_within(a: np.ndarray, b: np.ndarray, tol: Tolerance) -> bool:
    """Whether an evenly spread sample of the elements is within tolerance (or equally non-finite)."""
    step = a.size // SAMPLE
    x, y = a[::step], b[::step]
    err = np.abs(x - y)
    same_special = (np.isnan(x) & np.isnan(y)) | (~np.isfinite(y) & (x == y))
    return bool((((err <= tol.atol + tol.rtol * np.abs(y)) & np.isfinite(err)) | same_special).all())


def fingerprint(actual: dict[str, np.ndarray], decoys: list[tuple[D, Callable[[], dict[str, np.ndarray]]]],
                tol: Tolerance, cancel: Callable[[], bool] | None = None) -> D | None:
    """The decoy whose output the learner's matches most closely within the tolerance, if any."""
    best: D | None = None
    best_score = 1.0
    for decoy, produce in decoys:
        if cancel is not None and cancel():
            return None  # a newer save: this grade will not be shown
        try:
            score = matches(actual, produce(), tol)
        except Exception:  # a decoy that cannot run on this case simply does not match  # noqa: BLE001
            continue
        if score <= best_score:
            best, best_score = decoy, score
    return best
