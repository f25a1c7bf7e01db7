"""The watch loop's handlers without a terminal: typed events into the dispatcher, a fake grader, a fake writer.

Nothing here waits for time to pass: every assertion follows an event that was dispatched, so a slow machine can
only make these tests slower, never make a negative check pass by not looking long enough.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from grader.course import Course, Stage
from grader.judge import grade
from grader.learner import filewatch, grading, progress, screen
from grader.learner.events import FilesChanged, KeyPressed, Notice, Quit, Tick
from grader.learner.screen import CLEAR
from grader.learner.watch import Watch
from grader.report.text import Style
from grader.results import CaseResult, StageResult, Status
from tests.conftest import write_student


@dataclass
class FakeWriter:
    """Captures what the watch writes; a terminal of 80 columns and 24 rows."""

    out: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    columns: int = 80
    rows: int = 24

    def write(self, text: str) -> None:
        self.out.append(text)

    def notice(self, line: str) -> None:
        self.notices.append(line)

    def size(self) -> tuple[int, int]:
        return self.columns, self.rows

    @property
    def screen(self) -> str:
        """The last screen drawn."""
        return "".join(self.out).split(CLEAR)[-1]


def result(stage: Stage, passed: int, status: Status = Status.FAIL) -> StageResult:
    cases = [CaseResult(stage=stage.id, case=c.id, function=c.function,
                        status=Status.PASS if i < passed else status) for i, c in enumerate(stage.cases)]
    return StageResult(stage=stage.id, title=stage.title, cases=cases, max_points=stage.points,
                       student_file=stage.student_file)


@dataclass
class FakeGrader:
    """Grades by a table: stage id -> how many cases pass (all by default); remembers the options it was given."""

    passes: dict[str, int] = field(default_factory=dict)
    calls: list[tuple[str, grade.Options]] = field(default_factory=list)
    during: Callable[[], None] | None = None  # what happens while a grade runs (a newer save...)
    notes: list[str] = field(default_factory=list)
    prepared: list[str] = field(default_factory=list)

    def grade(self, course: Course, stage: Stage, options: grade.Options) -> StageResult:
        self.calls.append((stage.id, options))
        if self.during is not None:
            self.during()
        out = result(stage, self.passes.get(stage.id, len(stage.cases)))
        out.notes.extend(self.notes)
        return out

    def forget(self) -> None:
        pass

    def prepare(self, course: Course, stage: Stage) -> None:
        self.prepared.append(stage.id)


def start(course: Course, grader: FakeGrader, stage: str | None = "double", **settings: object) -> tuple[Watch,
                                                                                                           FakeWriter]:
    writer = FakeWriter()
    watch = Watch(course, grading.Settings(stage=stage, **settings), writer, grader,  # type: ignore[arg-type]
                  tty=True, keys=True)
    watch.grade()  # what run() does first
    return watch, writer


def test_a_save_is_graded_and_the_verdict_line_comes_first(mini: Course):
    grader = FakeGrader(passes={"double": 1})
    watch, writer = start(mini, grader)
    assert writer.screen.startswith("FAIL  double: 1 of 3 cases pass")
    assert writer.screen.rstrip().endswith("r re-run · h hint · s instructions · ? keys · q quit")
    watch.dispatch(FilesChanged())  # a wake-up whose paths an earlier grade took: nothing to do
    assert len(grader.calls) == 1
    watch.pending = {str(mini.root / "student" / "double.py")}
    watch.dispatch(FilesChanged())
    assert len(grader.calls) == 2 and "grade 2," in writer.screen


def test_each_cycle_reads_the_progress_file_once(mini: Course, monkeypatch: pytest.MonkeyPatch):
    reads = []
    load = progress.Progress._load
    monkeypatch.setattr(progress.Progress, "_load", lambda self: (reads.append(1), load(self))[1])
    watch, _ = start(mini, FakeGrader(passes={"combine": 0}), stage=None)
    for event in (FilesChanged(), KeyPressed("r"), KeyPressed("h"), KeyPressed("?"), Tick(), Notice("hello"),
                  KeyPressed("p"), KeyPressed("n"), KeyPressed("s"), Tick()):
        if isinstance(event, FilesChanged):
            watch.pending = {"student/double.py"}
        reads.clear()
        watch.dispatch(event)
        assert len(reads) <= 1, event
    assert watch.stage.id == "combine"  # p went back to double, n came here again


def test_a_newer_save_during_a_grade_drops_its_verdict(mini: Course):
    grader = FakeGrader(passes={"double": 1})
    watch, writer = start(mini, grader)
    drawn = len(writer.out)
    grader.during = lambda: watch.on_change({"student/double.py"})
    watch.dispatch(KeyPressed("r"))
    assert len(writer.out) == drawn  # superseded: nothing drawn, and the save's event is queued
    assert isinstance(watch.events.get_nowait(), FilesChanged)


def test_after_a_pass_the_watch_waits_for_n(mini: Course):
    watch, writer = start(mini, FakeGrader(passes={"combine": 0}), stage=None)  # following the course
    assert "double passes (1 of 3 stages): press n for the next stage, combine" in writer.screen
    assert "1 of 3 stages pass [#..]" in writer.screen  # the footer and the banner count alike
    watch.dispatch(Tick())
    watch.dispatch(Tick())
    assert watch.stage.id == "double" and "n next" in writer.screen
    watch.dispatch(KeyPressed("n"))
    assert watch.stage.id == "combine" and "Now on combine" in writer.screen
    watch.dispatch(KeyPressed("r"))  # said with the move's verdict only: its count would go stale
    assert "Now on combine" not in writer.screen


def test_the_pause_after_a_pass_can_be_set(mini: Course):
    watch, writer = start(mini, FakeGrader(passes={"combine": 0}), stage=None, next_after=0.0)
    assert "On to combine in 0 s" in writer.screen
    watch.dispatch(Tick())
    assert watch.stage.id == "combine"
    watch.dispatch(KeyPressed("p"))  # back to a stage that passed before: no pause, no move
    watch.dispatch(Tick())
    assert watch.stage.id == "double" and "press n for the next stage" in writer.screen


def test_any_key_but_n_stays_after_a_pass(mini: Course):
    watch, writer = start(mini, FakeGrader(), stage=None, next_after=0.0)
    watch.dispatch(KeyPressed("s"))  # reading the instructions: stay
    watch.dispatch(Tick())
    assert watch.stage.id == "double"


def test_n_waits_for_a_pass_and_p_goes_back(mini: Course):
    watch, writer = start(mini, FakeGrader(passes={"double": 0}))
    watch.dispatch(KeyPressed("n"))
    assert watch.stage.id == "double" and "`n` moves on once double passes" in writer.screen
    watch.dispatch(KeyPressed("p"))
    assert "double is the first stage" in writer.screen
    watch, writer = start(mini, FakeGrader(), stage="combine")
    watch.dispatch(KeyPressed("p"))
    assert watch.stage.id == "double" and writer.screen.startswith("PASS  double")


def test_h_counts_hints_like_the_hint_command(mini: Course):
    watch, writer = start(mini, FakeGrader(passes={"double": 0}))
    watch.dispatch(KeyPressed("h"))
    watch.dispatch(KeyPressed("h"))
    assert "Hint 1 of 2 for double: multiply by two" in writer.screen and "Hint 2 of 2" in writer.screen
    watch.dispatch(KeyPressed("h"))
    assert "All 2 hints for double were shown" in writer.screen


def test_s_pages_through_the_instructions_and_question_mark_lists_the_keys(mini: Course):
    instructions = mini.stage("double").dir / "instructions.md"
    instructions.write_text(instructions.read_text() + "".join(f"\nParagraph {i}.\n" for i in range(20)))
    watch, writer = start(mini, FakeGrader(passes={"double": 0}))
    writer.rows = 12  # a short terminal: more than one page
    watch.dispatch(KeyPressed("s"))
    first = writer.screen
    pages = int(first.split(" of ", 1)[1].split(" ")[0])
    assert "double's instructions, page 1 of" in first and pages > 1
    for _ in range(pages):
        watch.dispatch(KeyPressed("s"))
    assert writer.screen.startswith("FAIL  double")  # after the last page: the report
    writer.rows = 24
    watch.dispatch(KeyPressed("?"))
    assert writer.screen.startswith("Keys") and "--next-after" in writer.screen
    watch.dispatch(KeyPressed(" "))
    assert writer.screen.startswith("FAIL  double")


def test_q_and_a_signal_end_the_loop(mini: Course):
    watch, _ = start(mini, FakeGrader())
    watch.dispatch(KeyPressed("q"))
    assert watch.done
    watch, _ = start(mini, FakeGrader())
    watch.dispatch(Quit(2))
    assert watch.done


def test_a_long_report_is_cut_to_the_terminal_with_the_verdict_first(mini: Course):
    watch, _ = start(mini, FakeGrader(passes={"double": 0}))
    watch.notes.extend(f"note {i}" for i in range(3))
    frame = watch.frame()
    frame.body, frame.fit = ["FAIL  double: 0 of 3 cases pass", *(f"  line {i}" for i in range(60))], None
    drawn = screen.compose(frame, Style(False), (80, 24)).removeprefix(CLEAR).rstrip("\n").split("\n")
    assert len(drawn) <= 23 and drawn[0].startswith("FAIL  double")
    assert any("more lines: `python -m grader --stage double` prints the whole report" in line for line in drawn)
    assert drawn[-1].startswith("r re-run")


def test_the_report_is_fitted_to_the_terminal_not_wrapped_by_it(mini: Course):
    """Long case names, long numbers and a long status line at 80 columns: every row fits, no number is split."""
    stage = mini.stage("double")
    long = result(stage, 1, Status.EXCEPTION)
    for c in long.cases:
        c.case = c.case + "_with_a_rather_long_case_name_indeed"
        c.message = "step 2, block 0: got 3 positions and no past, after 123456789.987654321 positions " * 2
    watch, writer = start(mini, FakeGrader(passes={"double": 0}))
    watch.last, watch.graded_at, watch.took = long, "16:12:23", 1.4961
    watch.show()
    rows = writer.screen.rstrip("\n").split("\n")
    assert len(rows) <= 23 and rows[0].startswith("ERR   double")
    assert all(len(row) <= 80 for row in rows), [row for row in rows if len(row) > 80]
    assert "123456789.987654321" in writer.screen and "1496 ms" in writer.screen  # whole, on one row each


def test_the_standings_come_from_this_cycle_s_reading(mini: Course):
    write_student(mini, "double", "def run_double(x):\n    return 2 * x\n")
    grader = FakeGrader()
    watch, _ = start(mini, grader, stage="combine")
    assert grader.calls[-1][1].passed == {}  # double has no verdict yet
    grading.grade_stages(mini, [mini.stage("double")], grading.Settings())  # another shell grades double
    watch.dispatch(KeyPressed("r"))
    assert grader.calls[-1][1].passed == {"double": True, "combine": True}
    write_student(mini, "double", "def run_double(x):\n    return x + x\n")  # and edits it
    watch.dispatch(KeyPressed("r"))
    assert "double" in grader.calls[-1][1].changed


def test_a_verdict_recorded_in_another_shell_regrades_the_stage_that_uses_it(mini: Course):
    write_student(mini, "double", "def run_double(x):\n    return 2 * x\n")
    grader = FakeGrader(passes={"combine": 0})
    watch, writer = start(mini, grader, stage="combine")
    watch.dispatch(Tick())  # the progress file is as this session left it: no grade
    assert len(grader.calls) == 1
    grading.grade_stages(mini, [mini.stage("double")], grading.Settings())  # another shell grades double
    watch.dispatch(Tick())
    assert len(grader.calls) == 2 and grader.calls[-1][1].passed["double"] and "1 of 3 stages pass" in writer.screen


def test_the_stage_s_notes_stay_on_screen_when_the_report_is_cut(mini: Course):
    watch, writer = start(mini, FakeGrader(passes={"double": 0}, notes=["Your code uses something that fails"]))
    writer.rows = 8
    watch.dispatch(KeyPressed("r"))
    assert "more cases" in writer.screen and "note Your code uses something that fails" in writer.screen


def test_json_mode_writes_one_line_per_verdict_and_notices_apart(mini: Course):
    watch, writer = start(mini, FakeGrader(passes={"double": 0}), format="json")
    watch.dispatch(Notice("polling instead"))
    watch.dispatch(KeyPressed("r"))
    lines = [json.loads(line) for line in "".join(writer.out).splitlines()]
    assert [r["stages"][0]["status"] for r in lines] == ["fail", "fail"]
    assert writer.notices == ["polling instead"]


def test_isolate_in_watch_records_nothing(mini: Course):
    watch, _ = start(mini, FakeGrader(), isolate=True)
    watch.dispatch(Tick())
    assert not (mini.root / ".grader" / "progress.json").exists() or \
        "double" not in json.loads((mini.root / ".grader" / "progress.json").read_text())["stages"]


def test_swap_and_temp_files_are_never_reported(tmp_path: Path):
    (tmp_path / "student").mkdir()
    changes: list[set[str]] = []
    source = filewatch.FileSource(filewatch.Targets(tmp_path, "gelu"), changes.append, lambda line: None)
    try:
        for name in (".gelu.py.swp", "gelu.py~", ".#gelu.py", "4913", "notes.txt"):
            (tmp_path / "student" / name).write_text("junk")
        real = tmp_path / "student" / "gelu.py"
        real.write_text("x = 1\n")  # after the junk: once this is reported, any junk would have been too
        deadline = time.monotonic() + 8
        while not any(str(real) in c for c in changes) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert any(str(real) in c for c in changes), "the real save was never reported"
        assert all(Path(p).name == "gelu.py" for c in changes for p in c), changes
    finally:
        source.stop()


def test_a_grade_that_takes_a_while_marks_the_verdict_on_screen_out_of_date(mini: Course,
                                                                            monkeypatch: pytest.MonkeyPatch):
    from grader.learner import session

    grader = FakeGrader(passes={"double": 1})
    watch, writer = start(mini, grader)
    assert "grade 1," in writer.screen
    screens: list[str] = []

    def slow() -> None:  # the sandbox polls the cancel check while the learner's code runs
        options = grader.calls[-1][1]
        assert options.cancel is not None
        monkeypatch.setattr(session, "STALE_AFTER", 0.0)
        options.cancel()
        screens.append(writer.screen)

    grader.during = slow
    watch.pending = {str(mini.root / "student" / "double.py")}
    watch.dispatch(FilesChanged())
    assert "grading your last save... (grade 1 above is for the files before it)" in " ".join(screens[0].split())
    assert "FAIL  double: 1 of 3" in screens[0]  # the old verdict stays, marked
    assert "grade 2," in writer.screen and "grading your last save" not in writer.screen


def test_a_pass_prepares_the_next_stage_while_the_learner_reads(mini: Course):
    grader = FakeGrader(passes={"double": 3})
    start(mini, grader, stage=None)
    assert grader.prepared == ["combine"]


def test_prepared_fixtures_are_used_by_the_next_stage_s_first_grade(mini: Course):
    import time

    real = grading.FixtureGrader()
    stage = mini.stage("combine")
    real.prepare(mini, stage)
    deadline = time.monotonic() + 10
    while not real.ready and time.monotonic() < deadline:
        time.sleep(0.01)
    [prepared] = real.ready.values()
    real.grade(mini, stage, grade.Options())
    assert real.kept is prepared and not real.ready
