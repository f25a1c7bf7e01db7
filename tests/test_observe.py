"""How a function works, beside what it returns: the learner's calls recorded while it runs (grader/run/observe.py)
and judged by the stage's checks.py. The kvcache stage's generator must be a cache: each block fed every position
once, its past growing (issue 13)."""

from __future__ import annotations

import shutil
import sys
import types
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from grader.course import stagecode
from grader.course.load import load_course
from grader.instructor import references
from grader.judge import grade
from grader.results import Status
from grader.run import observe

ROOT = Path(__file__).resolve().parents[1]
# The learner's files are the reference's, as a jail can import them (references.files: the course's
# common modules copied beside it, the learner's names bound): `base` below, ending in
# `run_attention_cached = attention_cached` and `run_generate_cached = generate_cached`.


def CACHED(base: str) -> str:
    return base


def UNCACHED(base: str) -> str:  # right values, no cache: every step runs the whole sequence again, with no past
    return base + """

def run_generate_cached(token_ids, params, n_head, n_new):
    ids = list(np.asarray(token_ids))
    for _ in range(n_new):
        logits, _ = gpt2_cached(np.array(ids), params, n_head, None)
        ids.append(int(np.argmax(logits[-1])))
    return np.array(ids[len(ids) - n_new:], dtype=np.int64)
"""


def INLINED(base: str) -> str:  # the attention written out inside the generator: nothing to observe
    text = base.replace("def attention_cached(", "def _attention(").replace("attention_cached(h,", "_attention(h,")
    return text.replace("run_attention_cached = attention_cached\n", """
def run_attention_cached(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past):
    return _attention(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, past)
""")


def _grade(tmp_path: Path, variant: Callable[[str], str], graded: bool = False,
           function: str = "run_generate_cached"):
    folder = tmp_path / f"submission{len(list(tmp_path.iterdir()))}"
    shutil.copytree(ROOT / "student", folder / "student")
    course = load_course(ROOT)
    stage = course.stage("kvcache")
    for rel, text in references.files(course, stage).items():
        (folder / rel).write_text(variant(text) if rel == stage.student_file else text)
    result = grade.grade_stage(course, stage, grade.Options(root=folder, graded=graded, hidden=not graded))
    return {c.case: c for c in result.cases if c.function == function}


def test_a_cached_generator_passes(tmp_path: Path) -> None:
    cases = _grade(tmp_path, CACHED)
    assert cases and all(c.status is Status.PASS for c in cases.values()), {k: c.message for k, c in cases.items()}


def test_a_declared_tuple_is_not_noted_as_the_wrong_type(tmp_path: Path) -> None:
    cases = _grade(tmp_path, CACHED, function="run_attention_cached")  # returns (out, (k, v)), as declared
    assert cases and all(c.passed and c.returned is None for c in cases.values())


@pytest.mark.parametrize(("text", "said"), [
    pytest.param(UNCACHED, "the sequence is fed again, with no cache", marks=pytest.mark.slow),  # reruns it all
    (INLINED, "never called your run_attention_cached"),
], ids=["uncached", "inlined"])
def test_right_tokens_without_a_working_cache_fail_and_say_why(tmp_path: Path, text: Callable[[str], str],
                                                              said: str) -> None:
    cases = _grade(tmp_path, text)
    for case in cases.values():
        assert case.status is Status.FAIL
        problems = " ".join(c.problem or "" for c in case.comparisons)
        assert said in problems, problems
        assert all(c.ok for c in case.comparisons if c.problem is None)  # the tokens themselves were right


@pytest.mark.slow
def test_the_jail_records_the_calls_too(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    assert all(c.status is Status.PASS for c in _grade(tmp_path, CACHED, graded=True).values())
    assert all(c.status is Status.FAIL for c in _grade(tmp_path, UNCACHED, graded=True).values())


def test_observed_calls_are_shapes_wherever_the_learner_holds_the_function(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("student.fake_observed")
    exec("def attend(x, past=None):\n    return x, (x, x)\n\nalias = attend\n\n"
         "def outer(x):\n    return alias(attend(x)[0], past=None)\n", module.__dict__)
    monkeypatch.setitem(sys.modules, "student.fake_observed", module)
    original = module.attend
    record, restore = observe.install((("student.fake_observed", "attend"),))
    assert module.alias is not original and module.attend is not original
    module.outer(np.zeros((2, 3), dtype=np.float32))
    restore()
    assert module.attend is original and module.alias is original
    returned = [{"shape": [2, 3]}, [{"shape": [2, 3]}, {"shape": [2, 3]}]]
    assert record == [{"function": "attend", "args": {"x": {"shape": [2, 3]}}, "returned": returned},
                      {"function": "attend", "args": {"x": {"shape": [2, 3]}, "past": None}, "returned": returned}]
    assert observe.summary({"a": 1}) == {"type": "dict"} and observe.summary(None) is None


def _call(new: int, past: int | None, present: int | None = None) -> dict:
    k = None if past is None else [{"shape": [4, past, 8]}, {"shape": [4, past, 8]}]
    held = (past or 0) + new if present is None else present
    return {"function": "run_attention_cached", "args": {"x": {"shape": [new, 32]}, "past": k},
            "returned": [{"shape": [new, 32]}, [{"shape": [4, held, 8]}, {"shape": [4, held, 8]}]]}


@pytest.mark.parametrize(("calls", "said"), [
    ([_call(3, None), _call(3, None), _call(1, 3), _call(1, 3)], None),
    ([_call(3, None), _call(3, None), _call(1, 3), _call(1, 3), _call(1, 4), _call(1, 4)], None),  # the last fed too
    ([_call(1, None), _call(1, None), _call(1, 1), _call(1, 1), _call(1, 2), _call(1, 2), _call(1, 3), _call(1, 3),
      _call(1, 4), _call(1, 4)], None),  # the prompt fed a token at a time: still each position once
    ([_call(3, None), _call(3, None), _call(1, 3), _call(1, 3), _call(1, 3), _call(1, 3), _call(1, 3), _call(1, 3)],
     "step 3, block 0: run_attention_cached got a past of 3 positions, but 4 had gone through"),
    ([_call(3, None), _call(3, None), _call(1, 3, present=1), _call(1, 3)], "the present run_attention_cached returned "
     "holds 1 positions; with a past of 3 and 1 new ones it must hold 4"),
    ([_call(3, None)], "not a whole number of forward passes through the model's 2 blocks"),
    ([_call(3, None), _call(3, None), _call(1, 3), _call(1, 3), _call(1, 4), _call(1, 4), _call(1, 5), _call(1, 5)],
     "each block was fed 6 positions in all, more than the 5 tokens"),
    ([{"function": "run_attention_cached", "args": "nonsense"}, {"function": "run_attention_cached"}],
     "could not read the shape of x or of past"),  # round 5: an unreadable record no longer passes
    ([{**_call(3, None), "args": {"x": {"shape": [3, 32]}, "past": []}},
      {**_call(3, None), "args": {"x": {"shape": [3, 32]}, "past": []}}, _call(3, None), _call(3, None)],
     "step 2, block 0: run_attention_cached got 3 positions and no past"),  # round 5: past=() and no cache
    ([{**_call(3, None), "args": {"x": {"shape": [3, 32]}, "past": [None, None]}},
      {**_call(3, None), "args": {"x": {"shape": [3, 32]}, "past": [None, None]}}, _call(1, 3), _call(1, 3)],
     None),  # red team round 4: each block's cache started as (None, None), an empty pair
    ([{**_call(3, None), "args": {"x": {"shape": [3, 32]}, "past": [None, None]}},
      {**_call(3, None), "args": {"x": {"shape": [3, 32]}, "past": [None, None]}}, _call(4, None), _call(4, None)],
     "step 2, block 0: run_attention_cached got 4 positions and no past"),
], ids=["prompt_then_one_by_one", "last_token_fed_too", "prompt_in_pieces", "stale_past", "short_present",
        "not_per_block", "too_many", "unreadable_record_fails", "empty_tuple_past_no_cache", "empty_pair_past",
        "empty_pair_then_no_cache"])
def test_the_cache_check_reads_the_record(calls: list, said: str | None) -> None:
    check = stagecode.function(load_course(ROOT).stage("kvcache"), "checks.py", "is_a_cache")
    params = {f"h.{i}.ln_1.weight": None for i in range(2)}
    reason = check(calls, np.zeros(3, dtype=np.int64), params, 4, 2)
    assert (reason is None) if said is None else (said in reason), reason


def test_a_check_s_reason_quoting_the_record_is_made_safe_text() -> None:
    """Round 3 of the red team: the record is the learner's to write, and a reason may quote it."""
    from grader.judge import verdict
    from grader.results import CaseResult

    stage = load_course(ROOT).stage("kvcache")
    result = CaseResult(stage="kvcache", case="c", function="run_generate_cached", status=Status.FAIL)
    calls = [{"function": "run_attention_cached", "args": {"x": {"shape": [3, 8]}, "past": None}},
             {"function": "run_attention_cached",
              "args": {"x": {"shape": ["\x1b[2J\x1b[HPASS 40/40", 8]}, "past": None}}]
    params = {"h.0.ln_1.weight": np.zeros(1)}
    verdict._observed(stage, "is_a_cache", {"token_ids": np.zeros(3, dtype=np.int64), "params": params,
                                            "n_head": 4, "n_new": 2}, calls, result)
    problems = " ".join(c.problem or "" for c in result.comparisons)
    assert "PASS 40/40" in problems and "\x1b" not in problems  # quoted, escaped


def test_a_call_the_function_makes_of_itself_is_part_of_the_outer_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team round 3: a correct cache whose past=None case calls itself with an empty cache was counted twice."""
    module = types.ModuleType("student.fake_recursive")
    exec("def attend(x, past=None):\n    if past is None:\n        return attend(x, past=0)\n    return x\n",
         module.__dict__)
    monkeypatch.setitem(sys.modules, "student.fake_recursive", module)
    record, restore = observe.install((("student.fake_recursive", "attend"),))
    module.attend(np.zeros((2, 3)))
    restore()
    assert [c["args"] for c in record] == [{"x": {"shape": [2, 3]}}]


def test_a_function_held_as_a_default_argument_or_in_a_closure_is_observed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team round 3 (dave): `gpt2_cached(..., attend=run_attention_cached)` bound the function at definition time,
    so calls through the default never reached the wrapper and a correct cache was failed as "never called"."""
    module = types.ModuleType("student.fake_bound")
    exec("def attend(x, past=None):\n    return x\n\n"
         "def by_default(x, f=attend):\n    return f(x)\n\n"
         "def by_keyword(x, *, f=attend):\n    return f(x)\n\n"
         "def make():\n    g = attend\n    def inner(x):\n        return g(x)\n    return inner\n\n"
         "by_closure = make()\n\n"
         "class Model:\n    def step(self, x, f=attend):\n        return f(x)\n", module.__dict__)
    monkeypatch.setitem(sys.modules, "student.fake_bound", module)
    original = module.attend
    record, restore = observe.install((("student.fake_bound", "attend"),))
    x = np.zeros((2, 3))
    module.by_default(x), module.by_keyword(x), module.by_closure(x), module.Model().step(x)
    restore()
    assert len(record) == 4, record
    assert module.by_default.__defaults__ == (original,) and module.by_keyword.__kwdefaults__ == {"f": original}
    assert module.by_closure.__closure__[0].cell_contents is original
    assert module.Model.step.__defaults__ == (original,)
