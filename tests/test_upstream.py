"""Issue 14, points 3 and 4: one upstream mistake costs its own stage only, and a loop costs one timeout.

A cohort built here: a learner whose only mistake is in `double` (combine calls their run_double), one whose
run_double never returns, and one who is right. `upstream: reference` (the default for graded runs) grades combine
with the reference double; `upstream: own` grades it with theirs and says it fails only because of double.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path

import pytest
from test_batch import GOOD, folder, student
from test_jail import jail_processes

from grader.course import Course, load_course
from grader.instructor import batch, submissions
from grader.instructor.gradebook import Entry
from grader.judge import loops
from grader.report import json as json_report
from grader.report import junit, text
from grader.report.gradescope import results as gradescope_results

CALLS_DOUBLE = "from student.double import run_double\n\n\ndef run_combine(x, y):\n    return run_double(x) + y\n"
PLUS_TWO = "def run_double(x):\n    return x + 2\n"
LOOPS = "def run_double(x):\n    while True:\n        pass\n"


@pytest.fixture
def subs(tmp_path: Path) -> Path:
    subs = tmp_path / "subs"
    folder(subs, "good", student({**GOOD, "combine": CALLS_DOUBLE}))
    folder(subs, "upstream", student({**GOOD, "combine": CALLS_DOUBLE, "double": PLUS_TWO}))
    folder(subs, "loop", student({**GOOD, "combine": CALLS_DOUBLE, "double": LOOPS}))
    return subs


def _grade(course: Course, subs: Path, name: str, budget: float = 120.0) -> Entry:
    sub = next(s for s in submissions.discover(subs) if s.id == name)
    return batch.grade_submission(course, sub, "digest", batch.BatchOptions(budget=budget))


def _own(mini: Course) -> Course:
    yaml = mini.root / "course.yaml"
    yaml.write_text(yaml.read_text().replace("stages:", "upstream: own\nstages:"))
    return load_course(mini.root)


@pytest.mark.slow  # three stages graded in a jail; upstream.py runs in test_cohort.py's batch
def test_reference_policy_credits_a_stage_whose_only_fault_is_upstream(mini: Course, subs: Path) -> None:
    entry = _grade(mini, subs, "upstream")
    assert entry.report is not None
    combine = entry.report.stages[1]
    assert combine.passed and combine.points == 2 and entry.report.points == 3  # not 1: combine is not zeroed
    assert combine.upstream is not None and combine.upstream.failing == ["double"] and combine.upstream.blamed
    # every output names it
    assert "graded with the reference double (yours fails)" in text.render(entry.report)
    assert any("graded with the reference double in place of yours" in n for n in combine.notes)
    assert json.loads(json_report.render(entry.report))["stages"][1]["upstream"]["failing"] == ["double"]
    assert 'name="upstream"' in junit.render(entry.report)
    assert "graded with the reference double" in gradescope_results(entry.report)["output"]
    good = _grade(mini, subs, "good")
    assert good.report is not None and good.report.stages[1].upstream.failing == []  # type: ignore[union-attr]
    assert "reference" not in text.verdict(good.report.stages[1])


def test_a_learner_whose_earlier_stages_pass_is_graded_on_their_own_code(mini: Course, tmp_path: Path) -> None:
    """Red team round 4: under `upstream: reference`, correct code using a helper of its own earlier file (or an
    option of its function the reference lacks) scored 0, the references standing in even for a passing stage."""
    helper = "def run_double(x, times=2):\n    return times * x\n\n\ndef twice(x):\n    return run_double(x)\n"
    uses = "from student.double import run_double, twice\n\n\ndef run_combine(x, y):\n" \
           "    return twice(x) + run_double(y, times=1)\n"
    subs = tmp_path / "subs"
    folder(subs, "helpers", student({**GOOD, "combine": uses, "double": helper}))
    entry = _grade(mini, subs, "helpers")
    assert entry.report is not None
    combine = entry.report.stages[1]
    assert combine.passed, [(c.case, c.message[:200]) for c in combine.cases]
    assert combine.upstream is not None and combine.upstream.policy == "own" and combine.upstream.failing == []


@pytest.mark.slow  # the reference policy's test is in the fast loop
def test_own_policy_says_the_stage_fails_only_because_of_an_earlier_one(mini: Course, subs: Path) -> None:
    entry = _grade(_own(mini), subs, "upstream")
    assert entry.report is not None
    combine = entry.report.stages[1]
    assert not combine.passed and combine.points == 0
    assert combine.upstream is not None and combine.upstream.policy == "own" and combine.upstream.blamed
    assert "fails only because of double" in text.verdict(combine)
    assert any("with the reference double in place of yours it passes" in n for n in combine.notes)


@pytest.mark.slow  # waits out a 3 s timeout
def test_a_loop_costs_one_timeout_and_only_its_own_stage(mini: Course, subs: Path) -> None:
    started = time.monotonic()
    entry = _grade(mini, subs, "loop")
    took = time.monotonic() - started
    assert entry.report is not None
    double, combine, split = entry.report.stages
    statuses = [c.status.value for c in double.cases]
    assert statuses == ["timeout", "skipped", "skipped"]
    assert "run_double timed out on case 'small'" in double.cases[1].message
    assert combine.passed and split.passed  # the reference double stands in; split never calls it
    assert took < 3 + 2.5, f"one 3 s timeout, not one per case ({took:.1f} s)"


@pytest.mark.slow  # waits out a 3 s timeout
def test_own_policy_does_not_wait_again_for_a_stage_that_imports_the_loop(mini: Course, subs: Path) -> None:
    started = time.monotonic()
    entry = _grade(_own(mini), subs, "loop")
    assert time.monotonic() - started < 3 + 2.5
    assert entry.report is not None
    combine = entry.report.stages[1]
    assert [c.status.value for c in combine.cases] == ["skipped", "skipped"]
    assert "imports student/double.py, where run_double timed out" in combine.cases[0].message
    assert entry.report.stages[2].passed


@pytest.mark.slow  # waits out a 1 s budget
def test_the_budget_is_per_stage(mini: Course, subs: Path) -> None:
    """A budget shorter than the timeout: double's cases are not run, and the other stages still are."""
    entry = _grade(mini, subs, "loop", budget=1.0)
    assert entry.report is not None
    double, combine, split = entry.report.stages
    assert all(c.status.value == "skipped" for c in double.cases)
    assert "used up its time budget of 1 s" in double.cases[0].message
    assert combine.passed and split.passed


def test_imports_of_the_learner_package_are_read_from_source() -> None:
    source = ("import numpy as np\nfrom student.gelu import run_gelu\nfrom . import conv1d, mlp as m\n"
              "from .softmax import run_softmax\nimport student.layernorm as ln\nfrom student import (attention)\n")
    assert loops.imported(source) == {"student.gelu", "student.conv1d", "student.mlp", "student.softmax",
                                      "student.layernorm", "student.attention"}


def test_the_import_search_opens_a_bounded_number_of_modules(tmp_path: Path, monkeypatch) -> None:
    """Red team round 31: 9 MiB of `from student import xAAAA, xAAAB, ...` named 1.4 million modules, and each stage's
    search tried to open every one (15 s of the grader's CPU a search, 160 s a submission, outside every limit of the
    jail), and kept them all (3.1 GiB for a course). A search now records at most `MODULES_CAP` modules, and so opens
    at most that many files."""
    (tmp_path / "student").mkdir()
    names = ", ".join(f"x{i:06d}" for i in range(50_000))
    (tmp_path / "student" / "mlp.py").write_text(f"from student.gelu import run_gelu\nfrom student import {names}\n")
    (tmp_path / "student" / "gelu.py").write_text("from . import conv1d\n")
    opened: list[Path] = []
    real_read = loops._read

    def read(path: Path, cap: int = loops.FILE_CAP) -> str | None:
        opened.append(path)
        return real_read(path, cap)

    monkeypatch.setattr(loops, "_read", read)
    found = loops.reachable(tmp_path, "student.mlp")
    assert len(opened) <= loops.MODULES_CAP + 1 and len(found) <= loops.MODULES_CAP, len(opened)
    # and the names are read lazily: a file of 50,000 (round 31: 2.8 million) yields only the first few it needs
    source = (tmp_path / "student" / "mlp.py").read_text()
    assert loops.imported(source, most=3) == {"student.gelu", "student.x000000", "student.x000001"}
    (tmp_path / "student" / "mlp.py").write_text("from student.gelu import run_gelu\n")
    assert loops.reachable(tmp_path, "student.mlp") == {"student.gelu", "student.conv1d"}  # an honest file: all


def test_every_public_case_runs_before_any_hidden_one(mini: Course, subs: Path, monkeypatch) -> None:
    """Red team round 6: a hidden call left state the kernel keeps (memfd inode numbers, the page cache) and the next
    stage's public call, in a fresh jail, printed it. Now no public case of a submission runs after a hidden one."""
    from grader.run.jail.box import Jail

    ran: list[tuple[str, bool]] = []  # (case, hidden), in the order the jails were given them
    real_run, real_settle = Jail.run, Jail.settle

    def run(self: Jail, calls, *args, **kwargs):  # type: ignore[no-untyped-def]
        ran.extend((c.case, any(k.hidden for s in mini.stages for k in s.cases if k.id == c.case))
                   for c in calls)
        return real_run(self, calls, *args, **kwargs)

    def settle(self: Jail) -> None:
        ran.append(("settled", False))
        real_settle(self)

    monkeypatch.setattr(Jail, "run", run)
    monkeypatch.setattr(Jail, "settle", settle)
    entry = _grade(mini, subs, "good")
    assert entry.report is not None and entry.report.passed
    hidden = [i for i, (_, h) in enumerate(ran) if h]
    public = [i for i, (case, h) in enumerate(ran) if not h and case != "settled"]
    assert hidden and public and max(public) < min(hidden)
    assert ("settled", False) in ran[max(public):min(hidden)]  # the jail kept only if nothing of the public pass runs


@pytest.mark.slow  # four jails: the hedge's own
def test_a_mistake_only_hidden_cases_catch_upstream_costs_only_its_own_stage(mini: Course, tmp_path: Path) -> None:
    """Red team round 7: with every public case graded before any hidden one, stand-ins were chosen from the earlier
    stages' public verdicts, so a double wrong only on 1-D input (its hidden case; combine's `scalar_y` is 1-D) cost
    combine its points too. The public pass now also grades combine with the reference double (the hedge)."""
    one_d = "def run_double(x):\n    return 2 * x if x.ndim > 1 else x\n"
    subs = tmp_path / "subs"
    folder(subs, "hidden_only", student({**GOOD, "combine": CALLS_DOUBLE, "double": one_d}))
    folder(subs, "combine_wrong", student({**GOOD, "combine": CALLS_DOUBLE.replace("+ y", "- y")}))
    entry = _grade(mini, subs, "hidden_only")
    assert entry.report is not None
    double, combine = entry.report.stages[:2]
    assert not double.passed and [c.passed for c in double.cases] == [True, True, False]
    assert combine.passed and combine.points == 2, [(c.case, c.message[:100]) for c in combine.cases]
    assert combine.upstream is not None and combine.upstream.failing == ["double"]
    assert "graded with the reference double (yours fails)" in text.render(entry.report)
    # a mistake of combine's own is not forgiven by the hedge, and double passing keeps the learner's own code
    wrong = _grade(mini, subs, "combine_wrong")
    assert wrong.report is not None and wrong.report.stages[0].passed and not wrong.report.stages[1].passed
    assert wrong.report.stages[1].upstream.policy == "own"  # type: ignore[union-attr]


@pytest.mark.parametrize("policy", ["reference", "own"])
def test_no_job_of_the_learner_s_own_code_runs_after_one_that_held_references(mini: Course, tmp_path: Path,
                                                                              policy: str, monkeypatch) -> None:
    """Red team round 26: a stage graded with the reference of a failing earlier stage left that reference behind as
    page-cache residency of never-read /usr files (every jail shares the host's page cache), and the failing stage's
    own code read it back in the hidden pass: its hidden cases passed with the reference (a false pass), and a later
    public case printed it. The runs with references now come last, after every job of the learner's own code and
    after every hidden case, and what they show of a public case is its verdict alone."""
    from grader.instructor.upstream import REFERENCES
    from grader.run.jail.box import Jail

    course = _own(mini) if policy == "own" else mini
    one_d = "def run_double(x):\n    return 2 * x if x.ndim > 1 else x\n"
    subs = tmp_path / "subs"
    folder(subs, "upstream", student({**GOOD, "combine": CALLS_DOUBLE, "double": PLUS_TWO}))
    folder(subs, "hidden_only", student({**GOOD, "combine": CALLS_DOUBLE, "double": one_d}))
    ran: list[tuple[bool, bool, bool]] = []  # (references, hidden, public) of each run, in order
    real_run = Jail.run

    def run(self: Jail, calls, *args, **kwargs):  # type: ignore[no-untyped-def]
        hidden = {k.id for s in course.stages for k in s.cases if k.hidden}
        ran.append((self.root.name.startswith(REFERENCES), any(c.case in hidden for c in calls),
                    any(c.case not in hidden for c in calls)))
        return real_run(self, calls, *args, **kwargs)

    monkeypatch.setattr(Jail, "run", run)
    for name in ("upstream", "hidden_only"):
        ran.clear()
        entry = _grade(course, subs, name)
        assert entry.report is not None and any(refs for refs, _, _ in ran), (name, ran)
        first = next(i for i, (refs, _, _) in enumerate(ran) if refs)
        assert all(refs for refs, _, _ in ran[first:]), (name, ran)  # nothing of the learner's own after
        shown = [i for i, (refs, _, public) in enumerate(ran) if public and not refs]
        assert max(shown) < min(i for i, (_, hidden, _) in enumerate(ran) if hidden), (name, ran)
        combine = entry.report.stages[1]
        if policy == "reference":  # graded with the reference double: its public cases shown as verdicts
            assert combine.passed and all(c.sealed for c in combine.cases if not c.hidden), name
            said = text.render(entry.report)
            assert "its verdict only" in said and "Traceback" not in said, said
        else:  # graded on the learner's own double; the run with the reference only tells the note
            assert not any(c.sealed for c in combine.cases)


def _in_phase(phases: object, log: Path, kind: str, name: str, hold: float) -> None:
    with log.open("a") as out:
        out.write(f"{name} trying\n")
        out.flush()
        with phases.enter(kind):  # type: ignore[attr-defined]
            out.write(f"{name} in\n")
            out.flush()
            time.sleep(hold)
            out.write(f"{name} out\n")
            out.flush()


def test_no_public_pass_runs_beside_a_hidden_one_of_another_worker(tmp_path: Path) -> None:
    """Red team round 11 read hidden inputs in another learner's public call through a futex's waiters and page
    mapcounts (Pss): a batch's workers never hold a public pass and a hidden one at once; two of a kind may."""
    import multiprocessing

    from grader.instructor.phases import Phases

    lock, log = Phases(), tmp_path / "log"  # the workers are forks of the process that made it, as a batch's
    fork = multiprocessing.get_context("fork")
    spy = fork.Process(target=_in_phase, args=(lock, log, "hidden", "H1", 1.5))
    spy.start()
    deadline = time.monotonic() + 20
    while "H1 in" not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.01)
    other = [fork.Process(target=_in_phase, args=(lock, log, kind, name, 0.0))
             for kind, name in (("hidden", "H2"), ("public", "P"))]
    for p in other:
        p.start()
    for p in [spy, *other]:
        p.join(30)
    lock.close()
    lines = log.read_text().splitlines()
    at = {line: i for i, line in enumerate(lines)}
    assert at["H1 in"] < at["H2 in"] < at["H1 out"], lines  # hidden beside hidden
    assert at["P in"] > at["H1 out"] and at["P in"] > at["H2 out"], lines  # public waited for both to leave


def test_a_submission_s_public_passes_and_hidden_passes_each_hold_their_phase(mini: Course, subs: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    import contextlib

    from grader.instructor import upstream

    held: list[str] = []

    class Recording:
        def enter(self, kind: str):  # type: ignore[no-untyped-def]
            @contextlib.contextmanager
            def phase():  # type: ignore[no-untyped-def]
                held.append(f"{kind} in")
                yield
                held.append(f"{kind} out")
            return phase()

    graded: list[tuple[bool, list[str]]] = []
    real = upstream._grade

    def grade(*args, **kwargs):  # type: ignore[no-untyped-def]
        graded.append((kwargs["hidden"], list(held)))
        return real(*args, **kwargs)

    monkeypatch.setattr(upstream, "_grade", grade)
    sub = next(s for s in submissions.discover(subs) if s.id == "good")
    options = batch.BatchOptions(unsandboxed=True)
    entry = batch.grade_submission(mini, sub, "d", options, Recording())  # type: ignore[arg-type]
    assert entry.state == "graded" and held == ["public in", "public out", "hidden in", "hidden out"]
    assert graded and all(h[-1] == ("hidden in" if hidden else "public in") for hidden, h in graded), graded


def _live_jails(spare: set[int]) -> list[int]:
    """This process's jails' processes but the warm spare's (jails run as fresh uids from spawn.UID_BASE); not
    zombies, nor other test processes' jails."""
    from grader.run.jail.spawn import UID_BASE

    def ours(pid: int) -> bool:
        while pid > 1:
            try:
                pid = int(next(line.split()[1] for line in open(f"/proc/{pid}/status") if line.startswith("PPid:")))
            except (OSError, StopIteration):
                return False
            if pid == os.getpid():
                return True
        return False

    return [pid for pid in jail_processes(lambda uid: uid >= UID_BASE and uid not in spare) if ours(pid)]


class _Watching:
    """A batch's Phases that records, as each phase is left, the jail processes still alive: (pid, what it is)."""

    def __init__(self) -> None:
        self.left: list[tuple[str, list[tuple[int, str]]]] = []

    def enter(self, kind: str):  # type: ignore[no-untyped-def]
        from grader.run.jail import spare

        @contextlib.contextmanager
        def phase():  # type: ignore[no-untyped-def]
            yield
            alive = _live_jails(spare.spare_uids())
            self.left.append((kind, [(pid, _what(pid)) for pid in alive]))
        return phase()


def _what(pid: int) -> str:
    """"bwrap", "resident" (a jail's init: pid 1 of its namespace, the grader's code) or "other"."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "gone"
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    if fields["Name"].strip() == "bwrap":
        return "bwrap"
    return "resident" if fields["NSpid"].split()[-1] == "1" else "other"


def test_no_process_of_a_submission_s_jails_is_alive_once_its_phase_is_left(mini: Course, subs: Path) -> None:
    """Red team round 12: the hidden jail was killed after its phase was left, and one whose processes died slowly
    (stuck in direct reads) read on beside another learner's public call. Each pass's processes now end inside its
    phase: the public pass's jail goes on into the hidden pass with its resident alone, and ends inside that."""
    watching = _Watching()
    sub = next(s for s in submissions.discover(subs) if s.id == "upstream")  # a references jail as well
    entry = batch.grade_submission(mini, sub, "d", batch.BatchOptions(), watching)  # type: ignore[arg-type]
    assert entry.state == "graded", entry.message
    assert [kind for kind, _ in watching.left] == ["public", "hidden"]
    # the public pass leaves its jail idle for the hidden pass: no process of the learner's, and nothing at all after
    assert {what for _, what in watching.left[0][1]} <= {"bwrap", "resident"}, watching.left
    assert watching.left[1][1] == [], watching.left


def test_a_jail_whose_processes_do_not_end_is_the_submission_s_error_not_a_pass_beside_them(
        mini: Course, subs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A jail that outlives spawn.EMPTIED_WITHIN after its kill (JailStuck) makes the row an error: no grade is given
    for what it did meanwhile (its phase is then left with it still ending: SECURITY.md declares it)."""
    from grader.run.jail import cgroups

    real, groups = cgroups.Cgroup.kill, []

    def stuck(self: cgroups.Cgroup, wait: float = 5.0) -> bool:
        groups.append(self)
        real(self, wait)
        return False  # as if a process of it were still in the kernel

    monkeypatch.setattr(cgroups.Cgroup, "kill", stuck)
    try:
        entry = _grade(mini, subs, "good")
    finally:
        monkeypatch.undo()
        for group in groups:
            group.remove()
    assert entry.state == "error" and "did not end within 60 s" in entry.message, entry.message
    assert "batch --only" in entry.message


def test_a_stage_graded_with_references_runs_in_the_submission_s_own_jail(
        mini: Course, subs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team round 12: a faked "ended" kept the submission's jail alive while a references jail of its own ran,
    and the two held 4.9 GiB against one 4,096 MiB cap; that jail then closed the submission's first, and the
    submission's own restarted after it: two jail starts (~300 ms of CPU) for each stage graded with references. The
    references are now swapped into the one jail's student/, which ends with them: one start each."""
    from grader.instructor import upstream
    from grader.run.jail import box, spare, spawn

    real, jails, started = upstream.with_references, [], []

    def spy(course, stage, root, options):  # type: ignore[no-untyped-def]
        jails.append(options.jail._box)
        return real(course, stage, root, options)

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        started.append(spawn.start(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(upstream, "with_references", spy)
    monkeypatch.setattr(box, "start", counted)
    monkeypatch.setattr(spare, "start", counted)
    spare.discard_spare()
    entry = _grade(mini, subs, "upstream")
    spare.discard_spare()
    assert entry.report is not None and entry.report.stages[1].passed
    assert len(jails) == 1 and jails[0] is not None  # combine (its public and hidden cases), in the running jail
    # double's public pass, its hidden pass, then combine's with the reference double (last: red team round 26), all
    # in one jail, which ends with the references; the rest are the spares kept for what comes next
    assert [b.jobs > 0 for b in started] == [True] + [False] * spare.KEEP, [b.jobs for b in started]


STASHES = ("import pathlib\n\nfrom student.double import run_double\n\n\n"  # the reference double it is graded
           "def run_combine(x, y):\n"  # beside, copied
           "    here = pathlib.Path(__file__).parent / 'double.py'\n"
           "    if 'OWN' not in here.read_text():\n"
           "        for scratch in ('/tmp', '/var/tmp', '/dev/shm'):\n"
           "            (pathlib.Path(scratch) / 'stash_double.py').write_text(here.read_text())\n"
           "    return run_double(x) + y\n")
USES_STASH = ("import importlib.util, pathlib  # OWN\n\n\ndef run_double(x):\n"
              "    for scratch in ('/tmp', '/var/tmp', '/dev/shm'):\n"
              "        stash = pathlib.Path(scratch) / 'stash_double.py'\n"
              "        if stash.exists():\n"
              "            spec = importlib.util.spec_from_file_location('stash', stash)\n"
              "            module = importlib.util.module_from_spec(spec)\n"
              "            spec.loader.exec_module(module)\n"
              "            return module.run_double(x)\n"
              "    return x + 2\n")


def test_nothing_written_beside_the_references_reaches_the_submission_s_later_jobs(mini: Course,
                                                                                  tmp_path: Path) -> None:
    """Red team round 21: with the references in the submission's own jail, a later stage's code copied the reference
    of the stage it failed into /tmp, and that stage's own code found it there in the hidden pass: a pass on hidden
    cases with no code of its own. The jail ends when the references leave it."""
    subs = tmp_path / "subs"
    folder(subs, "stasher", student({**GOOD, "combine": STASHES, "double": USES_STASH}))
    entry = _grade(mini, subs, "stasher")
    assert entry.report is not None
    double = entry.report.stages[0]
    assert [c.status.value for c in double.cases if c.hidden] == ["fail"], [(c.case, c.status) for c in double.cases]
    assert entry.report.stages[1].upstream is not None and entry.report.stages[1].upstream.failing == ["double"]


def test_a_stage_named_twice_is_graded_once_in_course_order(mini: Course, subs: Path) -> None:
    """`--stage combine --stage double --stage double` grades double, then combine, once each (a stage's plan reads
    its earlier stages' verdicts; a repeated stage made every row an error)."""
    sub = next(s for s in submissions.discover(subs) if s.id == "good")
    entry = batch.grade_submission(mini, sub, "d", batch.BatchOptions(stages=("combine", "double", "double")))
    assert entry.state == "graded" and entry.report is not None, entry.message
    assert [s.stage for s in entry.report.stages] == ["double", "combine"]
