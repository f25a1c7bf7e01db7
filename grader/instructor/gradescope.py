"""Gradescope: the autograder bundle (setup.sh, run_autograder, the course) and the run inside it.

The bundle follows Gradescope's autograder specification: setup.sh and run_autograder at the zip's root; Gradescope
unpacks the zip into /autograder/source, puts the learner's files in /autograder/submission and reads
/autograder/results/results.json. The course inside is a derived copy (grader/instructor/handout.py) with its
hidden cases but without reference solutions, since learners' code runs on the same machine; with `upstream:
reference` it holds those of the stages others depend on (grader/instructor/upstream.py), which graded runs stand
in (jailed: written as the learner's files into a jail of the stage's own). setup.sh installs bubblewrap: each
submission is graded in one jail (grader/run/jail/). A bundle built with --unsandboxed grades in forked children
instead, and every results.json says NOT jailed.
"""

from __future__ import annotations

import json
import shutil
import stat
import tempfile
import time
import zipfile
from pathlib import Path

from grader.course import Course, load_course
from grader.errors import GraderError, UsageError
from grader.instructor import handout, paths, references, submissions, upstream
from grader.report import gradescope as gradescope_report
from grader.results import Report


def build_bundle(course: Course, out: Path, unsandboxed: bool = False) -> list[str]:
    """Write the autograder zip; return its entries. `unsandboxed` bakes --unsandboxed into run_autograder."""
    if out.suffix.lower() != ".zip":
        raise UsageError(f"{out}: the Gradescope bundle is a .zip; pass a name ending in .zip")
    with tempfile.TemporaryDirectory(prefix="grader-gradescope-") as tmp:
        root = Path(tmp)
        (root / "course").mkdir()
        handout.derive(course, root / "course", keep_hidden=True)
        references.ship(course, root / "course")
        handout.copy_grader(root / "course")
        load_course(root / "course")  # the copy must load, or the bundle is not written
        (root / "course" / "requirements.txt").write_text("\n".join(handout.requirements()) + "\n",
                                                          encoding="utf-8")
        (root / "setup.sh").write_text(handout.render("gradescope_setup.sh.j2", title=course.title),
                                       encoding="utf-8")
        (root / "run_autograder").write_text(handout.render("gradescope_run_autograder.j2", title=course.title,
                                                            unsandboxed=unsandboxed), encoding="utf-8")
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(f".{out.name}.partial")
        names = []
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(root.rglob("*")):
                if path.is_dir() or "__pycache__" in path.parts or ".grader" in path.parts:
                    continue
                name = path.relative_to(root).as_posix()
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                executable = name in ("setup.sh", "run_autograder")
                info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, path.read_bytes())
                names.append(name)
        partial.replace(out)
    return names


def autograde(course: Course, submission: Path, results: Path, unsandboxed: bool = False) -> Report | None:
    """Grade one Gradescope submission (in one jail) and write results.json; always writes it, whatever happens."""
    started = time.monotonic()
    results.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="grader-autograde-"))
    report = None
    try:
        sub = submissions.Submission("submission", submission)
        submissions.unpack(sub, scratch, flat_ok=True, declared=[s.student_file for s in course.stages])
        report = upstream.grade_stages(course, scratch, upstream.Settings(unsandboxed=unsandboxed))
        report = paths.scrub_report(report, paths.places(scratch, submission.absolute(), course.root))
        data = gradescope_report.results(report, seconds=time.monotonic() - started)
    except submissions.SubmissionError as e:
        why = paths.scrub(str(e), paths.places(scratch, submission.absolute(), course.root))
        data = gradescope_report.failure(f"Your submission could not be graded: {why}\nSubmit your student/ "
                                         "folder, or the stage files themselves (e.g. gelu.py).")
    except GraderError as e:
        why = paths.scrub(str(e), paths.places(scratch, submission.absolute(), course.root))
        data = gradescope_report.failure(f"The autograder is misconfigured ({why}). Your instructor has been "
                                         "shown this message; nothing is wrong with your submission.")
    except Exception as e:  # noqa: BLE001 - Gradescope must always get a results.json
        # scrubbed too: a message must not name the grading machine's folders (red team round 9)
        why = paths.scrub(f"{type(e).__name__}: {e}", paths.places(scratch, submission.absolute(), course.root))
        data = gradescope_report.failure(f"The autograder failed: {why}. Your instructor can see this message; "
                                         "resubmit later.")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    tmp = results.with_name(results.name + ".partial")
    # backslashreplace: a lone surrogate (a file name that is not UTF-8) must not cost the learner their results
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8", errors="backslashreplace")
    tmp.replace(results)
    return report
