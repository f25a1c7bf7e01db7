"""Golden reports: what a learner reads, compared whole with tests/golden/ (exercism's test-runner style).

Each submission of tests/corpus is graded on the mini course's `double` stage, and its text report (at 80x24) and
JSON report are compared with tests/golden/corpus/; a few real-stage submissions (tests/golden/learners/) are graded
on the course's own gelu and checkpoint stages and their text reports compared at 80x24, 160x50 and --verbose (80
columns). Timings and machine paths are taken out first. A change to a report is then a reviewed diff:

    python -m pytest tests/test_golden.py --update-goldens && git diff tests/golden
"""

from __future__ import annotations

import difflib
import json
import re
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from grader.course import Course, load_course
from grader.judge import grade
from grader.records import replace
from grader.report import json as json_report
from grader.report import text
from grader.results import Report, StageResult
from tests.conftest import CORPUS, ROOT, copy_course, linked_course, representatives

GOLDEN = ROOT / "tests" / "golden"
LEARNERS = GOLDEN / "learners"
FOOTER = "Next: fix {file}, then `python -m grader --stage {stage} --watch` (hint: `python -m grader hint {stage}`)"
SCREENS = {"80x24": (80, 24, False), "160x50": (160, 50, False), "verbose": (80, None, True)}


@pytest.fixture
def update(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def check_golden(path: Path, actual: str, update: bool) -> None:
    """actual == the golden file, or a diff and the command that accepts it; --update-goldens rewrites it."""
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    if not path.exists():
        pytest.fail(f"no golden file {path.relative_to(ROOT)}: run `python -m pytest {Path(__file__).name} "
                    "--update-goldens` and review it")
    expected = path.read_text()
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            str(path.relative_to(ROOT)), "now"))
        pytest.fail(f"the report differs from its golden file:\n{diff}\nIf the change is meant, run `python -m "
                    f"pytest {Path(__file__).name} --update-goldens` and review `git diff tests/golden`.")


def normalise(text: str, course_root: Path) -> str:
    """Machine paths, addresses and the frames of a crash dump outside the learner's file taken out."""
    for path, name in ((course_root.resolve(), "<course>"), (course_root, "<course>"), (ROOT, "<repo>"),
                       (Path(sysconfig.get_paths()["stdlib"]), "<stdlib>")):
        text = text.replace(str(path), name)
    text = re.sub(r"0x[0-9a-f]{6,}", "0x…", text)
    text = re.sub(r'File "(?!<course>)[^"\n]*", line \d+ in [\w<>]+', "File <not the learner's>", text)
    text = re.sub(r"Extension modules: [^\n]*", "Extension modules: …", text)
    return re.sub(r"^(.*File <not the learner's>\n)(?:\1)+", r"\1", text, flags=re.M)


def normalised(result: StageResult, course_root: Path) -> StageResult:
    """The record with what it quotes (messages, printed output, notes) normalised, before any rendering."""
    for case in result.cases:
        case.message, case.stdout, case.stderr = (normalise(t, course_root) for t in
                                                  (case.message, case.stdout, case.stderr))
    result.notes = [normalise(n, course_root) for n in result.notes]
    return result


def without_seconds(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: without_seconds(v) for k, v in data.items() if k != "seconds"}
    if isinstance(data, list):
        return [without_seconds(v) for v in data]
    return data


def text_report(result: StageResult, course: Course, width: int | None, height: int | None,
                verbose: bool = False) -> str:
    footer = [FOOTER.format(file=result.student_file, stage=result.stage)]
    return text.render(Report(course=course.title, stages=[result]), footer=footer, width=width, height=height,
                       verbose=verbose)


def assert_fits(report: str, width: int, height: int, verdict: str) -> None:
    rows = report.splitlines()
    assert rows[0].startswith(verdict), rows[0]
    assert len(rows) <= height - 1, f"{len(rows)} rows for a {height}-row terminal"
    assert max(len(r) for r in rows) <= width


# --- the corpus on the mini course -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mini_course(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Course:
    course = load_course(copy_course(mini_template, tmp_path_factory.mktemp("golden-mini")))
    # An endless loop costs the stage's whole timeout: 0.5 s proves the same report as 3 s.
    stage = replace(course.stage("double"), timeout=0.5)
    return replace(course, stages=(stage, *course.stages[1:]))


CORPUS_NAMES = sorted(p.stem for p in CORPUS.glob("*.py"))


# correct_torch imports torch (seconds) and timeout waits out its timeout: both only in the full suite
@pytest.mark.parametrize("name", representatives(CORPUS_NAMES, set(CORPUS_NAMES) - {"correct_torch", "timeout"}))
def test_corpus_reports(mini_course: Course, name: str, update: bool) -> None:
    if name == "correct_torch":
        pytest.importorskip("torch")
    (mini_course.root / "student" / "double.py").write_text((CORPUS / f"{name}.py").read_text())
    result = normalised(grade.grade_stage(mini_course, mini_course.stage("double")), mini_course.root)
    # printed output is split between cases exactly (run/capture.py): the goldens keep it as printed
    report = text_report(result, mini_course, 80, 24)
    check_golden(GOLDEN / "corpus" / f"{name}.txt", report, update)
    assert_fits(report, 80, 24, f"{text.MARK[result.status.category]}  double:")
    data = without_seconds(json.loads(json_report.render(Report(course=mini_course.title, stages=[result]))))
    check_golden(GOLDEN / "corpus" / f"{name}.json", json.dumps(data, indent=1, ensure_ascii=False) + "\n", update)


# --- real stages: issue 11's reports ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[StageResult, Course]]:
    out = {}
    for learner in sorted(LEARNERS.glob("*.py")):
        stage = learner.stem.split("_")[0]
        course = load_course(linked_course(tmp_path_factory.mktemp(learner.stem), **{stage: learner.read_text()}))
        out[learner.stem] = (normalised(grade.grade_stage(course, course.stage(stage)), course.root), course)
    return out


@pytest.mark.parametrize("screen", sorted(SCREENS))
@pytest.mark.parametrize("learner", sorted(p.stem for p in LEARNERS.glob("*.py")))
def test_real_stage_reports(real_reports: dict[str, tuple[StageResult, Course]], learner: str, screen: str,
                            update: bool) -> None:
    result, course = real_reports[learner]
    width, height, verbose = SCREENS[screen]
    report = text_report(result, course, width, height, verbose)
    check_golden(GOLDEN / "stages" / f"{learner}.{screen}.txt", report, update)
    if height is not None:
        assert_fits(report, width, height, f"{text.MARK[result.status.category]}  {result.stage}:")


def test_erf_gelu_report_fits_a_small_terminal(real_reports: dict[str, tuple[StageResult, Course]]) -> None:
    """Issue 11: the verdict and the mistake first, then the first failing case in full, on an 80x24 screen."""
    result, course = real_reports["gelu_erf"]
    rows = text_report(result, course, 80, 24).splitlines()
    assert rows[0].startswith("FAIL  gelu: 1 of 7 cases pass") and "looks like erf_gelu" in rows[0]
    assert rows[1].strip().startswith("Known mistake: erf_gelu. This is the exact GELU")
    worst = next(i for i, r in enumerate(rows) if "worst at [0]" in r)
    assert "expected -0.0036373920817729943, got -0.00404969409489031" in rows[worst]
    assert "(error 4.12e-04, allowed 1.00e-05)" in rows[worst + 1] and "input there: -3.0" in rows[worst + 2]
    assert sum("float64" in r for r in rows) <= 1  # one note for every case that returned float64, if any
    assert sum(r.startswith(("  FAIL ", "  PASS ")) for r in rows) == 7  # a line for every case


def test_checkpoint_reports_fit_a_small_terminal(real_reports: dict[str, tuple[StageResult, Course]]) -> None:
    for learner in ("checkpoint_block0", "checkpoint_transposed", "checkpoint_prefix_only"):
        result, course = real_reports[learner]
        rows = text_report(result, course, 80, 24).splitlines()
        assert rows[0].startswith(("FAIL  checkpoint:", "ERR   checkpoint:")) and len(rows) <= 23
        assert all(r.count("Traceback") <= 1 for r in rows)
        assert sum("student/checkpoint.py:" in r for r in rows) <= 3  # one traceback, not one a case
