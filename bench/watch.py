"""Save-to-verdict latency of `python -m grader --stage gelu --watch`, beside what a learner would rig up.

Run:  python bench/watch.py [--saves 30] [--others 20] [--skip-others] [--stages all|ID,ID]

Each tool watches a throwaway copy of the course (gelu only). The bench writes the learner's file, alternating a
correct and a wrong gelu so every save changes the verdict, and times the write to the matching verdict on the
tool's output. Ours is measured in place, atomically (temp file renamed over), polling, and for saves written in
two parts 30 ms apart (the screen must end on the whole file's verdict). Beside it, in the same run: pytest-watch
running an equivalent pytest test (defaults, and --spool 0), the watchfiles CLI running pytest, and the watchfiles
CLI running a fresh `python -m grader` per save. Also the watcher's idle resident memory and CPU.
With --stages, our watcher is also timed on each of those stages (in place) in a learners' handout whose learner files
call the stages' references (bench/stagesrc.py), beside the floor no grader can beat: one pass of those calls over
the handout's cases in a plain script. Issue 11's target is a median of at most 100 ms on every stage; where the
learner's own calls take longer than that, the row says how far the grader is beyond them.
With --baseline REV, commit REV's watcher (its own grader and course) is timed on gelu in turns with ours.
Prints a table; writes bench/results/watch.json. Timings on a shared machine are noisy: compare ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench import machine  # noqa: E402

BIN = Path(sys.executable).parent

GOOD = """import math
import numpy as np


def run_gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)))
"""
WRONG = GOOD.replace("0.5 * x", "0.52 * x")  # fails every case, and names no known mistake

EQUIVALENT_TEST = '''"""The gelu stage as a plain pytest test: every fixture case, allclose at the stage's tolerance."""
import json
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).parent
sys.path.insert(0, str(ROOT))
MANIFEST = json.loads((ROOT / "fixtures/gelu/MANIFEST.json").read_text())


@pytest.mark.parametrize("case", sorted(MANIFEST["cases"]))
def test_gelu(case):
    from student.gelu import run_gelu

    entry = MANIFEST["cases"][case]
    x = np.load(ROOT / "fixtures/gelu" / entry["inputs"]["x"]["file"])
    expected = np.load(ROOT / "fixtures/gelu" / entry["expected"][""]["file"])
    np.testing.assert_allclose(run_gelu(x), expected, atol=1e-5, rtol=0)
'''


def make_course(dest: Path) -> Path:
    (dest / "student").mkdir(parents=True)
    text = (ROOT / "course.yaml").read_text()
    (dest / "course.yaml").write_text(text[:text.index("stages:")] + "stages:\n  - id: gelu\n    points: 10\n")
    shutil.copytree(ROOT / "stages" / "gelu", dest / "stages" / "gelu")
    shutil.copytree(ROOT / "common", dest / "common")  # the reference is common/gpt2.py's gelu
    shutil.copytree(ROOT / "fixtures" / "gelu", dest / "fixtures" / "gelu")
    (dest / "student" / "__init__.py").write_text("")
    (dest / "student" / "gelu.py").write_text(GOOD)
    (dest / "test_equivalent.py").write_text(EQUIVALENT_TEST)
    return dest


class Tool:
    """One watcher process, its output read line by line with the arrival time of each verdict."""

    def __init__(self, name: str, cmd: list[str], cwd: Path, verdict: Callable[[str], bool | None],
                 env: dict[str, str] | None = None) -> None:
        self.name, self.verdict = name, verdict
        self.events: list[tuple[float, bool]] = []
        self.cond = threading.Condition()
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
                                     start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            now = time.perf_counter()
            verdict = self.verdict(raw.decode(errors="replace"))
            if verdict is not None:
                with self.cond:
                    self.events.append((now, verdict))
                    self.cond.notify_all()

    def wait_verdict(self, want: bool, since: float, timeout: float) -> float | None:
        """The arrival time of the first verdict `want` after `since`, or None."""
        deadline = time.perf_counter() + timeout
        with self.cond:
            while True:
                hit = next((t for t, v in self.events if t > since and v == want), None)
                if hit is not None or time.perf_counter() > deadline:
                    return hit
                self.cond.wait(0.05)

    def last_verdict(self) -> bool | None:
        with self.cond:
            return self.events[-1][1] if self.events else None

    def stop(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGINT)
            self.proc.wait(timeout=5)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def json_verdict(line: str) -> bool | None:
    if line.startswith("{"):
        return bool(json.loads(line)["passed"])
    return None


def text_verdict(line: str) -> bool | None:
    m = re.match(r"(PASS|FAIL)\s+gelu", line)
    return None if m is None else m.group(1) == "PASS"


def pytest_verdict(line: str) -> bool | None:
    if re.search(r"\d+ (passed|failed).* in [\d.]+s", line):
        return "failed" not in line
    return None


def save(path: Path, text: str, how: str) -> float:
    """Write the learner's file; return the time the save began."""
    t0 = time.perf_counter()
    if how == "atomic":
        tmp = path.with_name(f".{path.name}.bench-tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    elif how == "two-part":
        cut = len(text) // 2
        with open(path, "w") as f:
            f.write(text[:cut])
        time.sleep(0.03)
        t0 = time.perf_counter()  # timed from the write that completes the file
        with open(path, "a") as f:
            f.write(text[cut:])
    else:
        path.write_text(text)
    return t0


def measure(tool: Tool, course: Path, how: str, saves: int, timeout: float, gap: float,
            files: tuple[str, str, str] | None = None) -> dict[str, object]:
    """Alternate correct and wrong saves; time each to its verdict. `files`: (learner file, good, wrong)."""
    times, missed, wrong_end = [], 0, 0
    by_verdict: dict[bool, list[float]] = {True: [], False: []}
    name, good, wrong = files or ("gelu.py", GOOD, WRONG)
    target = course / "student" / name
    want = tool.last_verdict()
    for i in range(saves):
        # two-part saves are all correct: the half-written file fails, and must be superseded by a pass
        want = True if how == "two-part" else not want if want is not None else (i % 2 == 0)
        t0 = save(target, good if want else wrong, how)
        hit = tool.wait_verdict(want, t0, timeout)
        if hit is None:
            missed += 1
            want = tool.last_verdict()
        else:
            times.append((hit - t0) * 1000)
            by_verdict[want].append(times[-1])
        time.sleep(gap)  # let the tool settle (and see a stale verdict arrive, if it would)
        if tool.last_verdict() != want:
            wrong_end += 1
            want = tool.last_verdict()
    return summary(times, missed=missed, wrong_end=wrong_end, to_pass=summary(by_verdict[True]),
                   to_fail=summary(by_verdict[False]), samples=[round(t, 2) for t in times])


def interleaved(tools: dict[str, tuple[Tool, Path]], saves: int, rounds: int = 6) -> dict[str, dict[str, object]]:
    """Several watchers timed in turns of saves/rounds saves each, so load elsewhere falls on every one alike."""
    times: dict[str, list[float]] = {name: [] for name in tools}
    missed = dict.fromkeys(tools, 0)
    for _ in range(rounds):
        for name, (tool, course) in tools.items():
            row = measure(tool, course, "in-place", max(1, saves // rounds), timeout=5, gap=0.15)
            times[name] += row.get("samples", [])  # type: ignore[operator]
            missed[name] += int(row.get("missed", 0))  # type: ignore[call-overload]
    return {name: summary(times[name], missed=missed[name]) for name in tools}


def baseline_course(dest: Path, rev: str) -> Path:
    """Commit rev's grader and course, its learner's gelu correct: what `--baseline` times beside ours."""
    have = subprocess.run(["git", "ls-tree", "--name-only", rev], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.split()
    parts = [p for p in ("course.yaml", "stages", "common", "fixtures", "grader") if p in have]
    archive = subprocess.run(["git", "archive", rev, *parts], cwd=ROOT, capture_output=True, check=True).stdout
    dest.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    (dest / "student").mkdir(exist_ok=True)
    (dest / "student" / "__init__.py").write_text("")
    (dest / "student" / "gelu.py").write_text(GOOD)
    return dest


def progress(name: str, row: dict[str, object]) -> None:
    print(f"  {name}: {row}", file=sys.stderr, flush=True)


def summary(times: list[float], **extra: object) -> dict[str, object]:
    if not times:
        return {"n": 0, **extra}
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return {"n": len(times), "median_ms": round(statistics.median(times), 1), "p90_ms": round(p90, 1),
            "min_ms": round(ordered[0], 1), "max_ms": round(ordered[-1], 1), **extra}


def idle(pid: int, seconds: float) -> dict[str, float]:
    """Resident memory (MB) and CPU (% of one core) of a process over `seconds` of idleness."""
    tick = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / tick

    c0, t0 = cpu(), time.perf_counter()
    time.sleep(seconds)
    c1, t1 = cpu(), time.perf_counter()
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
               if line.startswith("VmRSS:"))
    return {"rss_mb": round(rss / 1024, 1), "cpu_percent": round(100 * (c1 - c0) / (t1 - t0), 2)}


def started(tool: Tool, timeout: float = 30) -> bool:
    return tool.wait_verdict(True, 0, timeout) is not None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--saves", type=int, default=30, help="saves per row for our watcher (default 30)")
    ap.add_argument("--others", type=int, default=20, help="saves per row for the other tools (default 20)")
    ap.add_argument("--skip-others", action="store_true", help="measure only our watcher")
    ap.add_argument("--idle", type=float, default=5.0, help="seconds of idleness to measure (default 5)")
    ap.add_argument("--stages", default="", help="also time our watcher on these stages: all, or ID,ID")
    ap.add_argument("--baseline", metavar="REV", help="also time commit REV's watcher on gelu, in turns with ours")
    args = ap.parse_args()
    machine.usual_bytecode()
    work = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    course = make_course(work / "course")
    rows: dict[str, dict[str, object]] = {}
    grader = [sys.executable, "-m", "grader", "--root", str(course), "--stage", "gelu", "--watch"]
    plain = {"PYTHONDONTWRITEBYTECODE": "1"}  # a fair chance for the tools that start a fresh Python
    try:
        ours = Tool("ours", [*grader, "--format", "json"], course, json_verdict)
        assert started(ours), "our watcher did not start"
        time.sleep(1.0)
        rows["ours, idle"] = idle(ours.proc.pid, args.idle)
        for how in ("in-place", "atomic", "two-part"):
            rows[f"ours, {how}"] = measure(ours, course, how, args.saves, timeout=5, gap=0.15)
            progress(f"ours, {how}", rows[f"ours, {how}"])
        ours.stop()
        polled = Tool("ours --poll", [*grader, "--format", "json", "--poll"], course, json_verdict)
        assert started(polled), "our watcher (--poll) did not start"
        time.sleep(1.0)
        rows["ours --poll, idle"] = idle(polled.proc.pid, args.idle)
        rows["ours --poll, in-place"] = measure(polled, course, "in-place", args.saves, timeout=5, gap=0.15)
        polled.stop()
        if args.baseline:
            base = baseline_course(work / "base", args.baseline)
            # run from base: `-m grader` finds that commit's package first on the path (the current directory)
            old = Tool(f"@{args.baseline}", [sys.executable, "-m", "grader", "--root", str(base), "--stage", "gelu",
                                             "--watch", "--format", "json"], base, json_verdict)
            now = Tool("ours", [*grader, "--format", "json"], course, json_verdict)
            assert started(old) and started(now), "a watcher did not start"
            time.sleep(1.0)
            turns = interleaved({"ours, in turns with the baseline": (now, course),
                                 f"grader @{args.baseline}, in turns with ours": (old, base)}, args.saves)
            rows.update(turns)
            old.stop()
            now.stop()
        if not args.skip_others:
            others = [("fresh python per save (watchfiles CLI)",
                       [str(BIN / "watchfiles"), "--filter", "python",
                        f"{sys.executable} -m grader --root {course} --stage gelu", "student"], text_verdict)]
            pytest_cmd = f"{sys.executable} -m pytest -q -p no:cacheprovider -p no:gpt2_course test_equivalent.py"
            others.append(("watchfiles CLI running pytest",
                           [str(BIN / "watchfiles"), "--filter", "python", pytest_cmd, "student"], pytest_verdict))
            ptw = shutil.which("ptw", path=str(BIN))
            if ptw is None:
                print("pytest-watch is not installed (pip install pytest-watch): its rows are skipped")
            else:
                for label, extra in (("pytest-watch", []), ("pytest-watch --spool 0", ["--spool", "0"])):
                    others.append((label, [ptw, "--nobeep", *extra, "student", "--", "-q", "-p", "no:cacheprovider",
                                           "-p", "no:gpt2_course", "test_equivalent.py"], pytest_verdict))
            for label, cmd, parse in others:
                tool = Tool(label, cmd, course, parse, env=plain)
                time.sleep(3.0)  # each starts differently (some grade at once, some only on a change)
                rows[f"{label}, in-place"] = measure(tool, course, "in-place", args.others, timeout=10, gap=0.5)
                progress(label, rows[f"{label}, in-place"])
                tool.stop()
        if args.stages:
            every_stage(rows, work / "full", args.stages, args.saves)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(rows)
    return 0


def every_stage(rows: dict[str, dict[str, object]], dest: Path, which: str, saves: int) -> None:
    """Our watcher on each stage in turn, in place, in a learners' handout (what learners grade in: public cases,
    recorded decoy outputs) made from a full course copy; learner files call the copy's references. Beside each, the
    floor: one pass of those learner calls over the handout's cases, timed in a plain script."""
    sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
    from stagesrc import calls_script, student_source

    from grader.course import load_course
    from grader.run import threads

    course_dir, handout = dest / "course", dest / "handout"
    shutil.copytree(ROOT, course_dir, ignore=shutil.ignore_patterns(".git", ".venv", ".grader", "__pycache__",
                                                                    "bench", "tests", "docs"))
    subprocess.run([sys.executable, "-m", "grader", "handout", str(handout)], cwd=course_dir, check=True,
                   stdout=subprocess.DEVNULL)
    course = load_course(course_dir)
    ids = [s.id for s in course.stages] if which == "all" else which.split(",")
    for s in course.stages:
        (handout / s.student_file).write_text(student_source(course_dir, s.id))
    for sid in ids:
        stage = course.stage(sid)
        files = (Path(stage.student_file).name, student_source(course_dir, sid),
                 student_source(course_dir, sid, wrong=True))
        script = handout / f"calls_{sid}.py"
        script.write_text(calls_script(handout, sid))
        env = dict(os.environ)
        threads.leave_a_core(env)  # the BLAS threads the grader's child has: the same floor
        done = subprocess.run([sys.executable, str(script)], cwd=handout, capture_output=True, text=True, env=env)
        floor = float(done.stdout.split()[-1]) if done.returncode == 0 else None
        cmd = [sys.executable, "-m", "grader", "--root", str(handout), "--stage", sid, "--watch", "--format", "json"]
        tool = Tool(f"ours on {sid}", cmd, handout, json_verdict)
        assert started(tool), f"our watcher did not start on {sid}"
        time.sleep(1.0)
        row = measure(tool, handout, "in-place", saves, timeout=20, gap=0.3, files=files)
        row["calls_ms"] = round(floor, 1) if floor is not None else None
        rows[f"ours on {sid}, in-place"] = row
        progress(f"ours on {sid}", row)
        tool.stop()


def report(rows: dict[str, dict[str, object]]) -> None:
    ours = rows.get("ours, in-place", {}).get("median_ms")
    print(f"\nsave-to-verdict, gelu stage ({platform.machine()}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f}); ratio = median / ours in place\n")
    print(f"{'':44} {'n':>3} {'median ms':>10} {'p90 ms':>8} {'missed':>6} {'ratio':>6}")
    for name, r in rows.items():
        if "median_ms" in r:
            ratio = f"{float(r['median_ms']) / float(ours):.1f}x" if ours else ""  # type: ignore[arg-type]
            floor = r.get("calls_ms")
            beyond = (f"  calls {floor:.0f} ms, grader {float(r['median_ms']) - floor:.0f} ms beyond them"  # type: ignore
                      if isinstance(floor, float) else "")
            print(f"{name:44} {r['n']:>3} {r['median_ms']:>10} {r['p90_ms']:>8} {r.get('missed', 0):>6} {ratio:>6}"
                  + beyond + (f"  (ended on a wrong verdict {r['wrong_end']} times)" if r.get("wrong_end") else ""))
            for part in ("to_pass", "to_fail"):
                sub = r.get(part)
                if isinstance(sub, dict) and sub.get("n") and sub["n"] != r["n"]:
                    print(f"{'    saves ' + part.replace('_', ' '):44} {sub['n']:>3} {sub['median_ms']:>10} "
                          f"{sub['p90_ms']:>8}")
        elif "rss_mb" in r:
            print(f"{name:44} resident {r['rss_mb']} MB, CPU {r['cpu_percent']}% of a core")
        else:
            print(f"{name:44} no verdicts ({r})")
    out = ROOT / "bench" / "results" / "watch.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"when": time.strftime("%Y-%m-%dT%H:%M:%S"), "load": os.getloadavg()[0],
                               "rows": rows}, indent=1) + "\n")
    print(f"\nwritten to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
