"""Cold start of `python -m grader --stage gelu`, beside its floor, as ratios from the same run.

    python bench/grade_cold.py [--runs 15]

Rows (each a fresh process, interleaved round by round so machine noise hits all rows alike):
  bare interpreter        python -c pass
  import numpy            python -c "import numpy"
  minimal script          loads the 7 gelu fixtures, calls run_gelu, compares with numpy (no isolation, no report)
  grader                  python -m grader --stage gelu (digests checked, child process, report, progress)
  pytest                  pytest -q on an equivalent parametrized test of the same 7 cases
  grader @REV             with --baseline REV: the same command on the grader of another commit, same run
Targets (issue 2): grader <= 1.5x the minimal script, and <= 0.5x pytest; a change to the grader should not be
slower than its --baseline.
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
CORRECT = """import math
import numpy as np


def run_gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
"""
MINIMAL = """import json
import numpy as np
from student.gelu import run_gelu
manifest = json.load(open("fixtures/gelu/MANIFEST.json"))
for case in manifest["cases"].values():
    x = np.load("fixtures/gelu/" + case["inputs"]["x"]["file"])
    expected = np.load("fixtures/gelu/" + case["expected"][""]["file"])
    assert np.allclose(run_gelu(x), expected, atol=1e-5, rtol=0)
"""
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


def setup(tmp: Path, rev: str | None = None) -> None:
    """A course copy with a correct gelu: the working tree's, or commit `rev`'s (grader, stages, fixtures)."""
    if rev is None:
        shutil.copy(ROOT / "course.yaml", tmp / "course.yaml")
        for sub in ("stages", "fixtures", "grader"):
            shutil.copytree(ROOT / sub, tmp / sub, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "archive", rev, "course.yaml", "stages", "fixtures", "grader"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
    (tmp / "student").mkdir()
    (tmp / "student" / "__init__.py").write_text("")
    (tmp / "student" / "gelu.py").write_text(CORRECT)
    (tmp / "minimal.py").write_text(MINIMAL)
    (tmp / "test_equiv.py").write_text(PYTEST)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", metavar="REV", help="also time the grader of this commit (e.g. HEAD~5)")
    args = parser.parse_args()
    py = sys.executable
    rows = {
        "bare interpreter": [py, "-c", "pass"],
        "import numpy": [py, "-c", "import numpy"],
        "minimal script": [py, "minimal.py"],
        "grader": [py, "-m", "grader", "--stage", "gelu"],
        "pytest": [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_equiv.py"],
    }
    where = {name: None for name in rows}
    base = tempfile.TemporaryDirectory(prefix="bench-cold-base-")
    if args.baseline:
        rows[f"grader @{args.baseline}"] = rows["grader"]
        where[f"grader @{args.baseline}"] = base.name
        setup(Path(base.name), args.baseline)
    times: dict[str, list[float]] = {k: [] for k in rows}
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as tmp, base:
        setup(Path(tmp))
        # As on a learner's machine, Python may cache the grader's bytecode (this machine sets
        # PYTHONDONTWRITEBYTECODE=1 globally, which would recompile every module on every run, for every row).
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["NO_COLOR"] = "1"
        for name, cmd in rows.items():  # warm the page cache once
            subprocess.run(cmd, cwd=where[name] or tmp, env=env, capture_output=True)
        for _ in range(args.runs):
            for name, cmd in rows.items():
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, cwd=where[name] or tmp, env=env, capture_output=True, text=True)
                times[name].append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    sys.exit(f"{name} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    p90 = {k: sorted(v)[int(0.9 * (len(v) - 1))] * 1000 for k, v in times.items()}
    print(f"cold start, gelu stage, {args.runs} runs each, interleaved (ms)")
    print(f"{'':20} {'median':>8} {'p90':>8} {'x minimal':>10} {'x pytest':>9}")
    for name in rows:
        print(f"{name:20} {med[name]:8.1f} {p90[name]:8.1f} {med[name] / med['minimal script']:10.2f} "
              f"{med[name] / med['pytest']:9.2f}")
    ratio_min, ratio_pytest = med["grader"] / med["minimal script"], med["grader"] / med["pytest"]
    print(f"grader / minimal script = {ratio_min:.2f} (target <= 1.5): {'met' if ratio_min <= 1.5 else 'MISSED'}")
    print(f"grader / pytest         = {ratio_pytest:.2f} (target <= 0.5): {'met' if ratio_pytest <= 0.5 else 'MISSED'}")
    if args.baseline:
        ratio_base = med["grader"] / med[f"grader @{args.baseline}"]
        print(f"grader / grader @{args.baseline} = {ratio_base:.2f} (no worse: <= 1.0 within noise)")
    out = ROOT / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "grade_cold.json").write_text(json.dumps({"runs": args.runs, "median_ms": med, "p90_ms": p90,
                                                     "grader_over_minimal": ratio_min,
                                                     "grader_over_pytest": ratio_pytest}, indent=1) + "\n")


if __name__ == "__main__":
    main()
