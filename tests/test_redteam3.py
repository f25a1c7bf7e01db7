"""The third red team's breaks of graded mode (tests/hostile/redteam/round3-findings.md), each now a test.

Break 1 (escapes through the observe record) and 2 (a correct cache failing the check) are tested in
test_observe.py; this file holds break 3 (the jail's copy of common/gpt2.py), 4 (hidden ids: learners see "hidden N")
and 5 (flock between jails).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GRADED_FLAGS, ROOT, UNSANDBOXED, linked_course

from grader import fixtures
from grader.course import Course, commoncut, load_course
from grader.errors import CourseError
from grader.instructor import batch, cohort, feedback, references, submissions, upstream
from grader.instructor.gradebook import Gradebook
from grader.judge import loops
from grader.report import gradescope, html, junit
from grader.report import json as json_report
from grader.report import text as text_report
from grader.results import CaseResult, Report, StageResult, Status, without_hidden_values
from grader.run import jail

WHY_NOT = jail.unavailable()
needs_jail = pytest.mark.skipif(WHY_NOT is not None or bool(GRADED_FLAGS),
                                reason=f"no jail on this machine: {WHY_NOT}")
ROUND3 = ROOT / "tests" / "hostile" / "redteam" / "round3"


# --- 3. the jail's copy of a common module holds only what the upstream references reach ------------------------


def course_with(tmp_path: Path, common: dict[str, str], reference: str) -> Path:
    (tmp_path / "common").mkdir(parents=True)
    for name, text in common.items():
        (tmp_path / "common" / f"{name}.py").write_text(text)
    (tmp_path / "reference.py").write_text(reference)
    return tmp_path


MODEL = '''"""A model."""

import math

import numpy as np

SCALE = 2.0


def helper(x):
    return x * SCALE


def piece(x):  # an earlier stage's
    return np.tanh(helper(x))


def later(x):  # the stage being graded: must not be shipped
    return piece(x) + math.pi


@staticmethod
def decorated(x):
    return x
'''


def test_a_common_module_is_cut_to_the_definitions_the_reference_reaches(tmp_path: Path) -> None:
    root = course_with(tmp_path, {"model": MODEL}, "from common.model import piece\n")
    text = commoncut.cut(root, [root / "reference.py"])["model"]
    assert "def piece" in text and "def helper" in text and "SCALE = 2.0" in text and "import numpy" in text
    assert "def later" not in text and "def decorated" not in text and "import math" not in text
    namespace: dict[str, object] = {}
    exec(compile(text, "model", "exec"), namespace)  # the cut runs on its own
    assert namespace["piece"](0.0) == 0.0  # type: ignore[operator]


def test_the_cut_follows_one_common_module_into_another(tmp_path: Path) -> None:
    uses = "from common.model import piece\n\n\ndef check(x):\n    return piece(x)\n\n\ndef unused():\n    pass\n"
    root = course_with(tmp_path, {"model": MODEL, "uses": uses}, "from common import uses\n\nuses.check(1)\n")
    cut = commoncut.cut(root, [root / "reference.py"])
    assert list(cut) == ["model", "uses"]  # each after the modules it imports
    assert "def check" in cut["uses"] and "def unused" not in cut["uses"]
    assert "def piece" in cut["model"] and "def later" not in cut["model"]


def test_a_module_used_in_ways_a_reading_cannot_follow_is_kept_whole(tmp_path: Path) -> None:
    opaque = MODEL + "\n\ndef by_name(name):\n    return globals()[name]\n"
    root = course_with(tmp_path, {"model": opaque}, "from common.model import by_name\n")
    assert "def later" in commoncut.cut(root, [root / "reference.py"])["model"]
    root2 = course_with(tmp_path / "b", {"model": MODEL}, "import common.model as m\n\nf = m\n")
    assert "def later" in commoncut.cut(root2, [root2 / "reference.py"])["model"]  # passed around: all of it


def test_a_missing_common_module_is_named(tmp_path: Path) -> None:
    root = course_with(tmp_path, {}, "from common.nothere import f\n")
    with pytest.raises(CourseError, match=r"common\.nothere, but there is no .*nothere\.py"):
        commoncut.cut(root, [root / "reference.py"])


def test_no_stage_jail_holds_the_common_code_that_solves_it() -> None:
    """The course's own stages: common/gpt2.py's piece for a stage is in no jail grading that stage."""
    course = load_course(ROOT)
    for stage in course.stages:
        deps = [course.stage(d) for d in upstream.earlier(course, stage)]
        if not deps:
            continue
        shipped = "".join(t for rel, t in references.files(course, *deps).items()
                          if references.COMMON_COPY in rel)
        assert "def gpt2(" not in shipped or stage.id in ("generate", "kvcache"), stage.id
        if stage.id in ("mlp", "attention", "block"):
            assert "def transformer_block(" not in shipped, stage.id
        if stage.id == "mlp":
            assert "def ffn(" not in shipped
        if stage.id == "attention":
            assert "def mha(" not in shipped


@needs_jail
@pytest.mark.parametrize("stage_id", ["mlp", "block"])
def test_a_learner_who_calls_the_jails_common_copy_solves_nothing(stage_id: str, tmp_path: Path) -> None:
    root = linked_course(tmp_path / "course")
    lazy = (ROUND3 / f"lazy_{stage_id}.py").read_text()
    sub = tmp_path / "subs" / "lazy" / "student"
    sub.mkdir(parents=True)
    (sub / "__init__.py").write_text("")
    (sub / f"{stage_id}.py").write_text(lazy)
    course = load_course(root)
    found = next(iter(submissions.discover(tmp_path / "subs")))
    entry = batch.grade_submission(course, found, "digest", batch.BatchOptions(stages=(stage_id,)))
    assert entry.report is not None, entry.message
    result = entry.report.stages[0]
    assert not result.passed and not any(c.passed for c in result.cases), [(c.case, c.message[:200])
                                                                            for c in result.cases]
    assert any("_course_common_gpt2" in c.message for c in result.cases), [c.message[:300] for c in result.cases]


# --- 4. hidden cases' ids, which may spell their inputs, reach no learner: "hidden 1", "hidden 2" ----------------

TELLING = "hidden_x_is_five_uniform_seed_8"  # an id that describes its case's inputs, as the course's used to


def mini_with_a_telling_id(mini: Course) -> Course:
    """The mini course's `double` with a second hidden case, named after its inputs, before 'secret' in stage.yaml."""
    yaml = mini.stage("double").file
    text = yaml.read_text()
    yaml.write_text(text.replace("  - id: random\n", f"""  - id: {TELLING}
    visibility: hidden
    inputs:
      x: {{random: uniform, shape: [5], low: -3, high: 3, seed: 9, dtype: float32}}
  - id: random
""", 1))
    course = load_course(mini.root)
    fixtures.build(course, course.stage("double"))
    return course


def test_a_graded_submission_shows_learners_hidden_numbers_and_instructors_hidden_ids(mini: Course,
                                                                                      tmp_path: Path) -> None:
    course = mini_with_a_telling_id(mini)
    assert [c.id for c in course.stage("double").cases if c.hidden] == [TELLING, "secret"]
    sub = tmp_path / "subs" / "ann" / "student"
    sub.mkdir(parents=True)
    (sub / "double.py").write_text("def run_double(x):\n    return x + 2\n")  # plus_two on every case
    with Gradebook(tmp_path / "gb.sqlite", course.title) as book:
        done = batch.run(course, tmp_path / "subs", book, batch.BatchOptions(stages=("double",),
                                                                             unsandboxed=UNSANDBOXED))
        assert done.graded == 1
        stored = book.report("ann")
        assert stored is not None
        learner = {  # what a learner reads: feedback, results.json (autograde writes it), the reports of a grade
            "feedback": feedback.for_learner(course, book, "ann"),
            "results.json": json.dumps(gradescope.results(stored)),
            "json": json_report.render(stored), "junit": junit.render(stored), "text": text_report.render(stored)}
        instructor = {"gradebook": " ".join(c.case for c in book.cases()),
                      "report": cohort.render_text(cohort.build(course, book)),
                      "report --html": html.render(cohort.build(course, book))}
    for name, shown in learner.items():
        assert TELLING not in shown and "secret" not in shown, f"{name} names a hidden case by its id:\n{shown}"
        assert "hidden 1" in shown and "hidden 2" in shown, name
    names = [t["name"] for t in json.loads(learner["results.json"])["tests"]]
    assert names == ["double: small", "double: hidden 1", "double: random", "double: hidden 2"]  # stage.yaml order
    assert "plus_two" in learner["feedback"]  # a hidden case still shows its verdict and named mistake
    for name, shown in instructor.items():  # the instructor fixes cases by their ids
        assert TELLING in shown and "secret" in shown, f"{name} lost the hidden ids:\n{shown}"


def test_the_courses_hidden_ids_are_the_numbers_learners_see() -> None:
    """The course's hidden ids describe nothing, and a learner's "hidden 2" is the case `hidden_2` of its stage."""
    for stage in load_course(ROOT).stages:
        hidden = [c.id for c in stage.cases if c.hidden]
        assert hidden == [f"hidden_{n}" for n in range(1, len(hidden) + 1)], stage.id


def test_a_timeout_on_a_hidden_case_never_shows_under_a_later_stage() -> None:
    """A later stage whose file imports a module that looped on a hidden case runs as usual: saying why its public
    cases did not run would tell the learner that hidden case timed out (red team round 4, break 10), where every
    hidden failure shows as FAIL. A public case's timeout still stops them, named."""
    looped = CaseResult("double", TELLING, "run_double", Status.TIMEOUT, hidden=True, hidden_number=2,
                        where="student/double.py:2  while True:")
    result = without_hidden_values(StageResult("double", "Double", [looped], student_file="student/double.py"))
    assert loops.stuck(result) == {}
    public = CaseResult("double", "small", "run_double", Status.TIMEOUT, where="student/double.py:2  while True:")
    result = StageResult("double", "Double", [public], student_file="student/double.py")
    assert loops.stuck(result) == {"student.double": "run_double timed out on case 'small' of stage 'double'"}


def test_old_gradebook_rows_number_their_hidden_cases_by_their_order() -> None:
    """A report stored before hidden cases were numbered (no hidden_number) still never shows their ids."""
    cases = [CaseResult("double", "small", "run_double", Status.PASS),
             CaseResult("double", TELLING, "run_double", Status.FAIL, hidden=True),
             CaseResult("double", "secret", "run_double", Status.PASS, hidden=True)]
    shown = text_report.render(Report("c", [StageResult("double", "Double", cases)]), verbose=True)
    assert TELLING not in shown and "secret" not in shown
    assert "hidden 1  does not match" in shown and "hidden 2  passes" in shown, shown


# --- round 4 (tests/hostile/redteam/round4-findings.md) -----------------------------------------------------------


def test_bidirectional_overrides_from_a_submission_are_escaped() -> None:
    """U+202E and the isolates reorder what a terminal or browser shows after them: a forged line."""
    from grader.run.protocol import safe_text

    shown = safe_text("ok \u202eSSAP\u202c \u2066x\u2069 \x1b[2J\nnext\tline")
    assert shown == "ok \\u202eSSAP\\u202c \\u2066x\\u2069 \\x1b[2J\nnext\tline"


def test_a_learner_is_told_while_self_paced_of_an_import_graded_runs_lack(tmp_path: Path) -> None:
    """Round 4, break 7: a correct conv1d written with torch scored 0 graded ("No module named 'torch'")."""
    from grader.judge import portable

    course = load_course(ROOT)
    stage = course.stage("conv1d")
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "conv1d.py").write_text("import numpy as np\nimport json\nfrom student.helper import f\n")
    (tmp_path / "student" / "helper.py").write_text("def f():\n    import hypothesis.strategies\n"
                                                    "    import not_installed_anywhere\n")
    said = portable.notes(tmp_path, stage)
    assert len(said) == 1 and said[0].startswith("student/helper.py imports hypothesis, which a grade for marks"), said
    assert "not_installed_anywhere" not in said[0] and "numpy" in said[0]  # the package list names numpy
    (tmp_path / "student" / "helper.py").write_text("import regex\n\n\ndef f():\n    pass\n")
    assert portable.notes(tmp_path, stage) == []  # regex: offered in the jail (the tokenizer's)


def test_a_stage_whose_cases_were_all_not_run_counts_the_others() -> None:
    """Round 4, row 14's cosmetic bug: "(+9 not run)" under the first of 9 cases, which is shown itself."""
    why = "not run: run_conv1d timed out on case 'small' of stage 'conv1d'; fix that first"
    cases = [CaseResult("layernorm", f"case_{i}", "run_layernorm", Status.SKIPPED, message=why) for i in range(9)]
    shown = text_report.render(Report("c", [StageResult("layernorm", "Layer norm", cases)]))
    assert "case_0 (+8 not run)" in shown, shown


# --- round 5 (tests/hostile/redteam/round5-findings.md) -----------------------------------------------------------


@needs_jail
@pytest.mark.slow  # the course's stages up to kvcache, jailed: about 15 s
def test_only_the_failing_earlier_stages_are_replaced_by_references(tmp_path: Path) -> None:
    """Round 5, break 4: olga's only bug is in gpt2, yet her kvcache, which imports helpers of her own (passing)
    attention.py, scored 0 when every earlier stage's reference stood in. Now only gpt2's does."""
    root = linked_course(tmp_path / "course")
    course = load_course(root)
    files = references.files(course, *course.stages)
    gpt2_src = (ROOT / "common" / "gpt2.py").read_text()
    greedy = (ROOT / "common" / "greedy.py").read_text().replace("from common.gpt2", "from student.common_gpt2")
    rt = ROOT / "tests" / "hostile" / "redteam"
    files.update({"student/common_gpt2.py": gpt2_src, "student/common_greedy.py": greedy,
                  "student/attention.py": (rt / "round4" / "helpers_attention.py").read_text(),
                  "student/kvcache.py": (rt / "round4" / "helpers_kvcache.py").read_text(),
                  "student/gpt2.py": (rt / "round5" / "batchbug_gpt2.py").read_text(),
                  "student/__init__.py": ""})
    for rel, text in files.items():
        (tmp_path / "subs" / "olga" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "subs" / "olga" / rel).write_text(text)
    found = next(iter(submissions.discover(tmp_path / "subs")))
    stages = tuple(s.id for s in course.stages if s.id not in ("generate", "tokenizer"))
    entry = batch.grade_submission(course, found, "digest", batch.BatchOptions(stages=stages))
    assert entry.report is not None, entry.message
    by_id = {s.stage: s for s in entry.report.stages}
    assert not by_id["gpt2"].passed and by_id["attention"].passed
    kv = by_id["kvcache"]
    assert kv.passed, [(c.case, c.message[:300]) for c in kv.cases if not c.passed]
    assert kv.upstream is not None and kv.upstream.policy == "reference"  # gpt2 failed: its reference stood in


def test_similarity_reads_a_pathological_line_only_so_far() -> None:
    """Red team round 6, break 5: tokenize rescans the rest of a line after each character it cannot read, so one
    64 KiB line of `\\'` after `rb'` cost its batch row 100 s. Lines are read up to LINE_CHARS, tokens up to a
    deadline: the same tokens as the cut file, and none past the deadline but the first batch."""
    from grader.instructor import similarity

    evil = "rb'" + "\\'" * 32_766 + "\n"
    cut = evil[:similarity.LINE_CHARS] + "\n"
    assert similarity.tokens(evil) == similarity.tokens(cut)
    assert similarity.tokens("x = 1\n" + evil) == similarity.tokens("x = 1\n" + cut)
    many = "x = (" + " + ".join(["a"] * 3000) + ")\n"  # long, but nothing pathological in it
    assert len(similarity.tokens(many * 10, deadline=0.0)) <= 1  # past its deadline: stops at the first check


def test_similarity_compares_whole_submissions_and_reads_past_padding(tmp_path) -> None:
    """Red team round 7: a copy moved into a helper of another name, or put below a 66 KB comment, was not found."""
    from grader.instructor import similarity

    code = "".join(f"def f{i}(x, y):\n    z = x * {i} + y\n    return [z, z ** 2, x - y, {i}]\n" for i in range(30))
    subs = {
        "alice": {"student/softmax.py": code},
        "bob": {"student/softmax.py": "from student.mine import *\n", "student/mine.py": code},
        "fred": {"student/softmax.py": "# " + "x" * 66_000 + "\n" + code},
        "dave": {"student/softmax.py": "def g(a):\n    return sorted(a)\n"},
        "erin": {"student/softmax.py": "import numpy as np\n\n\ndef h(b):\n    return np.exp(b)\n"},
        **{f"other{k}": {"student/softmax.py": "".join(f"v{j} = [{k}] * {j} + list(range({j}))\n"
                                                      for j in range(k, 40))}
           for k in range(4)},  # three copies are fewer than half the cohort: not "how everyone writes it"
    }
    cohort = {}
    for name, files in subs.items():
        for rel, text in files.items():
            (tmp_path / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / rel).write_text(text)
        cohort[name] = similarity.of_files(tmp_path / name, list(files), ["student/softmax.py"])
    found = {(p.a, p.b) for p in similarity.pairs(cohort, {})}
    assert {("alice", "bob"), ("alice", "fred"), ("bob", "fred")} <= found, found
    assert not any("dave" in p or "erin" in p for p in found)
