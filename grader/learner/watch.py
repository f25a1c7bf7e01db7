"""The watch loop: grade at once, then again on every save; a small dispatcher over events.

Three sources post events to one queue: file changes (grader.filewatch, from its own threads), keys (a
thread reading the terminal) and signals (Ctrl-C). The loop takes one event at a time and calls its named
handler. Grading runs in this, the main, thread; the learner's code still runs in a forked child (sandbox).
A file change, `r`, `n` or `q` during a grade sets `interrupt`: the sandbox polls it and stops the child, and
the result is dropped, since the queued event grades again (the newest files) or quits. So a burst of saves
ends on one verdict for the last content, and a save graded half-written is superseded by the whole file.

Fixtures are verified once per stage and again when a fixture file's stat changes (grader/learner/watchio.py).
"""

from __future__ import annotations

import json
import queue
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from grader import report as reports
from grader.course import Course, Stage, load_course, stagecode
from grader.errors import GraderError
from grader.judge import grade
from grader.learner.filewatch import FileSource, Targets
from grader.learner.progress import Progress
from grader.learner.watchio import KEYS, KeptFixtures, Superseded, Terminal, end_children
from grader.report import json as json_report
from grader.report import text
from grader.results import Report, StageResult

INTERRUPTING = {"r", "n", "q"}  # keys that end a running grade
CLEAR = "\033[H\033[2J\033[3J"
IDLE = 0.3  # seconds without events before the progress file is written (it syncs to disk: not between saves)

# Forking while the watcher's threads wait is safe here: they hold no lock the child uses.
warnings.filterwarnings("ignore", message=r".*fork\(\) may lead to deadlocks", category=DeprecationWarning)


def main(course: Course, args: Any) -> int:
    """`python -m grader [--stage ID] --watch`: returns 0 when the learner quits (q or Ctrl-C)."""
    return Watch(course, args).run()


class Watch:
    """The state of one watch session and a handler per event."""

    def __init__(self, course: Course, args: Any) -> None:
        self.course, self.args = course, args
        self.follow = args.stage is None  # without --stage: follow the course, stage after stage
        progress = Progress(course.root)
        self.stage = course.stage(args.stage) if args.stage else _first_unpassed(course, progress)
        self.json = args.format == "json"
        self.outputs = reports.outputs(args.output, args.format)  # checked before the first grade
        self.tty = sys.stdout.isatty() and not self.json
        self.colour = text.wants_colour(sys.stdout) and not self.json
        self.events: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()  # put() is signal-safe
        self.interrupt = threading.Event()
        self.pending: set[str] = set()
        self.lock = threading.Lock()
        self.done = False
        self.last: StageResult | GraderError | None = None
        self.unrecorded: StageResult | None = None  # written to the progress file once the watcher is idle
        self.lines: list[str] = []  # hints and notices shown under the report until the stage changes
        self.banner: str | None = None
        self.graded_at, self.took, self.slow_said = "", 0.0, False
        self.keys = sys.stdin.isatty()
        self.fixtures = KeptFixtures(course, self.interrupt.is_set)
        if progress.notice:
            self.lines.append(progress.notice)
        self.source: FileSource | None = None

    # --- the loop ------------------------------------------------------------------------------------------

    def run(self) -> int:
        """Grade, then take events until `q`, Ctrl-C or a signal; always restore the terminal."""
        restore = Terminal(self.post_key).start()
        old = {s: signal.signal(s, self.on_signal) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
        try:
            self.source = FileSource(Targets(self.course.root, self.stage.id), self.on_change, self.on_notice,
                                     poll=bool(self.args.poll))
            self.grade()
            while not self.done:
                try:  # a timeout, so a signal is never missed; a short one while progress waits to be written
                    self.dispatch(self.events.get(timeout=IDLE if self.unrecorded else 1.0))
                except queue.Empty:
                    self.record()
        finally:
            self.record()
            if self.source is not None:
                self.source.stop()
            for s, handler in old.items():
                signal.signal(s, handler)
            restore()
            end_children()
        return 0

    def dispatch(self, event: tuple[str, Any]) -> None:
        """One event, one handler."""
        match event:
            case ("files", _):
                self.on_files()
            case ("key", key):
                self.on_key(key)
            case ("notice", line):
                self.on_notice_shown(line)
            case ("quit", _):
                self.done = True

    # --- what the sources call (from their own threads, or a signal handler) -------------------------------

    def on_change(self, paths: set[str]) -> None:
        """Files changed: end any running grade and queue a new one (pending paths merge: one grade)."""
        with self.lock:  # together with grade()'s taking of `pending`: a save is either in this grade or ends it
            self.pending |= paths
            self.interrupt.set()
        self.events.put(("files", None))

    def on_notice(self, line: str) -> None:
        """A line to show once, from another thread (e.g. the switch to polling)."""
        self.events.put(("notice", line))

    def post_key(self, key: str) -> None:
        """A key from the terminal thread; r, n and q end a running grade."""
        if key in INTERRUPTING:
            self.interrupt.set()
        self.events.put(("key", key))

    def on_signal(self, signum: int, frame: Any) -> None:
        """Ctrl-C, SIGTERM, SIGHUP: quit cleanly (the sandbox kills a running child)."""
        self.interrupt.set()
        self.events.put(("quit", signum))

    # --- handlers -------------------------------------------------------------------------------------------

    def on_files(self) -> None:
        """Grade the newest files."""
        if self.pending:  # an empty set: an earlier wake-up already graded these
            self.grade()

    def on_key(self, key: str) -> None:
        """Keys: r re-run, h next hint, n next stage, q quit."""
        if key == "q":
            self.done = True
        elif key == "r":
            self.grade()
        elif key == "h":
            self.on_hint()
        elif key == "n":
            self.on_next()

    def on_hint(self) -> None:
        """Show the next hint (counted in the progress file, like `python -m grader hint`)."""
        hints = self.stage.hints
        index = Progress(self.course.root).next_hint(self.stage.id, len(hints)) if hints else None
        if not hints:
            line = f"{self.stage.id} has no hints; see `python -m grader show {self.stage.id}`"
        elif index is None:
            line = f"All {len(hints)} hints were shown; `python -m grader hint {self.stage.id}` lists them"
        else:
            line = f"Hint {index + 1} of {len(hints)}: {hints[index]}"
        self.on_notice_shown(line)

    def on_next(self) -> None:
        """Move on to the next stage in the course, once this one passes."""
        following = self._after(self.stage)
        if isinstance(self.last, StageResult) and self.last.passed and following is not None:
            self.switch(following)
            self.grade()
        else:
            self.on_notice_shown("`n` moves on once this stage passes" if following else "no stage follows")

    def on_notice_shown(self, line: str) -> None:
        """Add a line under the report (stderr in JSON mode, where stdout holds only reports)."""
        if self.json:
            print(line, file=sys.stderr, flush=True)
            return
        self.lines.append(line)
        self.show()

    # --- grading --------------------------------------------------------------------------------------------

    def grade(self) -> None:
        """Grade the current stage and show the verdict, unless a newer event superseded it."""
        with self.lock:
            self.interrupt.clear()  # from here on, any save ends this grade
            paths, self.pending = self.pending, set()
        if any(Path(p).is_relative_to(self.stage.dir) for p in paths):
            self.reload()
        started, self.slow_said = time.monotonic(), False
        try:
            progress = Progress(self.course.root)
            options = grade.Options(isolate=self.args.isolate, passed=progress.passed_map(),
                                    hidden=not self.args.public_only, cancel=self.cancelled(started))
            options.source = self.fixtures.source(self.stage, grade.cases_to_run(self.stage, options))
            result: StageResult | GraderError = grade.grade_stage(self.course, self.stage, options)
        except GraderError as e:
            result = e
        except Superseded:
            return
        except Exception as e:  # a bug of ours: say so, and keep watching
            result = GraderError(f"the grader itself failed ({type(e).__name__}: {e}); please report this. "
                                 "The watch goes on: save again, or press r.")
        if self.interrupt.is_set():
            return  # superseded: the event that interrupted is queued and grades the newest files
        self.took, self.graded_at = time.monotonic() - started, time.strftime("%H:%M:%S")
        self.last = result
        self.show()
        if isinstance(result, StageResult):
            self.unrecorded = result
            if self.follow and result.passed:
                self.record()
                self.advance(Progress(self.course.root))

    def record(self) -> None:
        """Write the last verdict to the progress file."""
        result, self.unrecorded = self.unrecorded, None
        if result is not None:
            try:
                Progress(self.course.root).record(result)
            except OSError as e:
                self.on_notice_shown(f"could not save your progress: {e}")

    def cancelled(self, started: float) -> Callable[[], bool]:
        """The sandbox's cancel check (polled while it waits); also says so when a grade runs long."""
        def check() -> bool:
            if self.tty and not self.slow_said and time.monotonic() - started > 1.0:
                self.slow_said = True
                sys.stdout.write(f"\n  still running after 1 s (stopped at {self.stage.timeout:g} s); "
                                 "save again to start over\n")
                sys.stdout.flush()
            return self.interrupt.is_set()
        return check

    def advance(self, progress: Progress) -> None:
        """Following the course: a pass moves on to the first stage not passed yet."""
        following = _first_unpassed(self.course, progress)
        done = sum(progress.passed(s.id) for s in self.course.stages)
        if following.id == self.stage.id or progress.passed(following.id):
            self.banner = f"All {len(self.course.stages)} stages pass. Well done."
            self.show()
            return
        passed = self.stage.id
        self.switch(following)
        self.banner = (f"{passed} passes ({done} of {len(self.course.stages)} stages). "
                       f"Now on {following.id}: `python -m grader show {following.id}`")
        self.grade()

    def switch(self, stage: Stage) -> None:
        """Watch another stage."""
        self.record()
        self.stage, self.lines, self.banner, self.last = stage, [], None, None
        if self.source is not None:
            self.source.retarget(Targets(self.course.root, stage.id))

    def reload(self) -> None:
        """The stage's own files changed: read the course again and forget its imported code."""
        stagecode.forget(self.stage.id)
        self.fixtures.clear()
        try:
            self.course = load_course(self.course.root)
            self.stage = self.course.stage(self.stage.id)
        except GraderError as e:
            self.on_notice_shown(f"error: {e}")

    # --- output ---------------------------------------------------------------------------------------------

    def show(self) -> None:
        """Redraw: the verdict line first, the case report, hints and notices, then the keys."""
        result = self.last
        if self.json:
            if isinstance(result, StageResult):
                out = json_report.render(Report(course=self.course.title, stages=[result]), indent=None)
            elif result is not None:
                out = json.dumps({"course": self.course.title, "stage": self.stage.id,
                                  "error": str(result)}) + "\n"
            else:
                return
            sys.stdout.write(out)
            sys.stdout.flush()
            self.write_outputs(result)
            return
        style = text.Style(self.colour)
        if isinstance(result, StageResult):
            body = text.render(Report(course=self.course.title, stages=[result]), colour=self.colour)
        elif result is not None:
            body = style("ERR   ", "error") + style(f"{self.stage.id}: {result}", "bold") + "\n"
        else:
            body = style(f"grading {self.stage.id}...", "dim") + "\n"
        sys.stdout.write((CLEAR if self.tty else "\n") + body + "\n".join(self.footer(style)) + "\n")
        sys.stdout.flush()
        self.write_outputs(result)

    def footer(self, style: text.Style) -> list[str]:
        """Lines under the report: hints and notices, the course's progress, and the keys on the last line."""
        progress = Progress(self.course.root)  # the result on screen counts even before it is recorded
        here = self.last.passed if isinstance(self.last, StageResult) else progress.passed(self.stage.id)
        done = here + sum(progress.passed(s.id) for s in self.course.stages if s.id != self.stage.id)
        total = len(self.course.stages)
        lines = [""] + self.lines[-6:]
        if self.banner:
            lines.append(style(self.banner, "bold"))
        mode = self.source.mode if self.source else "events"
        when = f" · graded at {self.graded_at} in {self.took * 1000:.0f} ms" if self.graded_at else ""
        lines.append(style(f"{done} of {total} stages pass [{'#' * done}{'.' * (total - done)}]{when}"
                           f" · watching {self.stage.id} ({mode})", "dim"))
        if self.keys:
            passed = isinstance(self.last, StageResult) and self.last.passed
            keys = [k for k in KEYS if k != "n" or (passed and self._after(self.stage))]
            lines.append(" · ".join(style(k, "bold") + f" {KEYS[k]}" for k in keys))
        return lines

    def write_outputs(self, result: StageResult | GraderError | None) -> None:
        """--output files, rewritten (atomically) on every grade."""
        if self.outputs and isinstance(result, StageResult):
            reports.write(Report(course=self.course.title, stages=[result]), self.outputs)

    def _after(self, stage: Stage) -> Stage | None:
        order = list(self.course.stages)
        at = next(i for i, s in enumerate(order) if s.id == stage.id)
        return order[at + 1] if at + 1 < len(order) else None


def _first_unpassed(course: Course, progress: Progress) -> Stage:
    return next((s for s in course.stages if not progress.passed(s.id)), course.stages[-1])
