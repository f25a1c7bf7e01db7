"""One watch session's state and what it does: grade, show, move between stages and views.

The watch loop (learner.watch) turns events into calls of these handlers. Each cycle (one event) reads the
progress file once: the standings on screen, the upstream notes a grade makes and "what comes next" all come from
that one reading and the files as they are now. The screen goes through a Writer passed in, and the grader is
passed in too, so tests drive a session with fakes of both, without a terminal.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

from grader import report as reports
from grader.course import Course, Stage, load_course, stagecode
from grader.errors import GraderError
from grader.judge import grade
from grader.learner import commands, grading, screen
from grader.learner.cases import OutputSaver
from grader.learner.filewatch import FileSource, Targets
from grader.learner.progress import Progress, Standing, Standings, digest, stamp, standings, uses
from grader.learner.screen import Frame, View, Writer
from grader.learner.terminal import BACK
from grader.report import json as json_report
from grader.report import text
from grader.results import Report, StageResult, Status

STALE_AFTER = 0.1  # seconds a grade runs before the verdict on screen is marked out of date


class Session:
    """The state of one watch session and a handler per key."""

    def __init__(self, course: Course, settings: grading.Settings, writer: Writer,
                 grader: grading.StageGrader | None = None, *, tty: bool = False, keys: bool = False,
                 colour: bool = False) -> None:
        self.course, self.settings, self.writer = course, settings, writer
        self.grader: grading.StageGrader = grader or grading.FixtureGrader()
        self.json, self.tty, self.keys, self.colour = settings.format == "json", tty, keys, colour
        self.outputs = reports.outputs(list(settings.outputs), settings.format)  # checked before the first grade
        self.saver = OutputSaver(settings.save_outputs) if settings.save_outputs is not None else None
        self.interrupt, self.lock = threading.Event(), threading.Lock()
        self.pending: set[str] = set()
        self.done = False
        self.cycle: tuple[Progress, Standings] | None = None  # this cycle's one reading of the progress file
        self.seen: tuple[int, int, int] | None = None  # the progress file as this session last read or wrote it
        self.stage = (course.stage(settings.stage) if settings.stage
                      else commands.first_to_work_on(course, self.standings()))
        self.last: StageResult | GraderError | None = None
        self.unrecorded: tuple[StageResult, str, str | None] | None = None  # verdict, its files' digest, waits for
        self.notes: list[str] = []  # hints and notices shown under the report until the stage changes
        self.feedback: list[str] = []
        self.banner: str | None = None  # a move to another stage, said with its first verdict
        self.banner_until = 0
        self.view, self.page, self.instructions = View.REPORT, 0, list[str]()
        self.graded_at, self.took, self.count, self.slow_said = "", 0.0, 0, False
        self.stale = False  # a grade is running and has taken a while: the verdict on screen is out of date
        self.advance_at: float | None = None  # --next-after: when to move on after a new pass
        self.source: FileSource | None = None
        self.graded_with: dict[str, Standing] = {}  # the standings of the stages this one uses, at its grade
        self.handlers: dict[str, Callable[[], None]] = {
            "r": self.grade, "h": self.on_hint, "s": self.on_instructions, "p": self.on_previous,
            "n": self.on_next, "?": self.on_keys, "q": self.on_quit, **dict.fromkeys(BACK, self.on_back)}
        notice = self.progress().notice
        if notice:
            self.on_notice(notice, draw=False)

    # --- handlers -------------------------------------------------------------------------------------------

    def on_hint(self) -> None:
        self.view = View.REPORT
        self.on_notice(commands.hint(self.course, self.stage, self.progress()))

    def on_instructions(self) -> None:
        """The stage's instructions, a page at a time; after the last page, the report again."""
        if self.view is View.INSTRUCTIONS:
            self.page += 1
            if self.page >= screen.page_count(self.frame(), self.size()):
                self.view = View.REPORT
        else:
            try:
                self.instructions = commands.show(self.course, self.stage).rstrip("\n").split("\n")
            except GraderError as e:
                self.on_notice(f"error: {e}")
                return
            self.view, self.page = View.INSTRUCTIONS, 0
        self.show()

    def on_keys(self) -> None:
        self.view = View.REPORT if self.view is View.KEYS else View.KEYS
        self.show()

    def on_back(self) -> None:
        if self.view is not View.REPORT:
            self.view = View.REPORT
            self.show()

    def on_next(self) -> None:
        """Move on to the next stage not passed yet, once this one passes."""
        shown = self.shown()
        following = commands.next_stage(self.course, shown, after=self.stage)
        if not self.passing():
            self.on_notice(f"`n` moves on once {self.stage.id} passes (p goes back a stage)")
        elif following is None:
            self.on_notice("every stage passes: there is no stage to move on to")
        else:
            self.move_to(following, f"{self.stage.id} passes ({shown.done} of {len(self.course.stages)} stages). "
                                    f"Now on {following.id}: press s for its instructions")

    def on_previous(self) -> None:
        before = commands.previous_stage(self.course, self.stage)
        if before is None:
            self.on_notice(f"{self.stage.id} is the first stage: there is none before it")
        else:
            self.move_to(before, f"Back on {before.id}; n moves on again once it passes")

    def on_notice(self, line: str, draw: bool = True) -> None:
        """Add a line under the report (stderr in JSON mode, where stdout holds only reports)."""
        if self.json:
            self.writer.notice(line)
            return
        self.notes.append(line)
        if draw:
            self.show()

    def on_quit(self) -> None:
        self.done = True

    # --- the learner's progress: one reading per cycle --------------------------------------------------------

    def progress(self) -> Progress:
        if self.cycle is None:
            self.seen = stamp(self.course.root)
            progress = Progress(self.course.root)
            self.cycle = (progress, standings(self.course, progress))
        return self.cycle[0]

    def on_progress(self) -> None:
        """Idle: another shell wrote the progress file? Grade again if a stage this one uses now stands otherwise.

        So the notes about the stages it uses speak of what they do now.
        """
        if stamp(self.course.root) == self.seen:
            return
        now = self.standings()
        if any(now.of[sid] is not was for sid, was in self.graded_with.items()):
            self.grade()

    def standings(self) -> Standings:
        self.progress()
        assert self.cycle is not None
        return self.cycle[1]

    def shown(self) -> Standings:
        """The standings with the verdict on screen counted (it is for the files as they are now)."""
        now = self.standings()
        if isinstance(self.last, StageResult) and grading.records(self.settings):
            return now.with_result(self.stage.id, self.last.status)
        return now

    def passing(self) -> bool:
        if isinstance(self.last, StageResult):
            return self.last.passed
        return self.standings().passed(self.stage.id)

    def record(self) -> None:
        """Write the last verdict to the progress file, with the digest of the files it was given for."""
        pending, self.unrecorded = self.unrecorded, None
        if pending is not None:
            progress = self.progress()
            try:
                progress.record(*pending)
            except GraderError as e:
                self.on_notice(str(e))
            self.cycle = (progress, standings(self.course, progress))  # what it wrote is what the file holds
            self.seen = stamp(self.course.root)

    # --- grading --------------------------------------------------------------------------------------------

    def grade(self) -> None:
        """Grade the current stage and show the verdict, unless a newer event superseded it."""
        with self.lock:
            self.interrupt.clear()  # from here on, any save ends this grade
            paths, self.pending = self.pending, set()
        if any(Path(p).is_relative_to(self.stage.dir) for p in paths):
            self.reload()
        started, self.slow_said, self.stale = time.monotonic(), False, False
        before, now = digest(self.course, self.stage), self.standings()
        self.graded_with = {s.id: now.of[s.id] for s in uses(self.course, self.stage)}
        options = grading.options(self.settings, now, self.cancelled(started))
        options.later_drift = self.tty and not self.json  # the verdict first, then where it parts from the reference
        if self.saver is not None:
            options.keep = self.saver.keep(self.stage)
        result: StageResult | GraderError
        try:
            result = self.grader.grade(self.course, self.stage, options)
        except GraderError as e:
            result = e
        except grading.Superseded:
            return
        except Exception as e:  # a bug of ours: say so, and keep watching
            result = GraderError(f"the grader itself failed ({type(e).__name__}: {e}); please report this. "
                                 "The watch goes on: save again, or press r.")
        if self.interrupt.is_set():
            return  # superseded: the event that interrupted is queued and grades the newest files
        self.stale = False
        self.count, self.took, self.graded_at = self.count + 1, time.monotonic() - started, time.strftime("%H:%M:%S")
        was_passing = self.passing()
        self.last, self.view, self.advance_at, self.feedback = result, View.REPORT, None, []
        if isinstance(result, StageResult):
            said = grading.feedback(self.course, self.stage, result, self.progress())
            self.feedback = said.lines
            if result.status is Status.TODO and said.waits_for is None and self.keys:
                self.feedback.append("Press s to read the instructions here, h for a hint.")
            if grading.records(self.settings):
                self.unrecorded = (result, before, said.waits_for)
            if result.passed:
                self.record()  # at once: `n`, another shell and the next stage's notes see it
                following = commands.next_stage(self.course, self.shown(), after=self.stage)
                if following is not None and not was_passing:
                    self.grader.prepare(self.course, following)  # its fixtures, while the learner reads this
                if not was_passing and self.settings.next_after is not None:
                    self.advance_at = time.monotonic() + self.settings.next_after
        self.show()
        if isinstance(result, StageResult) and options.later_drift and not result.passed:
            try:
                notes = grade.drift_notes(self.course, self.stage, options, result)
            except GraderError as e:
                notes = [f"the drift locator could not run: {e}"]
            if self.interrupt.is_set() or self.last is not result:
                return  # a newer save: its own grade follows
            if notes:
                result.notes.extend(notes)
                self.show()
        if isinstance(result, StageResult) and self.outputs:
            reports.write(Report(course=self.course.title, stages=[result]), self.outputs)

    def cancelled(self, started: float) -> Callable[[], bool]:
        """The sandbox's cancel check (polled while it waits); also says so when a grade runs long."""
        def check() -> bool:
            if self.tty and not self.stale and self.last is not None and time.monotonic() - started > STALE_AFTER:
                self.stale = True  # a grade that takes a while: the verdict on screen is for the files before
                self.show()
            if self.tty and not self.slow_said and time.monotonic() - started > 1.0:
                self.slow_said = True
                self.writer.write(f"\n  still running after 1 s (stopped at {self.stage.timeout:g} s); "
                                  "save again to start over\n")
            return self.interrupt.is_set()
        return check

    def move_to(self, stage: Stage, banner: str) -> None:
        """Watch another stage, and grade it at once."""
        self.record()
        self.stage, self.notes, self.feedback, self.banner, self.last = stage, [], [], banner, None
        self.banner_until = self.count + 1  # said with the move, shown with the first verdict only
        self.view, self.page, self.advance_at = View.REPORT, 0, None
        if self.source is not None:
            self.source.retarget(Targets(self.course.root, stage.id))
        self.grade()

    def reload(self) -> None:
        """The stage's own files changed: read the course again and forget its imported code."""
        stagecode.forget(self.stage.id)
        self.grader.forget()
        try:
            self.course = load_course(self.course.root)
            self.stage = self.course.stage(self.stage.id)
        except GraderError as e:
            self.on_notice(f"error: {e}", draw=False)

    # --- output ---------------------------------------------------------------------------------------------

    def size(self) -> tuple[int, int] | None:
        return self.writer.size() if self.tty else None

    def show(self) -> None:
        """Redraw the screen (JSON: one line per verdict)."""
        if not self.json:
            self.writer.write(screen.compose(self.frame(), text.Style(self.colour), self.size()))
        elif isinstance(self.last, StageResult):
            self.writer.write(json_report.render(Report(course=self.course.title, stages=[self.last]), indent=None))
        elif self.last is not None:
            self.writer.write(json.dumps({"course": self.course.title, "stage": self.stage.id,
                                          "error": str(self.last)}) + "\n")

    def frame(self) -> Frame:
        """What the screen shows now, from this cycle's standings and the verdict on screen."""
        shown, total = self.shown(), len(self.course.stages)
        following = commands.next_stage(self.course, shown, after=self.stage)
        body = {View.INSTRUCTIONS: self.instructions, View.KEYS: screen.keys_body()}.get(self.view) or \
            screen.report_body(self.course.title, self.stage.id, self.last, self.colour)
        banner = self.banner if self.count <= self.banner_until else None
        if self.passing() and isinstance(self.last, StageResult):
            left = None if self.advance_at is None else max(0.0, self.advance_at - time.monotonic())
            banner = screen.pass_banner(self.stage.id, shown.done, total, following.id if following else None, left)
        status = screen.status_line(shown.done, total, self.stage.id, self.source.mode if self.source else "events",
                                    self.count, self.graded_at, self.took, self.stale)
        offered = {"r", "h", "s", "?", "q"} | ({"p"} if commands.previous_stage(self.course, self.stage) else set())
        if self.passing() and following is not None:
            offered.add("n")
        noted = self.last.notes if isinstance(self.last, StageResult) else []  # under the report: never cut off
        return Frame(body=body, stage=self.stage.id, view=self.view, page=self.page, notes=self.notes,
                     feedback=[text.Style(self.colour)("note ", "bold") + n for n in noted] + self.feedback,
                     banner=banner, status=status,
                     keys=tuple(k for k, _, _ in screen.KEYS if k in offered) if self.keys else (),
                     fit=lambda width, rows: screen.report_body(self.course.title, self.stage.id, self.last,
                                                                self.colour, (width, rows)))
