"""The figures issue 6 is measured by: hostile submissions held, fuzz inputs without a traceback, faults without loss.

    python bench/security.py [--runs 3000]

Hostile: every entry of tests/test_hostile.py's HOSTILE graded on a fresh copy of the mini course, graded rows in
the jail (held = the
exact expected status on every case, no process left alive, no connection made, protected files unchanged, no
scratch folder left). Fuzz: each atheris target in tests/fuzz/ run for --runs inputs (a traceback ends a target
early; known bugs are counted apart). Faults: tests/test_faults.py run under pytest (a strict xfail is a known
bug in a file this work does not own, listed by name). Import scan (`--scan-only` alone): red team round 31's
submission beside an honest one. Writes bench/results/security.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def hostile() -> dict[str, object]:
    from grader import fixtures
    from grader.course import load_course
    from tests.conftest import MINI, copy_course
    from tests.test_hostile import CONTROLS, HOSTILE, Arena, Hostile, can_isolate, grade_hostile

    template = copy_course(MINI, Path(tempfile.mkdtemp(prefix="bench-sec-")) / "template")
    course = load_course(template)
    for stage in course.stages:
        fixtures.build(course, stage)
    os.environ["GRADER_TEST_SECRET"] = "s3cret"
    rows: list[dict[str, object]] = []
    notes: list[str] = []  # what held the graded rows (the jail's note)
    for i, h in enumerate(HOSTILE + [Hostile(name, False, __import__("grader.results").results.Status.PASS)
                                     for name in CONTROLS]):
        control = i >= len(HOSTILE)
        if h.needs_isolation and not can_isolate():
            rows.append({"file": h.file, "graded": h.graded, "control": control, "held": None,
                         "why": "skipped: no other user / namespaces here"})
            continue
        root = copy_course(template, Path(tempfile.mkdtemp(prefix="bench-sec-")) / "c")
        c = load_course(root)
        arena = Arena(c)
        tempfile.tempdir = str(arena.tmp)
        before = [p.read_bytes() for p in arena.protected[::2]]
        try:
            t0 = time.perf_counter()
            result = grade_hostile(c, arena, h)
            seconds = time.perf_counter() - t0
            time.sleep(0.05)
            statuses = [x.status for x in result.cases]
            survivors, connections = arena.survivors(), arena.connections()
            ok = statuses == h.expected() and (control or (not survivors and connections == 0 and not list(
                arena.tmp.iterdir()) and [p.read_bytes() for p in arena.protected[::2]] == before))
        finally:
            tempfile.tempdir = None
            arena.close()
        rows.append({"file": h.file, "graded": h.graded, "control": control, "held": ok,
                     "statuses": [s.value for s in statuses], "seconds": round(seconds, 3)})
        notes.extend(n for n in result.notes if n.startswith("sandbox (graded): "))
    tried = [r for r in rows if not r["control"] and r["held"] is not None]
    controls = [r for r in rows if r["control"]]
    return {"tried": len(tried), "held": sum(bool(r["held"]) for r in tried),
            "skipped": sum(r["held"] is None for r in rows if not r["control"]),
            "controls_succeeded": sum(bool(r["held"]) for r in controls), "controls": len(controls),
            "isolation": notes[-1] if notes else "no graded row ran", "rows": rows}


def fuzz(runs: int) -> dict[str, object]:
    out = {}
    for target in sorted((ROOT / "tests" / "fuzz").glob("fuzz_*.py")):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            proc = subprocess.run([sys.executable, str(target), f"-runs={runs}", "-seed=1", "-max_len=4096",
                                   f"-artifact_prefix={tmp}/"], capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=3600)
        done = re.search(r"Done (\d+) runs", proc.stderr)
        known = {m.group(1): int(m.group(2)) for m in re.finditer(r"KNOWN BUG (.*): (\d+) inputs", proc.stderr)}
        out[target.stem] = {"runs": int(done.group(1)) if done else None, "tracebacks": int(proc.returncode != 0),
                            "known_bug_inputs": known, "seconds": round(time.perf_counter() - t0, 1)}
    return out


def faults() -> dict[str, object]:
    import pytest

    class Collect:
        def __init__(self) -> None:
            self.rows: list[dict[str, object]] = []

        def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
            if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
                xfail = hasattr(report, "wasxfail")
                self.rows.append({"test": report.nodeid.split("::")[-1], "outcome": "xfail" if xfail else
                                  report.outcome, "why": getattr(report, "wasxfail", "")})

    collect = Collect()
    pytest.main([str(ROOT / "tests" / "test_faults.py"), "-q", "-p", "no:cacheprovider", "--no-header",
                 "--disable-warnings"],
                plugins=[collect])
    injected = [r for r in collect.rows if r["test"].startswith(("test_progress_survives", "test_fixture_build_sur",
                                                                "test_gradebook_survives", "test_unpack_survives"))]
    return {"injected": len(injected), "lost_data": sum(r["outcome"] == "failed" for r in injected),
            "out_of_place": sum(r["outcome"] == "xfail" for r in injected),
            "known_bugs": [r["why"] for r in collect.rows if r["outcome"] == "xfail"],
            "other_checks": len(collect.rows) - len(injected), "rows": collect.rows}


def scan() -> dict[str, object]:
    """The import scan on red team round 31's submission (9 helper files of 1 MiB, each naming ~120,000 modules that
    do not exist, imported by every stage file) beside an honest one: seconds and peak memory of a course's searches."""
    import tracemalloc

    from grader.judge import loops

    stages = ["gelu", "conv1d", "mlp", "attention", "block", "gpt2", "generate", "kvcache"]
    out: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("honest", "round31"):
            student = Path(tmp, kind, "student")
            student.mkdir(parents=True)
            helpers = [f"h{i}" for i in range(9)] if kind == "round31" else []
            for h in helpers:
                names = ", ".join(f"x{h}{j:06d}" for j in range(120_000))
                (student / f"{h}.py").write_text(f"from student import {names}\n"[:1 << 20])
            for i, stage in enumerate(stages):
                lines = [f"from student.{stages[i - 1]} import run_{stages[i - 1]}"] if i else []
                lines += [f"from student import {h}" for h in helpers]
                (student / f"{stage}.py").write_text("\n".join(lines) + f"\n\n\ndef run_{stage}(x):\n    return x\n")
            tracemalloc.start()
            started = time.perf_counter()
            kept = [loops.reachable(student.parent, f"student.{stage}") for stage in stages]  # kept, as upstream does
            seconds = time.perf_counter() - started
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            size = sum(f.stat().st_size for f in student.iterdir())
            out[kind] = {"seconds": round(seconds, 4), "peak_mib": round(peak / 2**20, 2),
                         "modules": max(map(len, kept)), "helper_bytes": size}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3000, help="inputs per fuzz target (default 3000)")
    ap.add_argument("--scan-only", action="store_true", help="only the import scan's cost (seconds)")
    args = ap.parse_args()
    if args.scan_only:
        return _say_scan(scan())
    results = {"hostile": hostile(), "fuzz": fuzz(args.runs), "faults": faults(), "scan": scan()}
    h, f, x = results["hostile"], results["fuzz"], results["faults"]
    print()
    print(f"hostile submissions: {h['tried']} tried, {h['held']} held"
          + (f", {h['skipped']} skipped (no isolation here)" if h["skipped"] else "")
          + f"; controls (attacks that must work unprotected): {h['controls_succeeded']}/{h['controls']} worked")
    for r in h["rows"]:
        if r["held"] is False and not r["control"]:
            print(f"  NOT HELD: {r['file']} ({'graded' if r['graded'] else 'self-paced'}): {r['statuses']}")
    print(f"  isolation: {h['isolation']}")
    for name, r in f.items():
        known = "".join(f"; known bug, {n} inputs: {k}" for k, n in r["known_bug_inputs"].items() if n)
        print(f"fuzz {name}: {r['runs']} inputs run, {r['tracebacks']} tracebacks{known} ({r['seconds']} s)")
    print(f"faults injected: {x['injected']}, data lost: {x['lost_data']}, previous state out of place until the "
          f"next run (known bug): {x['out_of_place']}")
    for why in x["known_bugs"]:
        print(f"  known bug (strict xfail): {why}")
    _say_scan(results["scan"])
    out = ROOT / "bench" / "results" / "security.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    held = h["held"] == h["tried"] and all(r["tracebacks"] == 0 for r in f.values()) and x["lost_data"] == 0
    return 0 if held else 1



def _say_scan(r: dict[str, object]) -> int:
    h, a = r["honest"], r["round31"]
    print(f"import scan, a whole course's searches: honest {h['seconds'] * 1000:.1f} ms, {h['peak_mib']} MiB; "
          "round 31's "
          f"{a['helper_bytes'] / 2**20:.0f} MiB of imports {a['seconds'] * 1000:.1f} ms, {a['peak_mib']} MiB "
          f"(x{a['seconds'] / max(h['seconds'], 1e-9):.0f} the time; {a['modules']} modules kept a search)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
