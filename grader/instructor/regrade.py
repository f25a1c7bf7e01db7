"""What a batch must grade: every submission whose content or whose course state is not the one in the gradebook.

A row of the gradebook is current only for the submission's content (its digest) and the course it was graded
against. The course state is a digest of what decides a grade: each graded stage's definition (its stage.yaml as
the loader typed it, cases, tolerances, points, decoys and decoys.py), its fixtures' manifest (the digests of every
input and expected output), the upstream policy, the stages graded and the grader's version. Change gelu's points,
fix a hidden case's fixture, or grade `--stage ID` after a full batch, and each row graded before is stale: the
next batch regrades it, and until then the cohort report says which rows were graded with which state.

A path that is itself one learner's submission (`batch SUBS/alice`, `batch SUBS/alice.zip`) grades that learner,
again even when nothing changed; `--only NAME` and `--force` choose learners to regrade in a folder of them.
Entries of the folder that are not submissions (a README, a .tar.gz) are listed once as skipped.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from grader import __version__, fixtures
from grader.course import Course, Stage, layout, stagecode
from grader.errors import UsageError
from grader.instructor import contents, intake, submissions
from grader.instructor.gradebook import Gradebook
from grader.records import Record, asdict, field
from grader.run import safetext


class CourseState(Record, frozen=True):
    """The course as a batch grades it: a digest, and what it is made of (to say what changed)."""

    key: str
    parts: dict[str, Any]  # {"grader", "upstream", "stages": {id: {"points", "definition", ...}}}

    def __hash__(self) -> int:  # the key is the digest of the parts
        return hash(self.key)

    @property
    def short(self) -> str:
        return self.key[:10]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _definition(stage: Stage) -> str:
    """The stage as the loader typed it, without where it sits or on which YAML lines its cases are."""
    d = asdict(stage)
    d.pop("dir")
    d.pop("points")  # a part of its own (what_changed says "gelu's points")
    for case in d["cases"]:
        case.pop("line")
    decoys = stage.dir / "decoys.py"  # and the common modules it imports
    code = stagecode.sources(stage, "decoys.py") if decoys.exists() else []
    d["decoys.py"] = _sha(b"".join(p.read_bytes() for p in code)) if code else None
    return _sha(json.dumps(d, sort_keys=True, default=str).encode())


def course_state(course: Course, stage_ids: tuple[str, ...] = (), grading: dict[str, Any] | None = None
                 ) -> CourseState:
    """The state of the course for a batch of these stages (all by default).

    It holds what a verdict depends on: each stage's definition, fixtures, code and points, the upstream policy,
    the grader's version and a digest of its code (red team round 7: a grader fixed without a new version number
    left every row current), and the batch's grading settings (its budget, jailed or not) when given.
    """
    stages = {}
    for stage in course.stages:
        if stage_ids and stage.id not in stage_ids:
            continue
        manifest = fixtures.stage_dir(course, stage) / fixtures.MANIFEST
        stages[stage.id] = {"points": stage.points, "definition": _definition(stage)[:16],
                            "fixtures": _sha(manifest.read_bytes())[:16] if manifest.exists() else "missing",
                            "code": _code(course, stage)[:16]}
    parts: dict[str, Any] = {"grader": f"{__version__} ({_grader_code()[:10]})", "upstream": course.upstream,
                             "stages": stages}
    if grading is not None:
        parts["grading"] = grading
    return CourseState(_sha(json.dumps(parts, sort_keys=True).encode()), parts)


@functools.cache
def _grader_code() -> str:
    """A digest of the grader's own code and templates (read once per process)."""
    package = Path(__file__).resolve().parents[1]
    files = sorted(p for p in package.rglob("*") if p.suffix in (".py", ".j2") and "__pycache__" not in p.parts)
    return _sha(b"".join(str(f.relative_to(package)).encode() + b"\0" + f.read_bytes() for f in files))


def _code(course: Course, stage: Stage) -> str:
    """A digest of the code that judges the stage: its folder's Python files and the course's common modules.

    Its checks, decoys and reference; the fixtures' manifest holds only what builds them (red team round 7: an
    edited checks.py left every row current).
    """
    folder = layout.stage_dir(course.root, stage.id)
    files = sorted(folder.glob("*.py")) + sorted(layout.common_dir(course.root).glob("*.py"))
    return _sha(b"".join(f.name.encode() + b"\0" + f.read_bytes() for f in files if f.is_file()))


def what_changed(old: dict[str, Any] | None, new: CourseState) -> str:
    """In words, what differs between the state a row was graded with and the current one."""
    if not old:
        return "graded before the gradebook recorded course states"
    said = []
    for key, what in (("grader", "the grader"), ("upstream", "the upstream policy"),
                      ("grading", "the grading settings")):
        if key in new.parts and old.get(key) != new.parts[key]:
            said.append(f"{what} ({_said(old.get(key))} then, {_said(new.parts[key])} now)")
    before, now = old.get("stages", {}), new.parts["stages"]
    missing = [s for s in now if s not in before]
    if missing:
        said.append(f"not graded then: {', '.join(missing)}")
    for sid in (s for s in now if s in before):
        changed = [k for k in ("points", "definition", "fixtures", "code") if before[sid].get(k) != now[sid][k]]
        if "points" in changed:
            said.append(f"{sid}'s points ({before[sid].get('points'):g} then, {now[sid]['points']:g} now)")
        said += [f"{sid}'s {k}" for k in changed if k != "points"]
    extra = [s for s in before if s not in now]
    if extra:
        said.append(f"graded then but not in this course state: {', '.join(extra)}")
    return "changed: " + "; ".join(said) if said else "the same course"


def _said(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return str(value)


class Plan(Record):
    """What a batch grades, and why the rest is left as it is."""

    state: CourseState
    todo: list[tuple[submissions.Submission, str]] = field(default_factory=list)  # (submission, content digest)
    total: int = 0  # submissions found
    current: int = 0  # already graded with this content and this course state
    stale: int = 0  # in todo because the course changed since they were graded
    skipped: list[str] = field(default_factory=list)  # entries of the folder that are not submissions
    single: bool = False  # the path was one learner's submission
    refused: list[tuple[submissions.Submission, str]] = field(default_factory=list)  # could not even be read
    shared: dict[str, list[str]] = field(default_factory=dict)  # a name entries share -> their own names
    left: list[str] = field(default_factory=list)  # such names the gradebook has a row for, from an earlier batch


def looks_like_one(path: Path, declared: list[str]) -> bool:
    """Whether a folder is itself one learner's submission: it holds student/ (any case) or a stage file."""
    names = {p.name.casefold(): p for p in path.iterdir() if not p.name.startswith(".")}
    student = names.get("student")
    return (student is not None and student.is_dir()) or any(Path(d).name.casefold() in names for d in declared)


def _submissions_beside(path: Path, declared: list[str]) -> list[str]:
    """The entries of a folder that look like submissions of their own.

    Zips, and folders holding student/ or a stage file within three levels (a handout nested in a learner's folder).
    """
    mine = {"student", *(Path(d).name.casefold() for d in declared)}
    found = []
    for entry in sorted(path.iterdir()):
        if entry.name.startswith(".") or entry.name.casefold() in mine or entry.is_symlink():
            continue
        if entry.is_file() and entry.suffix.lower() == ".zip":
            found.append(intake.printable(entry.name))
        elif entry.is_dir() and not intake.ignored_dir(entry.name) and _holds_submission(entry, mine, 3):
            found.append(intake.printable(entry.name) + "/")
    return found


def _holds_submission(folder: Path, mine: set[str], depth: int) -> bool:
    try:
        entries = [e for e in folder.iterdir() if not e.is_symlink()]
    except OSError:
        return False
    if any(e.name.casefold() in mine for e in entries):
        return True
    return depth > 1 and any(e.is_dir() and not intake.ignored_dir(e.name) and _holds_submission(e, mine, depth - 1)
                             for e in entries)


def survey(path: Path, declared: list[str]) -> tuple[list[submissions.Submission], list[str], bool]:
    """(submissions, entries skipped as not submissions, whether the path was a single submission)."""
    if path.is_file() and path.suffix.lower() == ".zip":
        return [submissions.Submission(submissions.named(path), path)], [], True
    if path.is_dir() and looks_like_one(path, declared):
        beside = _submissions_beside(path, declared)
        if beside:  # red team round 7: either reading grades someone wrongly, so neither is guessed
            raise UsageError(
                f"{path} holds student/ or a stage file, as one learner's submission does, and also "
                f"{', '.join(beside[:5])}{' ...' if len(beside) > 5 else ''}, as a folder of submissions does. "
                "If it is a folder of submissions, one of them is named like a submission's contents (Student/, "
                "gelu.py): rename it. If it is one learner's, move the other submissions out of it.")
        return [submissions.Submission(intake.printable(path.resolve().name), path)], [], True
    found = submissions.discover(path)
    subs = [s for s in found if s.kind != "other" and not (s.kind == "folder" and intake.ignored_dir(s.path.name))]
    return subs, sorted(intake.printable(s.path.name) for s in found if s not in subs), False


def shared_names(folder: Path) -> dict[str, list[str]]:
    """Names two or more entries of a folder share (`bob/` and `bob.zip`, a stray file `Kate` by `Kate.zip`): theirs.

    No row then has the plain name the LMS knows the learner by; the batch says so (red team rounds 24 and 26), so the
    instructor renames the entry that is not that learner's rather than finding a missing grade in the LMS later.
    """
    shared: dict[str, list[str]] = {}
    for sub in submissions.discover(folder):  # every entry, as `discover` names them (round 27: `alice.ZIP/`)
        plain = submissions.plain_name(sub.path)
        if sub.id != plain:
            shared.setdefault(plain, []).append(_spelled(sub.path.name))
    return shared


def _spelled(name: str) -> str:
    """A name with every character outside ASCII escaped: look-alikes told apart on the screen (a Kelvin sign)."""
    return safetext.safe_name(name).encode("ascii", "backslashreplace").decode("ascii")


def _not_another_cohort(path: Path, cohort: str | None, subs: list[submissions.Submission], book: Gradebook,
                        single: bool, force: bool) -> None:
    """Refuse to read a folder other than the gradebook's cohort as submissions that would replace its rows.

    Red team rounds 7 and 8: one learner's folder, named from another directory than the batch ran in (or
    downloaded again elsewhere), was read as a folder of submissions, and a `bob/` planted inside it replaced bob's
    row. Such a folder is the cohort only when the instructor says so (`--force`).
    """
    if single or not cohort or force or path.resolve() == Path(cohort).resolve():
        return
    taken = sorted({s.id for s in subs} & book.ids())
    if taken:
        names = ", ".join(taken[:5]) + (" ..." if len(taken) > 5 else "")
        raise UsageError(
            f"{path} is read as a folder of submissions, and some of them ({names}) already have rows from the "
            f"cohort in {cohort}. To regrade one learner, pass their own folder or zip ({Path(cohort) / taken[0]}); "
            f"if {path} is where the cohort's submissions are now, run the batch again with --force.")


def plan(course: Course, path: Path, book: Gradebook, stages: tuple[str, ...] = (), only: tuple[str, ...] = (),
         force: bool = False, grading: dict[str, Any] | None = None) -> Plan:
    """The submissions to grade now: new, changed, stale, chosen with --only, or all with --force."""
    state = course_state(course, stages, grading)
    cohort = book.setting("submissions")
    if cohort and path.resolve().parent == Path(cohort).resolve() and (path.is_dir() or path.suffix.lower() == ".zip"):
        # One learner of the cohort this gradebook grades, named by its path: that learner, whatever their folder
        # holds (red team round 7: a folder holding a planted bob/.../student/ replaced bob's row on its regrade)
        subs, skipped, single = [submissions.Submission(submissions.named(path), path)], list[str](), True
    else:
        subs, skipped, single = survey(path, [s.student_file for s in course.stages])
        _not_another_cohort(path, cohort, subs, book, single, force)
    ids = [s.id for s in subs]
    for name in only:
        if name not in ids:
            near = difflib.get_close_matches(name, ids, n=1)
            raise UsageError(f"--only {name}: no submission of that name in {path}" +
                             (f"; did you mean '{near[0]}'?" if near else f" ({len(ids)} submissions there)"))
    chosen = [s for s in subs if not only or s.id in only]
    out = Plan(state, total=len(chosen), skipped=skipped, single=single)
    if not single:
        out.shared = shared_names(path)
        out.left = sorted(set(out.shared) & book.ids())
    known = book.known()
    for sub in chosen:
        try:
            digest = contents.digest(sub)
        except submissions.SubmissionError as e:  # one submission that cannot even be read stops only itself
            out.refused.append((sub, str(e)))
            continue
        row = known.get(sub.id)
        if row is not None and row[0] == digest and row[1] == state.key and not (force or only or single):
            out.current += 1
            continue
        if row is not None and row[0] == digest and row[1] != state.key:
            out.stale += 1
        out.todo.append((sub, digest))
    return out


def time_left(done: int, total: int, elapsed: float) -> str:
    """An estimate of the time left from the pace so far: `about 4 min left`."""
    if done >= total:
        return "done"
    left = elapsed / max(done, 1) * (total - done)
    return f"about {left / 60:.0f} min left" if left >= 90 else f"about {left:.0f} s left"
