"""Cold start of `python -m grader --stage ID` for every stage, beside each stage's own floor, as same-run ratios.

    python bench/grade_cold.py [--runs 15] [--stage ID ...] [--baseline REV]

Rows (each a fresh process, interleaved round by round so machine noise hits all rows alike):
  bare interpreter        python -c pass
  import numpy            python -c "import numpy"
  minimal ID              loads the stage's fixtures, calls the learner's functions, compares with numpy at the
                          stage's tolerances (no digests, no child process, no report): bench/stagesrc.py
  grader ID               python -m grader --stage ID (digests checked, child process, report, progress)
  grader --all            every stage in one run (issue 12: under 3x the sum of the stages' minimal scripts)
  pytest gelu             pytest -q on an equivalent parametrized test of the gelu cases
  grader gelu @REV        with --baseline REV: the gelu grade on the grader of another commit, same run
The learner's files call each stage's reference (bench/stagesrc.py), so every stage passes.
Targets: grader ID <= 1.5x minimal ID for every stage (issue 11), grader gelu <= 0.5x pytest (issue 2).
Bytecode caching is left on, as on a learner's machine (the learner's own files are always compiled from source).
Writes bench/results/grade_cold.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from stagesrc import minimal_script, student_source  # noqa: E402

from bench import machine  # noqa: E402
from grader.course import load_course  # noqa: E402

PYTEST = """import json
import numpy as np
import pytest
from student.gelu import run_gelu

MANIFEST = json.load(open("fixtures/gelu/MANIFEST.json"))


@pytest.mark.parametrize("case", sorted(MANIFEST["cases"]))
def test_gelu(case):
    entry = MANIFEST["cases"][case]
    x = np.load("fixtures/gelu/" + entry["inputs"]["x"]["file"])
    expected = np.load("fixtures/gelu/" + entry["expected"][""]["file"])
    np.testing.assert_allclose(run_gelu(x), expected, atol=1e-5, rtol=0)
"""


def setup(tmp: Path, stages: list[str], rev: str | None = None) -> None:
    """A course copy whose learner files pass: the working tree's, or commit `rev`'s grader, stages, fixtures."""
    if rev is None:
        shutil.copy(ROOT / "course.yaml", tmp / "course.yaml")
        for sub in ("stages", "common", "fixtures", "grader"):
            shutil.copytree(ROOT / sub, tmp / sub, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        has_common = subprocess.run(["git", "cat-file", "-e", f"{rev}:common"], cwd=ROOT,
                                    stderr=subprocess.DEVNULL).returncode == 0
        common = ["common"] if has_common else []  # the stages' shared code, since it has had one
        archive = subprocess.run(["git", "archive", rev, "course.yaml", "stages", *common, "fixtures", "grader"],
                                 cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    (tmp / "student").mkdir()
    (tmp / "student" / "__init__.py").write_text("")
    course = load_course(ROOT)
    for stage_id in stages:
        stage = course.stage(stage_id)
        (tmp / stage.student_file).write_text(student_source(ROOT, stage_id))
        (tmp / f"minimal_{stage_id}.py").write_text(minimal_script(ROOT, stage_id))
    (tmp / "test_equiv.py").write_text(PYTEST)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--stage", action="append", default=[], metavar="ID", help="these stages (default: all)")
    parser.add_argument("--baseline", metavar="REV", help="also time another commit's grader on gelu (e.g. HEAD~5)")
    args = parser.parse_args()
    machine.usual_bytecode()
    stages = args.stage or [s.id for s in load_course(ROOT).stages]
    py = sys.executable
    rows: dict[str, list[str]] = {"bare interpreter": [py, "-c", "pass"], "import numpy": [py, "-c", "import numpy"]}
    for s in stages:
        rows[f"minimal {s}"] = [py, f"minimal_{s}.py"]
        rows[f"grader {s}"] = [py, "-m", "grader", "--stage", s]
    if not args.stage:
        rows["grader --all"] = [py, "-m", "grader", "--all"]
    if "gelu" in stages:
        rows["pytest gelu"] = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:gpt2_course",
                               "test_equiv.py"]
    where: dict[str, str | None] = {name: None for name in rows}
    base = tempfile.TemporaryDirectory(prefix="bench-cold-base-")
    if args.baseline:
        rows[f"grader gelu @{args.baseline}"] = [py, "-m", "grader", "--stage", "gelu"]
        where[f"grader gelu @{args.baseline}"] = base.name
        setup(Path(base.name), ["gelu"], args.baseline)
    times: dict[str, list[float]] = {k: [] for k in rows}
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp, base:
        setup(Path(tmp), stages)
        # As on a learner's machine, Python may cache the grader's bytecode (this machine sets
        # PYTHONDONTWRITEBYTECODE=1 globally, which would recompile every module on every run, for every row).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["NO_COLOR"] = "1"
        for name, cmd in rows.items():  # warm the page cache (and the course cache) once
            subprocess.run(cmd, cwd=where[name] or tmp, env=env, capture_output=True)
        for _ in range(args.runs):
            for name, cmd in rows.items():
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, cwd=where[name] or tmp, env=env, capture_output=True, text=True)
                times[name].append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    sys.exit(f"{name} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    report(args, stages, rows, times)


def report(args: argparse.Namespace, stages: list[str], rows: dict[str, list[str]],
           times: dict[str, list[float]]) -> None:
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    p90 = {k: sorted(v)[int(0.9 * (len(v) - 1))] * 1000 for k, v in times.items()}
    print(f"cold start, {args.runs} runs each, interleaved (ms)")
    print(f"{'':28} {'median':>8} {'p90':>8}")
    for name in rows:
        print(f"{name:28} {med[name]:8.1f} {p90[name]:8.1f}")
    ratios = {s: med[f"grader {s}"] / med[f"minimal {s}"] for s in stages}
    print()
    for s, r in ratios.items():
        print(f"grader {s} / minimal {s} = {r:.2f} (target <= 1.5): {'met' if r <= 1.5 else 'MISSED'}")
    result: dict[str, object] = {"runs": args.runs, "median_ms": med, "p90_ms": p90, "grader_over_minimal": ratios}
    if "grader --all" in med:
        total = sum(med[f"minimal {s}"] for s in stages)
        r = med["grader --all"] / total
        print(f"grader --all / sum of minimal scripts = {r:.2f} (target < 3): {'met' if r < 3 else 'MISSED'}")
        result["all_over_minimal_sum"] = r
    if "pytest gelu" in med:
        r = med["grader gelu"] / med["pytest gelu"]
        print(f"grader gelu / pytest gelu = {r:.2f} (target <= 0.5): {'met' if r <= 0.5 else 'MISSED'}")
        result["gelu_over_pytest"] = r
    if args.baseline:
        r = med["grader gelu"] / med[f"grader gelu @{args.baseline}"]
        print(f"grader gelu / grader gelu @{args.baseline} = {r:.2f} (no worse: about 1.0 or less)")
        result["gelu_over_baseline"] = r
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "grade_cold.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
