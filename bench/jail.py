"""What the graded jail costs beside today's forked graded child, measured side by side in the same run.

    python bench/jail.py [--rounds 7]

Both settings run the same correct submission's calls through their own API, so only the isolation differs:
  fork   grader/sandbox.py's run(..., graded=True): a fork of this process per stage, confined by grader/confine.py
  jail   grader/jail.py's Jail: one bubblewrap jail per submission (a fresh interpreter, numpy imported in it),
         reused by each stage, with its own cgroup
Rows (median of --rounds, the two settings interleaved round by round so machine noise hits both alike):
  per jail        a run of 1 gelu call: the fixed cost of starting one child / one jail
  per call        (a run of 21 gelu calls - a run of 7) / 14
  gelu            a submission graded on the gelu stage (7 calls)
  four stages     a submission graded on gelu, conv1d, mlp and checkpoint (one jail for all four)
Target (issue 9): the jail adds <= 0.15 s per submission. Needs root (or delegated cgroups) and bubblewrap.
Writes bench/results/jail.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # before numpy is imported:
    os.environ.setdefault(_name, "1")  # both settings compute on one BLAS thread, as the jail does (Settings.cpus)

from grader import fixtures, jail, sandbox  # noqa: E402
from grader.course import load_course  # noqa: E402
from tests.test_jail import GELU  # noqa: E402
from tests.test_stages import CHECKPOINT, CONV1D, MLP  # noqa: E402


def submission() -> Path:
    root = Path(tempfile.mkdtemp(prefix="bench-jail-"))
    (root / "student").mkdir()
    (root / "student" / "__init__.py").write_text("")
    for stage_id, text in (("gelu", GELU), ("conv1d", CONV1D), ("mlp", MLP), ("checkpoint", CHECKPOINT)):
        (root / "student" / f"{stage_id}.py").write_text(text)
    return root


Run = tuple[list[sandbox.Call], list[sandbox.Call], sandbox.Limits, dict[str, int]]


def stage_calls(course, stage_id: str) -> Run:
    """A stage's calls as today's grade.py makes them (arrays), and as it would for the jail (fixture files)."""
    stage = course.stage(stage_id)
    source = fixtures.StageFixtures(course, stage)
    calls = [sandbox.Call(c.id, stage.module, c.function, source.inputs(c), stage.function(c.function).returns)
             for c in stage.cases]
    files = [sandbox.Call(c.id, stage.module, c.function, jail.file_inputs(source, c),
                          stage.function(c.function).returns) for c in stage.cases]
    return calls, files, sandbox.Limits(timeout=stage.timeout, memory_mb=stage.memory_mb), jail.output_caps(
        source, stage.cases)


def forked(root: Path, runs: list[Run]) -> float:
    t0 = time.perf_counter()
    for calls, _, limits, _ in runs:
        outcomes = list(sandbox.run(root, calls, limits, graded=True))
        assert all(o.status is None for o in outcomes), [o.message for o in outcomes]
    return time.perf_counter() - t0


def jailed(root: Path, runs: list[Run]) -> float:
    t0 = time.perf_counter()
    with jail.Jail(root) as j:
        for _, calls, limits, caps in runs:
            outcomes = list(j.run(calls, limits, output_caps=caps))
            assert all(o.status is None for o in outcomes), [o.message for o in outcomes]
    return time.perf_counter() - t0


def measure(rounds: int, rows: dict[str, list]) -> dict[str, dict[str, float]]:
    times: dict[str, dict[str, list[float]]] = {name: {"fork": [], "jail": []} for name in rows}
    for _ in range(rounds):
        for name, runs in rows.items():
            for setting, fn in (("fork", forked), ("jail", jailed)):
                times[name][setting].append(fn(ROOT_SUB, runs))
    return {name: {k: statistics.median(v) for k, v in t.items()} for name, t in times.items()}


ROOT_SUB = Path()


def main() -> int:
    global ROOT_SUB
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    why = jail.unavailable()
    if why is not None:
        print(f"no jail on this machine: {why}")
        return 2
    course = load_course(ROOT)
    ROOT_SUB = submission()
    os.chdir(ROOT_SUB)  # the forked setting hides the course folders it finds upward from here, as a grader would
    gelu = stage_calls(course, "gelu")
    one = ([gelu[0][0]], [gelu[1][0]], gelu[2], gelu[3])
    seven = gelu
    twenty_one = (gelu[0] * 3, gelu[1] * 3, gelu[2], gelu[3])
    rows: dict[str, list] = {"per jail (1 call)": [one], "7 calls": [seven], "21 calls": [twenty_one],
                             "gelu": [gelu], "four stages": [stage_calls(course, s.id) for s in course.stages]}
    measure(1, rows)  # warm: fixtures read, bytecode compiled, page cache filled
    try:
        got = measure(args.rounds, rows)
    finally:
        os.chdir(ROOT)
        shutil.rmtree(ROOT_SUB, ignore_errors=True)
    per_call = {s: (got["21 calls"][s] - got["7 calls"][s]) / 14 for s in ("fork", "jail")}
    table = [("per jail (1 call)", got["per jail (1 call)"]), ("per call", per_call),
             ("gelu (7 calls)", got["gelu"]), ("four stages (one submission)", got["four stages"])]
    print(f"{'':32}{'fork (today)':>14}{'jail':>10}{'added':>10}")
    for name, row in table:
        print(f"{name:32}{row['fork'] * 1000:11.1f} ms{row['jail'] * 1000:7.1f} ms"
              f"{(row['jail'] - row['fork']) * 1000:+7.1f} ms")
    added = got["four stages"]["jail"] - got["four stages"]["fork"]
    print(f"added per submission (four stages): {added:.3f} s; target <= 0.15 s: "
          f"{'met' if added <= 0.15 else 'NOT met'}  (median of {args.rounds} rounds, {os.cpu_count()} CPUs, "
          f"BLAS threads {os.environ['OPENBLAS_NUM_THREADS']})")
    out = ROOT / "bench" / "results" / "jail.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"rounds": args.rounds, "rows": dict(table), "added_per_submission": added},
                              indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
