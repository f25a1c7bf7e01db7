"""Batch grading speed: 300 generated submissions of the course's stages, a few hostile, with --jobs 1 and --jobs 2.

Usage: python bench/batch.py [--n 300] [--root .]

Submissions are generated from the course's own reference and decoy code (so they need no hand-written
solutions): about 60% correct, 25% with a known mistake in one stage, 15% broken (a syntax error, an exception, a
missing file), and five hostile ones (an endless loop, a sleep that never returns, a zip bomb, the whole course
zipped with a symlink beside student/, a memory hog). Both runs grade the same submissions into fresh
gradebooks. The grader's own cost per submission is the wall time of the --jobs 1 run, less the time spent inside
learners' functions, divided by the count.
Both runs use one BLAS thread per process (what `batch --jobs N` sets for N > 1), so the ratio measures the
batch's own parallelism. Prints both runs side by side and writes bench/results/batch.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # as `batch --jobs N` sets them,
    os.environ.setdefault(_name, "1")  # for both runs: the comparison is of the batch's own parallelism

from bench import machine  # noqa: E402
from grader.course import Course, Stage, load_course  # noqa: E402
from grader.instructor import batch, cohort, references  # noqa: E402
from grader.instructor.gradebook import Gradebook  # noqa: E402


def stage_files(course: Course, stage: Stage, decoy: str | None = None) -> dict[str, str]:
    """A learner's files for the stage: the reference's code under the stub's names (with the common/ modules it
    imports, as graded runs write references in: references.files), and optionally one decoy. The common
    modules are cut for every stage's reference at once, so the files of several stages can be merged."""
    every = references.files(course, *course.stages)
    files = {rel: text for rel, text in every.items() if rel == stage.student_file or references.COMMON_COPY in rel}
    wrong = next((d for d in stage.decoys if d.id == decoy), None)
    if wrong is not None:
        files[stage.student_file] += ("\n\n" + (stage.dir / "decoys.py").read_text()
                                      + f"\n\n{wrong.target} = {wrong.function}\n")
    return files


def generate(course: Course, dest: Path, n: int, seed: int = 0, attacks: bool = True) -> dict[str, int]:
    rng = random.Random(seed)
    kinds = {"correct": 0, "wrong": 0, "broken": 0}
    for i in range(n - 5 if attacks else n):
        r = rng.random()
        kind = "correct" if r < 0.60 else "wrong" if r < 0.85 else "broken"
        kinds[kind] += 1
        files = {rel: text for s in course.stages for rel, text in stage_files(course, s).items()}
        candidates = [s for s in course.stages if s.decoys]
        if kind == "wrong" and candidates:
            stage = rng.choice(candidates)
            files.update(stage_files(course, stage, rng.choice(stage.decoys).id))
        elif kind == "broken":
            stage = rng.choice(course.stages)
            how = rng.choice(("syntax", "exception", "missing"))
            if how == "syntax":
                files[stage.student_file] = files[stage.student_file] + "\ndef oops(:\n"
            elif how == "exception":
                f = stage.functions[0]
                files[stage.student_file] += f"\n\ndef {f.name}({', '.join(f.params)}):\n    raise ValueError('no')\n"
            else:
                del files[stage.student_file]
        for rel, text in files.items():
            path = dest / f"sub{i:03d}" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        (dest / f"sub{i:03d}" / "student" / "__init__.py").write_text("")
    kinds["hostile"] = hostile(course, dest) if attacks else 0
    return kinds


def hostile(course: Course, dest: Path) -> int:
    """Five submissions that attack the batch's time, disk and memory; returns how many."""
    import zipfile

    good = {rel: text for s in course.stages for rel, text in stage_files(course, s).items()}
    first = course.stages[0].functions[0]
    args = ", ".join(first.params)
    loops = {**good, course.stages[0].student_file: f"def {first.name}({args}):\n    while True:\n        pass\n"}
    sleeps = {**good, course.stages[-1].student_file: good[course.stages[-1].student_file] +
              "\nimport time\n\ntime.sleep(10 ** 6)\n"}
    hog = {**good, course.stages[0].student_file: f"import numpy as np\n\ndef {first.name}({args}):\n"
           "    return np.ones((1 << 40,), dtype=np.uint8)\n"}
    for name, files in (("zz_loop", loops), ("zz_sleep_on_import", sleeps), ("zz_memory", hog)):
        for rel, text in files.items():
            (dest / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / name / rel).write_text(text)
    with zipfile.ZipFile(dest / "zz_bomb.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open(course.stages[0].student_file, "w", force_zip64=True) as f:
            for _ in range(80):
                f.write(b"#" * (1 << 20))
    with zipfile.ZipFile(dest / "zz_whole_course.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, text in good.items():
            zf.writestr(f"course/{rel}", text)
        zf.writestr("course/fixtures/model.npy", b"\0" * (70 << 20))  # 70 MB the batch never reads
        link = zipfile.ZipInfo("course/.venv/bin/python")
        link.external_attr = 0o120777 << 16
        zf.writestr(link, "/usr/bin/python3")
    return 5


def run(course: Course, subs: Path, jobs: int, db: Path) -> dict[str, float]:
    book = Gradebook(db, course.title)
    t0 = time.perf_counter()
    summary = batch.run(course, subs, book, batch.BatchOptions(jobs=jobs))
    wall = time.perf_counter() - t0
    rows = book.rows()
    compute = sum(r.compute_seconds for r in rows)
    t1 = time.perf_counter()
    report = cohort.build(course, book)
    report_s = time.perf_counter() - t1
    book.close()
    n = summary.graded + summary.rejected + summary.errors
    return {"jobs": jobs, "submissions": n, "graded": summary.graded, "rejected": summary.rejected,
            "errors": summary.errors, "wall_s": wall, "report_s": report_s, "similar_pairs": len(report.similar),
            "gradebook_mb": db.stat().st_size / 1e6,
            "per_minute": 60 * n / wall, "learner_compute_s": compute,
            "grader_overhead_s_per_submission": (wall - compute) / n if jobs == 1 else float("nan")}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=300)
    p.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = p.parse_args()
    machine.usual_bytecode()
    course = load_course(args.root)
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        subs = Path(tmp) / "subs"
        kinds = generate(course, subs, args.n)
        generate(course, Path(tmp) / "warm", 16, seed=1, attacks=False)  # caches and pages warm for both runs
        run(course, Path(tmp) / "warm", 2, Path(tmp) / "warm.sqlite")
        one = run(course, subs, 1, Path(tmp) / "j1.sqlite")
        two = run(course, subs, 2, Path(tmp) / "j2.sqlite")
    speedup = two["per_minute"] / one["per_minute"]
    print(f"{args.n} submissions of {len(course.stages)} stages ({', '.join(s.id for s in course.stages)}): "
          f"{kinds['correct']} correct, {kinds['wrong']} wrong, {kinds['broken']} broken, {kinds['hostile']} "
          f"hostile; {os.cpu_count()} cores")
    print(f"{'':<34}{'--jobs 1':>12}{'--jobs 2':>12}")
    print(f"{'total time (s)':<34}{one['wall_s']:>12.1f}{two['wall_s']:>12.1f}")
    print(f"{'cost per submission (s, wall / n)':<34}{one['wall_s'] / args.n:>12.3f}{two['wall_s'] / args.n:>12.3f}")
    print(f"{'submissions per minute':<34}{one['per_minute']:>12.1f}{two['per_minute']:>12.1f}")
    print(f"{'learner compute (s, all subs)':<34}{one['learner_compute_s']:>12.2f}{two['learner_compute_s']:>12.2f}")
    print(f"{'graded / rejected / errors':<34}{one['graded']:>6} / {one['rejected']} / {one['errors']}"
          f"{two['graded']:>6} / {two['rejected']} / {two['errors']}")
    print(f"{'cohort report from the gradebook (s)':<34}{one['report_s']:>12.2f}{two['report_s']:>12.2f}")
    print(f"{'gradebook size (MB)':<34}{one['gradebook_mb']:>12.1f}{two['gradebook_mb']:>12.1f}")
    print(f"speedup --jobs 2 over --jobs 1: {speedup:.2f}x (target >= 1.7x)")
    print(f"grader's own cost per submission (--jobs 1, wall less learner compute): "
          f"{one['grader_overhead_s_per_submission']:.3f} s (target <= 0.3 s)")
    out = Path(__file__).resolve().parent / "results" / "batch.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"n": args.n, "kinds": kinds, "cores": os.cpu_count(), "jobs1": one, "jobs2": two,
                               "speedup": speedup}, indent=1, default=str) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
