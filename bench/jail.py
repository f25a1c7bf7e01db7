"""What graded grading costs in the jail beside today's forked graded child, per submission and per minute.

    python bench/jail.py [--rounds 5] [--n 40] [--hostile]

Two settings, each grading submissions of the issue's four stages (gelu, conv1d, mlp, checkpoint: `batch --stage`
on each, as the course now has more) as `batch` does
(grader.instructor.batch: unpack, every stage with its hidden cases, compare, decoys):
  fork   --unsandboxed: today's forked graded child (grader/run/sandbox.py + confine.py), a child per stage
  jail   the default: one bubblewrap jail per submission (grader/run/jail/), a fresh interpreter, its own cgroup;
         in a batch, the next submission's jail starts while this one is graded (a warm spare)
Rows:
  per submission, in a batch   `batch --jobs 1` over --n generated submissions (bench/batch.py: ~60% correct, 25%
                               with a known mistake, 15% broken): wall time / n, each setting; with --hostile, five
                               of them are bench/batch.py's attacks (an endless loop and a sleep on import run to
                               their timeouts: ~30 s a batch whatever n, which a throughput target cannot mean)
  one submission alone         one correct submission graded with no spare ready (Gradescope's case), median of
                               --rounds, the settings interleaved round by round so the machine's load hits both
Each setting (the grader before the jail too) first grades six of the submissions unmeasured: the first batch of a
process reads the fixtures and computes the decoys' outputs, which the setting timed first paid for.
  --jobs 2 throughput          `batch --jobs 2` over the same submissions, in submissions per minute
--unsandboxed is no longer quite the forked path of before the jail (it grades public and hidden cases in two passes,
each in a process of its own), so the forked rows also run the grader as it was before the jail (--baseline, a git
revision: its whole tree, grader and four-stage course, is exported to a temporary folder and run in a subprocess on
the same submissions; that grader cannot read today's course.yaml).
Targets (issue 9): the jail adds <= 0.15 s per submission; --jobs 2 grades >= 150 submissions a minute jailed.
Needs bubblewrap and cgroups (root, or a delegated cgroup v2 subtree). Writes bench/results/jail.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy is imported: one
    os.environ.setdefault(_name, "1")  # BLAS thread in both settings, as the jail has (Settings.cpus) and --jobs sets

from bench import machine  # noqa: E402
from bench.batch import generate, stage_files  # noqa: E402
from grader.course import Course, load_course  # noqa: E402
from grader.instructor import batch, submissions  # noqa: E402
from grader.instructor.gradebook import Gradebook  # noqa: E402
from grader.records import replace  # noqa: E402
from grader.run import jail  # noqa: E402

STAGES = ("gelu", "conv1d", "mlp", "checkpoint")  # the course when issue 9 set its targets


def correct(course: Course, dest: Path) -> submissions.Submission:
    for stage in course.stages:
        for rel, text in stage_files(course, stage).items():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_text(text)
    return submissions.Submission("bench", dest)


def alone(course: Course, sub: submissions.Submission, rounds: int) -> dict[str, float]:
    times: dict[str, list[float]] = {"fork": [], "jail": []}
    for i in range(rounds + 1):  # the first round warms both (fixtures read, page cache, decoy outputs)
        for setting in ("fork", "jail"):
            jail.discard_spare()  # no spare: this submission's jail starts when it is graded
            t0 = time.perf_counter()
            entry = batch.grade_submission(course, sub, "d", batch.BatchOptions(unsandboxed=setting == "fork",
                                                                                stages=STAGES))
            seconds = time.perf_counter() - t0
            assert entry.report is not None and entry.report.passed, (setting, entry.message)
            if i:
                times[setting].append(seconds)
    return {k: statistics.median(v) for k, v in times.items()}


def in_batch(course: Course, subs: Path, db: Path, jobs: int, unsandboxed: bool) -> dict[str, float]:
    book = Gradebook(db, course.title)
    t0 = time.perf_counter()
    summary = batch.run(course, subs, book, batch.BatchOptions(jobs=jobs, unsandboxed=unsandboxed, stages=STAGES))
    wall = time.perf_counter() - t0
    book.close()
    n = summary.graded + summary.rejected + summary.errors
    assert summary.errors == 0, f"{summary.errors} grader errors"
    return {"submissions": n, "wall_s": wall, "per_minute": 60 * n / wall, "per_submission_s": wall / n}


BASELINE = """
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from grader.course import load_course
from grader.instructor import batch
from grader.instructor.gradebook import Gradebook
course, subs, out = load_course(Path(sys.argv[1])), Path(sys.argv[2]), {}
batch.run(course, Path(sys.argv[4]), Gradebook(Path(sys.argv[3]) / "warm.sqlite", course.title), batch.BatchOptions())
for jobs in (1, 2):
    book = Gradebook(Path(sys.argv[3]) / f"base{jobs}.sqlite", course.title)
    t0 = time.perf_counter()
    summary = batch.run(course, subs, book, batch.BatchOptions(jobs=jobs))
    wall = time.perf_counter() - t0
    n = summary.graded + summary.rejected + summary.errors
    out[f"base{jobs}"] = {"submissions": n, "wall_s": wall, "per_minute": 60 * n / wall, "per_submission_s": wall / n}
print(json.dumps(out))
"""


def warm_up(subs: Path, dest: Path, n: int = 6) -> Path:
    """The first `n` submissions again, graded once by each setting before it is timed (unmeasured).

    The first batch of a process reads the fixtures, computes the decoys' outputs and fills the page cache: without
    this, whichever setting ran first paid for it (the jail, here, ~40 ms a submission).
    """
    import shutil

    dest.mkdir()
    for sub in sorted(subs.iterdir())[:n]:
        if sub.is_dir():
            shutil.copytree(sub, dest / sub.name)
        else:
            shutil.copy(sub, dest / sub.name)
    return dest


def baseline(rev: str, subs: Path, tmp: Path) -> dict[str, dict[str, float]]:
    """The grader as it was at `rev` (before the jail), graded on the same submissions with --jobs 1 and 2."""
    import subprocess

    tree = tmp / "baseline"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    done = subprocess.run([sys.executable, "-c", BASELINE, str(tree), str(subs), str(tmp), str(tmp / "warm")],
                          capture_output=True, text=True, cwd=tmp)
    if done.returncode:
        raise SystemExit(f"the grader at {rev} failed on the submissions:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.splitlines()[-1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--baseline", default="79da992", help="git revision of the grader before the jail")
    ap.add_argument("--hostile", action="store_true", help="five of the submissions are bench/batch.py's attacks")
    args = ap.parse_args()
    machine.usual_bytecode()
    why = jail.unavailable()
    if why is not None:
        print(f"no jail on this machine: {why}")
        return 2
    course = load_course(ROOT)
    four = replace(course, stages=tuple(course.stage(s) for s in STAGES))  # what the submissions hold
    runs: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-jail-") as tmp:
        kinds = generate(four, Path(tmp) / "subs", args.n, attacks=args.hostile)
        warm = warm_up(Path(tmp) / "subs", Path(tmp) / "warm")
        for setting in ("jail", "fork"):
            in_batch(course, warm, Path(tmp) / f"warm-{setting}.sqlite", 1, unsandboxed=setting == "fork")
        for jobs in (1, 2):
            for setting in ("jail", "fork"):
                runs[f"{setting}{jobs}"] = in_batch(course, Path(tmp) / "subs", Path(tmp) / f"{setting}{jobs}.sqlite",
                                                    jobs, unsandboxed=setting == "fork")
        single = alone(course, correct(four, Path(tmp) / "one"), args.rounds)
        runs.update(baseline(args.baseline, Path(tmp) / "subs", Path(tmp)))
    steady = runs["jail1"]["per_submission_s"] - runs["base1"]["per_submission_s"]
    cold = single["jail"] - single["fork"]
    print(f"graded cost per submission of {len(STAGES)} stages ({', '.join(STAGES)}); "
          f"{args.n} submissions ({kinds['correct']} correct, {kinds['wrong']} wrong, {kinds['broken']} broken, "
          f"{kinds['hostile']} hostile)")
    print(f"{'':34}{'before the jail':>16}{'--unsandboxed':>15}{'jail':>9}{'added':>10}")
    print(f"{'per submission, batch --jobs 1':34}{runs['base1']['per_submission_s'] * 1000:13.0f} ms"
          f"{runs['fork1']['per_submission_s'] * 1000:12.0f} ms{runs['jail1']['per_submission_s'] * 1000:6.0f} ms"
          f"{steady * 1000:+7.0f} ms   target <= +150 ms: {'met' if steady <= 0.15 else 'NOT met'}")
    print(f"{'one submission alone (no spare)':34}{'':16}{single['fork'] * 1000:12.0f} ms"
          f"{single['jail'] * 1000:6.0f} ms{cold * 1000:+7.0f} ms   (vs --unsandboxed, median of {args.rounds})")
    print(f"{'batch --jobs 2, submissions/minute':34}{runs['base2']['per_minute']:16.1f}"
          f"{runs['fork2']['per_minute']:15.1f}{runs['jail2']['per_minute']:9.1f}{'':10}   target >= 150: "
          f"{'met' if runs['jail2']['per_minute'] >= 150 else 'NOT met'}")
    print(f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end, BLAS threads "
          f"{os.environ['OPENBLAS_NUM_THREADS']})")
    out = ROOT / "bench" / "results" / "jail.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"n": args.n, "kinds": kinds, "rounds": args.rounds, "batches": runs, "alone": single,
                               "added_in_batch_s": steady, "added_alone_s": cold,
                               "load": os.getloadavg()[0]}, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
