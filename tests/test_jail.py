"""The graded jail (grader/run/jail/) driven directly: correct submissions pass through it, hostile ones are held.

Issue 9's red team reached, from a graded child, the grader's memory and environment, the course folder, .git,
fixtures, an autograder.zip and a gradebook; left ~70 setsid() processes alive; used 8.3 GiB across five children
and memfds; took the grader to 4.7 GiB with forged result frames; and left 360 MiB in /tmp. Each attack is a file
in tests/hostile/jail/ (a `student/double.py` for the mini course), run here through the jail with the verdict
that means it held; the attacks a learner's own machine cannot stop also run self-paced (grader/run/sandbox.py's
fork), where they must succeed, so the jailed test is not vacuous. Outcomes are judged here as grade.py would:
against the fixtures' expected outputs. tests/test_hostile.py runs its graded corpus through the jail too (it is
what grade.Options(graded=True) does), and tests/test_jail_batch.py the attacks that need a batch or a course.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import shutil
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grader import fixtures
from grader.course import Course, load_course
from grader.judge import compare
from grader.results import Status
from grader.run import jail, protocol, sandbox
from grader.run.jail import cgroups, preflight, spawn
from grader.run.protocol import Call, Limits, NpyFile, Outcome
from tests.conftest import ROOT, write_student

JAILED = ROOT / "tests" / "hostile" / "jail"
WHY_NOT = jail.unavailable()
needs_jail = pytest.mark.skipif(WHY_NOT is not None, reason=f"no jail on this machine: {WHY_NOT}")
P, F, B = Status.PASS, Status.FAIL, Status.BAD_OUTPUT
GELU = """import math
import numpy as np


def run_gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
"""
CORRECT = "def run_double(x):\n    return 2 * x\n"


def calls_of(course: Course, stage_id: str, files: bool = False) -> tuple[fixtures.StageFixtures, list[Call]]:
    """A stage's calls as grade.py makes them; with `files`, fixture arrays as their verified .npy files."""
    stage = course.stage(stage_id)
    source = fixtures.StageFixtures(course, stage)

    def inputs(c):
        if not files:
            return source.inputs(c)
        return {**source.inputs(c), **{k: NpyFile(str(p)) for k, p in source.input_files(c).items()}}

    return source, [Call(c.id, stage.module, c.function, inputs(c), stage.function(c.function).returns,
                         max_bytes=32 * source.output_size(c) + (1 << 20)) for c in stage.cases]


def judge(course: Course, stage_id: str, source: fixtures.StageFixtures, outcomes: list[Outcome]) -> list:
    """Each outcome's status, PASS or FAIL where a value came back (compared as grade.py compares)."""
    stage, statuses = course.stage(stage_id), []
    for out in outcomes:
        if out.status is not None:
            statuses.append(out.status)
            continue
        case = stage.case(out.case)
        ok = all(c.ok for c in compare.compare_outputs(out.value or {}, source.expected(case), case.tolerance))
        statuses.append(P if ok else F)
    return statuses


def in_jail(course: Course, text: str, limits: Limits | None = None, settings: jail.Settings | None = None,
            stage_id: str = "double", **options: object) -> tuple[list, list[Outcome], jail.Jail]:
    """Grade `text` as the learner's file of `stage_id` in a jail of its own; (statuses, outcomes, closed jail)."""
    write_student(course, stage_id, text)
    source, calls = calls_of(course, stage_id, files=True)
    limits = limits or Limits(timeout=5.0, memory_mb=1024)
    with jail.Jail(course.root, settings) as j:
        outcomes = list(j.run(calls, limits, **options))  # type: ignore[arg-type]
    return judge(course, stage_id, source, outcomes), outcomes, j


def self_paced(course: Course, text: str, stage_id: str = "double", memory_mb: int = 1024) -> list:
    """The same file in the self-paced setting (a plain fork of this process: its address space counts against
    `memory_mb`, and torch, once another test has imported it, takes much of 1 GiB): the control."""
    write_student(course, stage_id, text)
    source, calls = calls_of(course, stage_id)
    outcomes = list(sandbox.run(course.root, calls, Limits(timeout=5.0, memory_mb=memory_mb)))
    return judge(course, stage_id, source, outcomes)


def hostile(name: str, **fill: object) -> str:
    text = (JAILED / name).read_text()
    for key, value in fill.items():
        text = text.replace(f"@@{key}@@", str(value))
    return text


def jail_processes(uids: set[int] | Callable[[int], bool]) -> list[int]:
    """Host processes, not zombies, running as any of `uids` (the jails' own, fresh ones), or a uid it accepts."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                status = Path(f"/proc/{name}/status").read_text()
            except OSError:
                continue
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            uid = int(fields["Uid"].split()[0])
            if (uid in uids if isinstance(uids, set) else uids(uid)) and not fields["State"].strip().startswith("Z"):
                found.append(int(name))
    return found


def peak_rss_after(work) -> tuple[object, int]:
    """Run `work()`; return its result and how far this process's peak RSS rose meanwhile (bytes)."""
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
    before = _vm("VmHWM")
    out = work()
    return out, _vm("VmHWM") - before


def _vm(key: str) -> int:
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith(key + ":"))
    return int(line.split()[1]) << 10


@pytest.fixture
def quiet_tmp(tmp_path, monkeypatch):
    """The jail's staging folders go here, so the test can see that none is left behind."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(folder))
    return folder


# --- correct submissions -------------------------------------------------------------------------------------


def test_the_jail_runs_wherever_ci_says_it_must():
    """Every jail test skips where no jail can run: a change that broke the jail's start (a preflight refusing it)
    would turn them all into skips and CI green. .ci/run sets GRADER_REQUIRE_JAIL where it installed bubblewrap."""
    if os.environ.get("GRADER_REQUIRE_JAIL") == "1":
        assert WHY_NOT is None, WHY_NOT


@needs_jail
def test_gelu_passes_through_the_jail(tmp_path, quiet_tmp):
    course = load_course(ROOT)
    root = tmp_path / "submission"
    (root / "student").mkdir(parents=True)
    (root / "student" / "__init__.py").write_text("")
    (root / "student" / "gelu.py").write_text(GELU)
    source, calls = calls_of(course, "gelu", files=True)
    with jail.Jail(root) as j:
        outcomes = list(j.run(calls, Limits(timeout=10, memory_mb=4096)))
        note = j.isolation()
    assert judge(course, "gelu", source, outcomes) == [P] * len(calls), [o.message for o in outcomes]
    assert all(o.modules == ["student", "student.gelu"] for o in outcomes)
    assert "bubblewrap" in note and "no network" in note, note
    if os.geteuid() == 0:  # red team round 25: the uid told which jail ran a case (whether a hidden call ended one)
        assert str(j.stats[0]["uid"]) not in note and "a fresh uid outside for each jail" in note, note
    assert [s["emptied"] for s in j.stats] == [True] and list(quiet_tmp.iterdir()) == []


@needs_jail
@pytest.mark.slow  # four real stages in one jail
def test_one_jail_serves_every_stage_of_a_submission(tmp_path):
    from tests.test_stages import CHECKPOINT, CONV1D, MLP

    course = load_course(ROOT)
    root = tmp_path / "submission"
    (root / "student").mkdir(parents=True)
    (root / "student" / "__init__.py").write_text("")
    for stage_id, text in (("gelu", GELU), ("conv1d", CONV1D), ("mlp", MLP), ("checkpoint", CHECKPOINT)):
        (root / "student" / f"{stage_id}.py").write_text(text)
    with jail.Jail(root) as j:
        for stage in course.stages[:4]:  # the checkpoint stage reads an input file with safetensors, in the jail
            source, calls = calls_of(course, stage.id, files=True)
            assert any(isinstance(v, NpyFile) for c in calls for v in c.inputs.values())
            outcomes = list(j.run(calls, Limits(timeout=stage.timeout, memory_mb=stage.memory_mb)))
            assert judge(course, stage.id, source, outcomes) == [P] * len(calls), [o.message for o in outcomes]
    assert len(j.stats) == 1  # one interpreter for the four stages


# --- what the jail must not show -----------------------------------------------------------------------------


@needs_jail
@pytest.mark.slow  # the hostile corpus: jail, then fork control
def test_the_grading_machines_files_are_out_of_reach(mini):
    (mini.root / "autograder.zip").write_bytes(b"PK\x05\x06" + bytes(18))
    (mini.root / "gradebook.sqlite").write_bytes(b"SQLite format 3\0")
    text = hostile("reads_host.py", ROOT=mini.root, GIT=ROOT / ".git")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [F, F, F], [o.output for o in outcomes]
    for target in ("course.yaml", "autograder.zip", "gradebook.sqlite", ".git", "/work", "/root", "/home"):
        assert target in outcomes[0].output
    assert "LEAKED: []" in outcomes[0].output
    assert self_paced(mini, text) == [P, P, P]  # the control: nothing stops it there


@needs_jail
@pytest.mark.slow  # the hostile corpus: jail, then fork control
def test_the_graders_environment_and_secrets_are_absent(mini, monkeypatch):
    monkeypatch.setenv("GRADER_API_TOKEN", "s3cret-token-for-the-test")
    text = hostile("reads_environ.py")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [F, F, F], [o.output for o in outcomes]
    assert "FOUND: []" in outcomes[0].output
    names = eval(outcomes[0].output.split("environment:")[1].splitlines()[0])  # noqa: S307 - our test's output
    assert set(names) <= {"HOME", "LANG", "LD_LIBRARY_PATH", "MKL_NUM_THREADS", "OMP_NUM_THREADS",
                          "OPENBLAS_NUM_THREADS", "PATH", "PWD", "TMPDIR"}, names
    assert self_paced(mini, text) == [P, P, P]


@needs_jail
@pytest.mark.slow  # the hostile corpus: jail, then fork control
def test_the_network_is_unreachable(mini):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.setblocking(False)
    unix = socket.socket(socket.AF_UNIX)
    abstract = f"grader-jail-test-{os.getpid()}"
    unix.bind("\0" + abstract)
    unix.listen(4)
    unix.setblocking(False)
    try:
        text = hostile("uses_network.py", PORT=server.getsockname()[1], ABSTRACT=abstract)
        statuses, outcomes, _ = in_jail(mini, text)
        assert statuses == [F, F, F], [o.output for o in outcomes]
        assert outcomes[0].output.count("blocked:") == 3
        for s in (server, unix):
            with pytest.raises(BlockingIOError):
                s.accept()
        assert self_paced(mini, text) == [P, P, P]
    finally:
        server.close()
        unix.close()


@needs_jail
@pytest.mark.slow  # the hostile corpus; waits on a 1 s call
def test_the_jail_runs_as_a_fresh_unprivileged_uid(mini):
    """Every process of the jail, bubblewrap's own included, is a uid no account has: not root, not the grader."""
    write_student(mini, "double", "import time\n\n\ndef run_double(x):\n    time.sleep(1)\n    return 2 * x\n")
    _, calls = calls_of(mini, "double")
    seen: dict[int, int] = {}
    with jail.Jail(mini.root) as j:
        worker = threading.Thread(target=lambda: list(j.run(calls[:1], Limits(timeout=5))))
        worker.start()
        deadline = time.monotonic() + 5
        while not seen and time.monotonic() < deadline:
            box = j._box
            for pid in box.cgroup.members() if box is not None else []:
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                seen[pid] = int(next(x for x in status.splitlines() if x.startswith("Uid:")).split()[1])
            time.sleep(0.05)
        worker.join()
    assert seen and set(seen.values()) == {j.stats[0]["uid"]}, seen
    if os.geteuid() == 0:
        assert j.stats[0]["uid"] >= spawn.UID_BASE


# --- processes, memory, files --------------------------------------------------------------------------------


@needs_jail
@pytest.mark.slow  # the hostile corpus: 180 processes
def test_setsid_processes_die_with_the_jail_and_the_next_jail_is_unharmed(mini):
    statuses, outcomes, j = in_jail(mini, hostile("forks_setsid.py"))
    assert statuses == [P, P, P], [o.message for o in outcomes]
    started = [int(o.output.split()[1].rstrip(",")) for o in outcomes]
    refused = [int(o.output.split()[3]) for o in outcomes]
    assert all(r > 0 for r in refused) and all(s + r == 70 for s, r in zip(started, refused, strict=True)), \
        [o.output for o in outcomes]  # the pids limit refused some forks
    uids = {s["uid"] for s in j.stats}
    assert jail_processes(uids) == []  # none of the ~180 setsid() processes survived
    assert all(s["emptied"] for s in j.stats)
    layout = cgroups.detect()
    assert not any(name.startswith(s["cgroup"]) for s in j.stats for p in layout.parents.values()
                   for name in os.listdir(p))
    statuses, _, _ = in_jail(mini, CORRECT)  # the same grader process, a new jail: unharmed
    assert statuses == [P, P, P]


@needs_jail
@pytest.mark.slow
def test_memory_is_capped_for_all_processes_together(mini):
    """Five children, each under its own address-space cap, with memfds: the cgroup stops them together."""
    limits = Limits(timeout=20, memory_mb=768)
    (statuses, outcomes, j), rise = peak_rss_after(lambda: in_jail(mini, hostile("eats_memory.py", CHILD_MB=400),
                                                                   limits))
    assert statuses == [Status.MEMORY] * 3, [(o.status, o.message) for o in outcomes]
    assert "768 MiB" in outcomes[0].message
    assert all(s["oom_kills"] > 0 for s in j.stats[:1])
    assert all(s["memory_peak"] is None or s["memory_peak"] <= (768 << 20) for s in j.stats)
    assert rise < 64 << 20  # the grader's own memory did not grow with the submission's


@needs_jail
@pytest.mark.slow  # the hostile corpus: 650,000 files asked for, a few seconds
def test_files_held_by_mappings_cost_the_jail_memory_so_its_cap_bounds_them(mini):
    """Red team round 10 filled the machine's table of open files from one jail; no cgroup counts files, but their
    kernel memory is the jail's, so a jail of 128 MiB holds at most 128 MiB / FILE_COST of them (filetable.py)."""
    from grader.run.jail import filetable

    cap = 128
    bound = (cap << 20) // filetable.FILE_COST  # 524,288 files: what filetable.make_room counts on
    in_use = lambda: int(filetable.FILE_NR.read_text().split()[0])  # noqa: E731
    before, peak, running = in_use(), [0], [True]

    def watch() -> None:
        while running[0]:
            peak[0] = max(peak[0], in_use())
            time.sleep(0.01)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        statuses, outcomes, j = in_jail(mini, hostile("holds_files_by_mapping.py", PROCS=10),
                                        Limits(timeout=30, memory_mb=cap))
    finally:
        running[0] = False
        watcher.join()
    assert peak[0] - before < bound, (before, peak[0], [o.message for o in outcomes])  # 650,000 were asked for
    assert j.stats[0]["oom_kills"] > 0 or peak[0] - before < bound // 2  # stopped by the memory it cost


def test_the_machine_s_file_table_is_made_larger_than_the_jails_could_fill(mini, tmp_path, monkeypatch):
    from grader.run.jail import filetable

    table, used = tmp_path / "file-max", tmp_path / "file-nr"
    monkeypatch.setattr(filetable, "FILE_MAX", table)
    monkeypatch.setattr(filetable, "FILE_NR", used)
    used.write_text("2000\t0\t2466177\n")
    table.write_text("2466177\n")  # this machine's: 24 GiB
    assert filetable.make_room(1, 256) is None  # one jail of 256 MiB: 1 M files at the most, there is room
    assert table.read_text() == "2466177\n"
    note = filetable.make_room(2, 4096)  # two of 4 GiB: 33 M
    assert table.read_text().strip() == str(filetable.CEILING)
    assert note and "raised fs.file-max" in note and "33,554,432" in note
    assert filetable.make_room(2, 4096) is None  # once is enough
    from grader.instructor import commands

    table.write_text("2466177\n")
    said: list[str] = []
    commands._file_table(mini, 2, (), True, said.append)  # --unsandboxed: no jail, nothing to make room for
    assert said == [] and table.read_text() == "2466177\n"
    commands._file_table(mini, 2, (), False, said.append)  # what batch --jobs 2 does before its first submission
    assert len(said) == 1 and "raised fs.file-max" in said[0]
    assert f"{2 * (max(s.memory_mb for s in mini.stages) << 20) // filetable.FILE_COST:,}" in said[0]

    class ReadOnly(type(table)):  # /proc/sys in a container
        def write_text(self, *a, **k):
            raise OSError(30, "Read-only file system")

    monkeypatch.setattr(filetable, "FILE_MAX", ReadOnly(tmp_path / "ro"))
    (tmp_path / "ro").write_text("100000\n")
    note = filetable.make_room(1, 1024)
    assert note and note.startswith("warning:") and "sysctl -w fs.file-max=" in note and "Read-only" in note


@needs_jail
@pytest.mark.slow  # the hostile corpus: fills /tmp
def test_tmp_is_small_private_and_gone_afterwards(mini, quiet_tmp):
    statuses, outcomes, _ = in_jail(mini, hostile("fills_tmp.py"))
    assert statuses == [F, F, F], [o.output for o in outcomes]
    wrote = eval(outcomes[0].output.split("WROTE MiB:")[1].strip())  # noqa: S307 - our own test's output
    assert wrote["/tmp"] <= 64 and wrote["/var/tmp"] <= 64 and wrote["/dev/shm"] <= 1, wrote
    assert list(quiet_tmp.iterdir()) == []  # nothing of the jail is left on the host


@needs_jail
@pytest.mark.slow  # the hostile corpus: jail, then fork control
def test_each_case_gets_only_its_own_output(mini):
    statuses, outcomes, _ = in_jail(mini, hostile("late_output.py"))
    assert statuses == [P, P, P]
    for out in outcomes:
        assert out.output.count("own:") == 1 and "LATE" not in out.output, [o.output for o in outcomes]
    assert any("LATE" in o for o in _self_paced_stdout(mini, hostile("late_output.py")))  # the control


def _self_paced_stdout(course: Course, text: str) -> list[str]:
    write_student(course, "double", text)
    _, calls = calls_of(course, "double")
    return [o.output for o in sandbox.run(course.root, calls, Limits(timeout=5.0))]


# --- the result pipe -----------------------------------------------------------------------------------------


@needs_jail
@pytest.mark.slow  # the hostile corpus: sends 512 MiB
def test_a_huge_forged_frame_is_refused_as_it_arrives(mini):
    (result, rise) = peak_rss_after(lambda: in_jail(mini, hostile("forges_huge_frame.py")))
    statuses, outcomes, _ = result
    assert statuses == [B, B, B]
    assert all(o.message.startswith("returned more than 1,0") for o in outcomes), [o.message for o in outcomes]
    assert rise < 32 << 20, rise  # 512 MiB announced and sent; the grader held at most the cap


BAD_HEADERS = [b'{"status": "ok", "keys": [""], "parts": [1e999]}', b'{"start": 1e999}', b'{"status": NaN}',
               b'{"parts": [-1]}', b'{"parts": [true]}', b"[1, 2]", b"\xff\xfe{}", b"[" * 100_000,
               b'{"status": "ok", "keys": [""], "parts": [' + b"9" * 5000 + b"]}"]


@needs_jail
@pytest.mark.parametrize("header", BAD_HEADERS[:3], ids=["inf-part", "inf-start", "nan"])
@pytest.mark.slow  # a jail each; the frame reader's own test takes every header
def test_a_forged_bad_header_is_bad_output_not_a_crash(mini, header):
    statuses, outcomes, _ = in_jail(mini, hostile("forges_bad_frame.py", HEADER=repr(header)))
    assert statuses == [B, B, B], [o.message for o in outcomes]


@pytest.mark.parametrize("header", BAD_HEADERS)
def test_the_frame_reader_refuses_every_bad_header(header):
    frames = protocol.Frames()
    frames.limit = 1 << 20
    assert list(frames.feed(protocol.HEADER.pack(len(header)) + header)) == []
    assert frames.broken


def test_the_frame_reader_refuses_an_oversized_frame_from_its_header_alone():
    frames = protocol.Frames()
    frames.limit = 1000
    head = b'{"status": "ok", "keys": [""], "parts": [1001]}'
    assert list(frames.feed(protocol.HEADER.pack(len(head)) + head)) == []
    assert frames.broken and "more than" in frames.broken and len(frames.buf) <= len(head) + 8
    frames = protocol.Frames()
    assert list(frames.feed(protocol.HEADER.pack(protocol.HEADER_CAP + 1))) == [] and frames.broken
    frames = protocol.Frames()  # between calls (limit 0) no frame may carry a payload at all
    assert list(frames.feed(protocol.HEADER.pack(len(head)) + head)) == [] and "did not ask" in frames.broken


def test_a_forged_npy_payload_is_refused():
    import io

    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.arange(4.0), allow_pickle=False)
    good = buf.getvalue()
    assert np.array_equal(protocol.read_npy(good), np.arange(4.0))
    lying = good.replace(b"(4,)", b"(9999999999999,)".ljust(4))  # a shape far larger than the bytes sent
    for data in (lying, good[:-8], good + b"\0" * 8, b"\x93NUMPY\x01\x00" + b"\xff" * 20):
        with pytest.raises(Exception):  # noqa: B017 - any refusal is right; what matters is no huge allocation
            protocol.read_npy(data)
    call = Call("c", "student.x", "f", {})
    out = protocol.result_of(call, {"status": "ok", "keys": [""]}, [lying], 0.0)
    assert out.status is B
    # red team round 9: UCS-4 text holding a value past 0x10FFFF (or a surrogate) made str() raise in the grader
    for points, order in (([0x41, 0x110000], "<"), ([0xD800], "<"), ([0x41, 0xFFFFFFFF], ">")):
        text = np.frombuffer(np.array(points, dtype=f"{order}u4").tobytes(), dtype=f"{order}U{len(points)}")
        buf = io.BytesIO()
        np.lib.format.write_array(buf, text.reshape(()), allow_pickle=False)
        assert protocol.result_of(call, {"status": "ok", "keys": [""]}, [buf.getvalue()], 0.0).status is B
    # red team round 9: numpy's own reader tokenizes a header holding `L` (30 ms for 10 KB of newlines, up to a
    # thousand payloads a result); a header is read only as numpy writes it
    for header in ("{'descr': '<f8', 'fortran_order': False, 'shape': (1L,), }" + "\n" * 9000,
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (1L,), }    \n",
                   "{'shape': (1,), 'descr': '<f8', 'fortran_order': False}    \n"):
        raw = header.encode()
        forged = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(raw)) + raw + b"\0" * 8
        assert protocol.result_of(call, {"status": "ok", "keys": [""]}, [forged], 0.0).status is B
    for fine in (np.asarray("héllo ✓"), np.asarray("abc", dtype=">U3")):
        buf = io.BytesIO()
        np.lib.format.write_array(buf, fine, allow_pickle=False)
        assert str(protocol.read_npy(buf.getvalue())) == str(fine)


@needs_jail
@pytest.mark.slow  # the hostile corpus
def test_a_lone_surrogate_comes_back_as_safe_text(mini):
    statuses, outcomes, _ = in_jail(mini, hostile("surrogate_message.py"))
    assert statuses == [Status.EXCEPTION] * 3
    for out in outcomes:
        assert "bad ? value" in out.message and "out \\ud800 put" in out.output, (out.message, out.output)
        (out.message + out.output).encode("utf-8")  # printable, storable: no UnicodeEncodeError


# --- ends: timeouts, crashes, refusals -----------------------------------------------------------------------


@needs_jail
@pytest.mark.slow  # two timeouts, two jails
def test_a_timeout_kills_the_jail_and_the_rest_run_in_a_new_one(mini):
    text = "import time\n\n\ndef run_double(x):\n    if x.size != 128:\n        time.sleep(60)\n    return 2 * x\n"
    statuses, outcomes, j = in_jail(mini, text, Limits(timeout=0.5))
    assert statuses == [Status.TIMEOUT, P, Status.TIMEOUT]
    assert "took longer than 0.5 s" in outcomes[0].message
    assert len(j.stats) == 2 and all(s["emptied"] for s in j.stats)  # a jail per timeout; 'random' ran in the 2nd


@needs_jail
@pytest.mark.parametrize("body, status, fragment", [  # a jail each: one kind of death in the fast loop
    pytest.param("import os\n    os.abort()", Status.CRASHED, "SIGABRT", marks=pytest.mark.slow),
    ("import os\n    os._exit(3)", Status.EXITED, "exit code 3"),
    pytest.param("import numpy as np\n    return np.ones(1 << 31)", Status.MEMORY, "ran out of memory",
                 marks=pytest.mark.slow),
    pytest.param("import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)", Status.CRASHED, "SIGKILL",
                 marks=pytest.mark.slow),
    pytest.param("import os, signal\n    for pid in (os.getppid(), -1, 1):\n        try:\n"
                 "            os.kill(pid, signal.SIGKILL)\n        except OSError:\n            pass\n"
                 "    os.kill(os.getpid(), signal.SIGKILL)", Status.CRASHED, "SIGKILL", marks=pytest.mark.slow),
    pytest.param("import time\n    while True:\n        time.sleep(0.01)", Status.TIMEOUT,
                 "It was at student/double.py:5", marks=pytest.mark.slow),
])
def test_deaths_are_said_as_sandbox_py_says_them(mini, body, status, fragment):
    """Each way a call can end without an answer, in the words of the forked path; a timeout names the line."""
    statuses, outcomes, _ = in_jail(mini, f"def run_double(x):\n    print('before')\n    {body}\n",
                                    Limits(timeout=1.0, memory_mb=1024))
    assert statuses == [status] * 3, [o.message for o in outcomes]
    assert fragment in outcomes[0].message
    assert all(o.output.startswith("before") for o in outcomes), [o.output for o in outcomes]
    if status is Status.TIMEOUT:
        assert outcomes[0].where == "student/double.py:5  time.sleep(0.01)"


@needs_jail
@pytest.mark.slow  # the hostile corpus: burns CPU
def test_a_cpu_budget_stops_a_call_that_burns_it(mini):
    text = "import threading\n\n\ndef spin():\n    while True:\n        pass\n\n\ndef run_double(x):\n" \
           "    for _ in range(3):\n        threading.Thread(target=spin, daemon=True).start()\n    spin()\n"
    statuses, outcomes, j = in_jail(mini, text, Limits(timeout=10), cpu_seconds=0.3)
    assert statuses == [Status.TIMEOUT] * 3, [o.message for o in outcomes]
    assert "0.3 s of CPU time" in outcomes[0].message and all(o.seconds < 5 for o in outcomes)


@needs_jail
def test_the_spare_is_started_beside_the_grading_and_lives_until_it_is_adopted(mini):
    """The next submission's jail starts in the process's starter thread while this one is graded. That thread lives
    as long as the process: the parent-death signal of a jail (bubblewrap's and the grader's) follows the thread that
    forked it, so a thread per spare, ended once it had started one, killed every spare at once."""
    from grader.run.jail import spare as warm

    warm.discard_spare()
    write_student(mini, "double", "def run_double(x):\n    return 2 * x\n")
    _, calls = calls_of(mini, "double", files=True)
    try:
        with jail.Jail(mini.root, warm=True) as j:
            list(j.run(calls[:1], Limits(timeout=5.0, memory_mb=1024)))
        spare = warm._spares[os.getpid()][0]  # the oldest: the next to be adopted
        assert spare.take() is not None and spare.thread_name == "grader-jail-starter"
        time.sleep(0.5)  # the thread that started it has long been waiting for the next request
        with jail.Jail(mini.root, warm=True) as j:
            assert j._ensure_box(1024) is spare.box and spare.box.proc.poll() is None
    finally:
        warm.discard_spare()


@needs_jail
def test_a_jail_s_meminfo_is_its_own_limit_whatever_stage_its_spare_was_started_for(mini):
    """Red team round 27: a spare started while a stage of 4,096 MiB was graded was adopted two learners later for a
    stage of 2,048, and its /proc/meminfo (written when it started) said 4,096: set by how the learner before had
    graded. A jail, and a spare, serve only stages of the memory they were started with."""
    from grader.run.jail import spare as warm

    warm.discard_spare()
    write_student(mini, "double", "def run_double(x):\n    print(open('/proc/meminfo').readline().split()[1])\n"
                                  "    return 2 * x\n")
    _, calls = calls_of(mini, "double", files=True)
    try:
        with jail.Jail(mini.root, warm=True) as j:  # starts spares of 2,048 MiB
            big = list(j.run(calls[:1], Limits(timeout=5.0, memory_mb=2048)))
            small = list(j.run(calls[:1], Limits(timeout=5.0, memory_mb=1024)))  # the same submission's next stage
        with jail.Jail(mini.root, warm=True) as j:  # the next submission's first stage, of another memory
            other = list(j.run(calls[:1], Limits(timeout=5.0, memory_mb=1024)))
    finally:
        warm.discard_spare()
    said = [o[0].output.strip() for o in (big, small, other)]
    assert said == [str(2048 << 10), str(1024 << 10), str(1024 << 10)], said


@needs_jail
def test_a_jail_that_takes_no_more_jobs_costs_its_call_not_a_hung_batch(mini):
    """Red team round 25: a worker that forged its resident's `ended` and ran on kept the resident from reading the
    command socket; the grader's next jobs queued there until its send blocked in the kernel, outside every timeout,
    and the batch with it (socket.send_fds drops its flags in Python 3.11: a MSG_DONTWAIT given to it still waited).
    A job the socket will not take now ends that jail: the call it was for crashes, named, the rest go on."""
    import signal

    from grader.run.jail import job

    write_student(mini, "double", CORRECT)
    source, calls = calls_of(mini, "double", files=True)
    with jail.Jail(mini.root) as j:
        first = list(j.run(calls[:1], Limits(timeout=5.0, memory_mb=1024)))
        box = j._box
        assert box is not None and first[0].status is None
        deadline = time.monotonic() + 30
        while not box.idle() and time.monotonic() < deadline:  # the first job's worker may still be ending
            time.sleep(0.01)
        resident = next(pid for pid in box.cgroup.members() if pid != box.proc.pid)
        os.kill(resident, signal.SIGSTOP)  # it reads no more jobs, as when a forged `ended` keeps it waiting
        stat = Path(f"/proc/{resident}/stat")
        while stat.read_text().rsplit(")", 1)[1].split()[0] != "T" and time.monotonic() < deadline:
            time.sleep(0.001)  # stopped, not just signalled: woken, it could still read one message below
        box.command.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1)  # the kernel's least: full in a few
        with contextlib.suppress(BlockingIOError):
            while True:
                box.command.send(b"{}", socket.MSG_DONTWAIT)
        rest = list(j.run(calls[1:], Limits(timeout=5.0, memory_mb=1024)))  # before the fix: blocked for good
    assert rest[0].status is Status.CRASHED and rest[0].message == job.STALLED, rest[0].message
    assert judge(mini, "double", source, first + rest)[1:] == [Status.CRASHED, P], [o.message for o in rest]
    assert [s["emptied"] for s in j.stats] == [True, True]


@needs_jail
def test_a_submission_at_intake_s_cap_keeps_its_files_beside_the_references(mini, tmp_path):
    """Red team round 29: a submission within a few KB of intake's 32 MiB cap lost its own stage file in a stage
    graded with references (the copy of student/ with them was cut at the same cap, silently): a false fail. The
    references are the grader's bytes, and have room of their own above the cap."""
    import shutil

    from grader.run.confine import GRADED_TREE_CAP

    root = tmp_path / "sub"
    (root / "student" / "double").mkdir(parents=True)
    (root / "student" / "__init__.py").write_text("")
    code = "def run_double(x):\n    return 2 * x\n" + "#" * 63 + "\n"  # 100 bytes
    (root / "student" / "double" / "__init__.py").write_text(code)  # in a folder: read after the top's files
    (root / "student" / "pad.bin").write_bytes(b"#" * (GRADED_TREE_CAP - 200))  # within intake's cap
    copy = tmp_path / "with_references"
    shutil.copytree(root, copy)
    (copy / "student" / "reference_part.py").write_text("# " + "r" * 147 + "\n")  # the references' 150 bytes: the
    # top's files fit, and the stage's own file, read last, would not
    source, calls = calls_of(mini, "double", files=True)
    with jail.Jail(root) as j, j.files_of(copy):
        outcomes = list(j.run(calls, Limits(timeout=5.0, memory_mb=1024)))
    assert judge(mini, "double", source, outcomes) == [P, P, P], [o.message for o in outcomes]


def test_a_bug_in_starting_a_spare_is_raised_where_it_is_adopted_and_the_starter_goes_on(mini, monkeypatch):
    from grader.run.jail import spare as warm

    def broken(*args: object) -> None:
        raise KeyError("a bug")

    layout = cgroups.Layout(1, {})
    monkeypatch.setattr(warm, "start", broken)
    first = warm._Spare(layout, jail.Settings(), 64)
    with pytest.raises(KeyError, match="a bug"):
        first.take()

    def no_jail(*args: object) -> None:
        raise jail.JailError("no jail here")

    monkeypatch.setattr(warm, "start", no_jail)
    assert warm._Spare(layout, jail.Settings(), 64).take() is None  # served (the thread did not die of the bug), and
    # a jail that cannot start is the next submission's to start and explain


@needs_jail
@pytest.mark.slow  # two timeouts, three jails
def test_after_a_timeout_a_warm_jail_s_remaining_calls_run_in_its_spare(mini, monkeypatch):
    """A batch's jail ended by a timeout mid-pass goes on in the warm spare, already started, not in a cold one."""
    from grader.run.jail import spare as warm

    started = []

    def recorded(*args, **kwargs):  # type: ignore[no-untyped-def]
        started.append(spawn.start(*args, **kwargs))
        return started[-1]

    warm.discard_spare()
    from grader.run.jail import box

    monkeypatch.setattr(box, "start", recorded)  # a jail started cold
    monkeypatch.setattr(warm, "start", recorded)  # ... or as a spare
    write_student(mini, "double", "import time\n\n\ndef run_double(x):\n    if x.size != 128:\n"
                                  "        time.sleep(60)\n    return 2 * x\n")
    source, calls = calls_of(mini, "double", files=True)
    try:
        with jail.Jail(mini.root, warm=True) as j:
            outcomes = list(j.run(calls, Limits(timeout=0.5, memory_mb=1024)))
    finally:
        warm.discard_spare()
    assert judge(mini, "double", source, outcomes) == [Status.TIMEOUT, P, Status.TIMEOUT]
    # the first jail, then a spare for the calls after the timeout; the spares kept for what comes next, idle
    assert [b.jobs > 0 for b in started] == [True, True] + [False] * warm.KEEP, [b.jobs for b in started]


@needs_jail
@pytest.mark.slow  # waits on 0.6 s calls
def test_a_cancel_ends_the_jail_and_the_run(mini):
    write_student(mini, "double", "import time\n\n\ndef run_double(x):\n    time.sleep(0.6)\n    return 2 * x\n")
    _, calls = calls_of(mini, "double")
    outcomes: list[object] = []
    with jail.Jail(mini.root) as j:  # cancelled once the first call is back (a clock would fail on a busy machine)
        outcomes.extend(j.run(calls, Limits(timeout=5), cancel=lambda: bool(outcomes)))
        assert j._box is None  # killed at the cancel, not kept for a next stage
    assert 1 <= len(outcomes) < 3 and all(s["emptied"] for s in j.stats)


def test_without_bubblewrap_graded_mode_refuses_and_names_the_install(mini, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    with pytest.raises(jail.JailUnavailable) as e:
        jail.Jail(mini.root)
    assert "apt-get install bubblewrap" in str(e.value) and "--unsandboxed" in str(e.value)
    write_student(mini, "double", CORRECT)
    _, calls = calls_of(mini, "double")
    with jail.Jail(mini.root, unsandboxed=True) as j:
        outcomes = list(j.run(calls, Limits(timeout=5)))
        assert j.isolation().startswith("NOT jailed (graded with --unsandboxed")
    assert all(o.status is None and o.isolation.startswith("NOT jailed") for o in outcomes)


def test_without_cgroups_graded_mode_refuses(mini, monkeypatch):
    def nothing() -> cgroups.Layout:
        raise cgroups.CgroupUnavailable("cgroup v1: no writable memory or pids hierarchy")

    monkeypatch.setattr(cgroups, "detect", nothing)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: "/usr/bin/bwrap")
    with pytest.raises(jail.JailUnavailable, match="no usable cgroup"):
        jail.Jail(mini.root)


def test_without_user_namespaces_graded_mode_refuses_and_says_how_to_allow_them(mini, monkeypatch):
    import subprocess

    said = b"bwrap: No permissions to create a new namespace, likely because the kernel does not allow " \
           b"non-privileged user namespaces."
    monkeypatch.setattr(cgroups, "detect", lambda: cgroups.Layout(1, {}))
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/nowhere/{name}")
    class Refused:  # bubblewrap as it exits on such a kernel
        returncode = 1

        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def communicate(self, timeout: float | None = None) -> tuple[bytes, bytes]:
            return b"", said

    monkeypatch.setattr(subprocess, "Popen", Refused)
    preflight.probe.cache_clear()
    try:
        with pytest.raises(jail.JailUnavailable, match="unprivileged_userns_clone=1") as e:
            jail.Jail(mini.root)
        assert "No permissions to create a new namespace" in str(e.value)
        assert "apparmor_restrict_unprivileged_userns=0" in str(e.value)
    finally:
        preflight.probe.cache_clear()


def test_a_bubblewrap_stuck_in_the_kernel_refuses_graded_mode_instead_of_hanging(mini, tmp_path, monkeypatch):
    """Red team round 15 wedged a kernel worker: every bubblewrap then hung loading its seccomp filter, and graded
    mode hung with it. The preflight probe loads the jail's filter and gives up after PROBE_WITHIN, without waiting
    on a process the kernel may never let end."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\nexec sleep 600\n")  # a bubblewrap that never starts its jail
    fake.chmod(0o755)
    monkeypatch.setattr(cgroups, "detect", lambda: cgroups.Layout(1, {}))
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: str(fake) if name == "bwrap" else f"/usr/bin/{name}")
    monkeypatch.setattr(preflight, "prepare", lambda *a: None)  # run as we are: no view, no fresh uid
    monkeypatch.setattr(preflight, "PROBE_WITHIN", 0.5)
    preflight.probe.cache_clear()
    try:
        with pytest.raises(jail.JailUnavailable, match="did not start a jail within 0.5 s") as e:
            jail.Jail(mini.root)
        assert "dmesg" in str(e.value) and "--unsandboxed" in str(e.value)
    finally:
        preflight.probe.cache_clear()


def test_cgroup_v2_is_detected_and_limited_through_its_files(tmp_path, monkeypatch):
    """v2 (most instructors' machines) on a fake cgroupfs: the files written are the interface's own."""
    group = tmp_path / "user.slice" / "grader.scope"
    group.mkdir(parents=True)
    (group / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (group / "cgroup.subtree_control").write_text("memory pids cpu\n")
    monkeypatch.setattr(cgroups, "_mounts", lambda: [(str(tmp_path), "/", "cgroup2", set())])
    monkeypatch.setattr(cgroups, "_own_paths", lambda: {"": "/user.slice/grader.scope"})
    layout = cgroups.detect()
    assert layout.version == 2 and layout.parents == {"": group}
    real_mkdir = Path.mkdir

    def mkdir(self, *args, **kwargs):  # a fake group folder holds the interface files, as the kernel's does
        real_mkdir(self, *args, **kwargs)
        for name in ("memory.max", "memory.swap.max", "pids.max", "cpu.max", "cgroup.kill", "cgroup.procs"):
            (self / name).write_text("")

    monkeypatch.setattr(Path, "mkdir", mkdir)
    cg = cgroups.Cgroup(layout, memory_mb=512, pids=32, cpus=1.5)
    folder = group / cg.name
    assert {n: (folder / n).read_text() for n in ("memory.max", "memory.swap.max", "pids.max", "cpu.max")} == {
        "memory.max": str(512 << 20), "memory.swap.max": "0", "pids.max": "32", "cpu.max": "150000 100000"}
    assert cg.procs_files() == [str(folder / "cgroup.procs")]
    assert cg.kill() is True and (folder / "cgroup.kill").read_text() == "1"


@needs_jail
def test_no_public_case_shows_what_a_hidden_case_was_given(mini):
    """A graded submission runs every stage's public cases, then the hidden ones; a job's folder holds its own inputs.

    So a public call can neither read a hidden case's input file nor print what a hidden call stashed in /tmp.
    """
    from grader.judge import grade

    write_student(mini, "double", hostile("reads_hidden_inputs.py"))
    write_student(mini, "combine", "import os\n\n\ndef run_combine(x, y):\n    print(os.listdir('/tmp'))\n"
                  "    return 2 * x + y\n")
    stages = [mini.stage("double"), mini.stage("combine")]
    with jail.Jail(mini.root) as j:
        results = grade.graded_stages(mini, stages, grade.Options(graded=True, jail=j, hidden=True))
    double, combine = results
    assert [c.case for c in double.cases] == ["small", "random", "secret"]  # the stage's order, after two passes
    assert [c.status for c in double.cases] == [P, P, P] and double.cases[2].stdout == ""  # hidden: nothing shown
    shown = "".join(c.stdout for r in results for c in r.cases)
    assert "(5,)" not in shown and "seen-5.npy" not in shown, shown  # the hidden case's x is [5]
    assert "SEEN (2, 3)" in shown and "SEEN (8, 16)" in shown  # public inputs: the control, in the same calls
    assert "HELD (2, 3)" in shown  # its own inputs' descriptors: read, and no hidden one among them
    assert len(j.stats) == 1  # one jail for both passes of both stages


@pytest.mark.parametrize("setting", ["jail", "fork"])
@pytest.mark.slow  # the hostile corpus: a timeout each
def test_a_forged_stack_cannot_make_the_grader_read_its_files(mini, setting):
    """The stack file is written by the learner's process: a frame it forges must not name a file to read."""
    if setting == "jail" and WHY_NOT is not None:
        pytest.skip(f"no jail on this machine: {WHY_NOT}")
    secret = mini.root / "stages" / "double" / "reference.py"
    text = hostile("forges_stack.py", TARGET=secret, STUDENT=mini.root / "student")
    if setting == "jail":
        _, outcomes, _ = in_jail(mini, text, Limits(timeout=0.5, memory_mb=1024))
    else:
        write_student(mini, "double", text)
        _, calls = calls_of(mini, "double")
        outcomes = list(sandbox.run(mini.root, calls[:1], Limits(timeout=0.5)))
    assert outcomes[0].status is Status.TIMEOUT
    assert outcomes[0].where == "student/double.py:13  time.sleep(0.01)", outcomes[0].where  # the real line
    assert "2 * x" not in outcomes[0].message and "def double" not in outcomes[0].message


@needs_jail
@pytest.mark.slow  # as the hidden-inputs test above
def test_grade_stage_with_a_jail_never_runs_public_and_hidden_cases_in_one_job(mini):
    """Called directly (not through graded_stages), a graded stage still gets two passes."""
    from grader.judge import grade

    write_student(mini, "double", hostile("reads_hidden_inputs.py"))
    with jail.Jail(mini.root) as j:
        result = grade.grade_stage(mini, mini.stage("double"), grade.Options(graded=True, jail=j))
    shown = "".join(c.stdout for c in result.cases)
    assert [c.case for c in result.cases] == ["small", "random", "secret"] and "SEEN (5,)" not in shown, shown


def test_a_new_empty_group_of_another_namespace_s_grader_is_not_swept(tmp_path):
    """CI's grader runs in its own PID namespace: the pid in its group's name is dead here, and its new group is
    empty until its jail joins it. The sweep took such groups, and that grader's jail failed to start."""
    from grader.run.jail import staging

    layout = cgroups.Layout(1, {"memory": tmp_path})
    dead = 4_000_000  # above pid_max: no such process here
    fresh, old = tmp_path / f"{cgroups.PREFIX}{dead}-1", tmp_path / f"{cgroups.PREFIX}{dead}-2"
    fresh.mkdir()
    old.mkdir()
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    assert staging.sweep_groups(layout) == 1
    assert fresh.exists() and not old.exists()


@needs_jail
def test_no_call_can_signal_another_jail_through_the_files_they_share(mini):
    """Locks, leases, inotify watches and page-cache questions on a file every jail sees are refused (seccomp)."""
    text = hostile("signals_through_shared_files.py")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [F, F, F], [o.output for o in outcomes]
    assert "worked:" not in outcomes[0].output and outcomes[0].output.count("blocked:") == 30, outcomes[0].output
    assert self_paced(mini, text) == [P, P, P]  # the control: each works outside the jail


@needs_jail
def test_no_call_can_move_a_machine_wide_counter_a_later_jail_reads(mini):
    """Red team round 18 set, in a hidden call, numbers the kernel hands out machine-wide (pidfs inodes, autogroups,
    shmem inodes, audit session ids) and read them exactly in a later learner's public call: none can be moved."""
    text = hostile("moves_machine_counters.py")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [F, F, F], [o.output for o in outcomes]
    output = outcomes[0].output
    assert "worked:" not in output and output.count("blocked:") == 6, output
    assert "threads True fork True private True" in output, output
    assert self_paced(mini, text, memory_mb=16384) == [P, P, P]  # the control: outside the jail they work (a
    # thread's stack and a shared mapping in a fork of this process)


def test_a_graded_call_may_not_take_real_time_scheduling_whatever_the_grader_was_started_with(monkeypatch):
    """RLIMIT_RTPRIO and RLIMIT_NICE are 0 for a graded call, even where the grader was started with real-time
    allowed (a systemd LimitRTPRIO=): cgroup v1's CPU quota does not throttle a SCHED_FIFO thread (red team round 18).
    Recorded, not set: this process's own limits stay as they are."""
    from grader.run import child

    set_to = {}
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: set_to.__setitem__(which, limits))
    monkeypatch.setattr(child.sys, "dont_write_bytecode", sys.dont_write_bytecode)
    child.set_limits(512, graded=True)
    assert set_to[resource.RLIMIT_RTPRIO] == (0, 0) and set_to[resource.RLIMIT_NICE] == (0, 0)
    # 1, not 0: a core_pattern that pipes to a root helper (apport, systemd-coredump) ignores 0 (red team round 23)
    assert set_to[resource.RLIMIT_CORE] == (1, 1)


def test_the_resident_takes_no_real_time_scheduling_limits_from_the_grader(monkeypatch):
    """Red team round 32: real-time scheduling is checked against the target's RLIMIT_RTPRIO, and the resident (pid 1,
    the learner's uid) kept the grader's: a job could set it SCHED_FIFO, and every later worker inherits that. The
    resident sets its real-time and nice limits to 0 before any job, whatever the grader was started with (a
    systemd LimitRTPRIO=; this machine cannot raise its own to show it end to end). Recorded, not set."""
    import signal

    from grader.run.jail import inside

    set_to: dict[int, tuple[int, int]] = {}
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: set_to.__setitem__(which, limits))
    monkeypatch.setattr(inside.confine, "libc", lambda: type("L", (), {"prctl": staticmethod(lambda *a: 0)})())
    monkeypatch.setattr(signal, "signal", lambda *a: None)
    inside._as_resident()
    assert set_to[resource.RLIMIT_RTPRIO] == (0, 0) and set_to[resource.RLIMIT_NICE] == (0, 0)


LIVES_ON = """import os, time
from grader.results import Status
from grader.run import failures
from grader.run.child import send


def run_double(x):
    name = os.listdir('/jail/job')[0]
    h, p = failures.err(Status.TODO, 'not started yet')
    send(3, h, p)
    send(3, {'ended': name, 'signal': None, 'code': 0})  # the resident's frame: the job looks done
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        others = [n for n in os.listdir('/jail/job') if n != name]
        if others and os.path.exists('/submission/student/marker_of_references.py'):
            send(3, {'start': 0, 'pid': os.getpid()})
            h, p = failures.err(Status.EXCEPTION, 'SAW THE REFERENCES')
            send(3, h, p)
            os._exit(0)
        time.sleep(0.005)
    os._exit(0)
"""


@needs_jail
def test_references_never_come_into_a_jail_where_a_worker_lives_past_its_job(mini, tmp_path):
    """Red team round 32: a worker that forged its resident's `ended` lived on in the hidden pass's jail, and when the
    references were swapped into that jail's student/ it read them and answered the next call itself. A jail where
    more than its resident runs ends before references come in; the run with them is in a jail of their own."""
    write_student(mini, "double", LIVES_ON)
    _, calls = calls_of(mini, "double", files=True)
    refs = tmp_path / "refs" / "student"
    refs.mkdir(parents=True)
    (refs / "__init__.py").write_text("")
    (refs / "double.py").write_text(CORRECT)
    (refs / "marker_of_references.py").write_text("")
    limits = Limits(timeout=5.0, memory_mb=1024)
    with jail.Jail(mini.root) as j:
        first = list(j.run(calls[:1], limits))
        with j.files_of(refs.parent):
            second = list(j.run(calls[1:2], limits))
    assert [o.message for o in first] == ["not started yet"], first
    assert second[0].status is None and "SAW THE REFERENCES" not in second[0].message, second[0].message
    assert len(j.stats) == 2  # the jail the worker lived in ended, and the references had one of their own


@needs_jail
def test_sigint_to_the_resident_does_not_end_the_jail(mini):
    """Red team round 18: the resident took SIGINT (Python's handler) and the jail ended after the call's right
    answer, a restart at no cost (a lever on everything that counts jails). The next job meets the same pid 1."""
    write_student(mini, "double", hostile("interrupts_the_resident.py"))
    _, calls = calls_of(mini, "double", files=True)
    limits = Limits(timeout=5.0, memory_mb=1024)
    with jail.Jail(mini.root) as j:
        first = list(j.run(calls[:1], limits))
        time.sleep(0.2)  # the resident, had it taken the signal, is gone by now
        second = list(j.run(calls[1:2], limits))
    assert [o.status for o in first + second] == [None, None], [o.message for o in first + second]
    assert "resident started at" in first[0].output and first[0].output == second[0].output, (first, second)


NEW_CALLS = """import ctypes, errno, mmap, os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def attempt(name, nr, *args):
    ctypes.set_errno(0)
    got = libc.syscall(ctypes.c_long(nr), *args)
    print(name, 'worked' if got >= 0 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))


def run_double(x):
    with open('/tmp/own', 'w') as f:
        f.write('x')
    fd = os.open('/tmp/own', os.O_RDONLY)
    value = ctypes.create_string_buffer(b'bit')
    args = (ctypes.c_uint64(value.value.__len__()), ctypes.c_uint64(0))
    struct = (ctypes.c_uint64 * 4)(ctypes.addressof(value), 3, 0, 0)  # struct xattr_args: value, size, flags
    attempt('setxattrat', 463, fd, b'', 0x1000, b'user.m', ctypes.byref(struct), ctypes.c_size_t(32))  # AT_EMPTY_PATH
    attempt('removexattrat', 466, fd, b'', 0x1000, b'user.m')
    page = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    attempt('mseal', 462, ctypes.c_void_p(address), ctypes.c_size_t(4096), 0)
    attempt('file_getattr', 468, fd, b'', ctypes.c_void_p(0), ctypes.c_size_t(0), 0x1000)
    attempt('a call not yet made', 599)
    return 2 * x
"""


@needs_jail
def test_calls_newer_than_libseccomp_knows_are_refused_by_number(mini):
    """Red team round 21: this machine's libseccomp (2.5.4) knows calls up to 456 by name, and a name it did not
    know was skipped: setxattrat (463) set the extended attributes the filter refuses. Those are refused by number,
    and every call after 456 the filter has not looked at is ENOSYS, as a kernel without it answers."""
    statuses, outcomes, _ = in_jail(mini, NEW_CALLS)
    said = outcomes[0].output
    assert statuses == [P, P, P], [o.message for o in outcomes]
    assert "worked" not in said, said
    for name in ("setxattrat", "removexattrat"):
        assert f"{name} EPERM" in said or f"{name} ENOSYS" in said, said


HOST_WAITS_AND_HINTS = """import ctypes, errno, fcntl, os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]


def run_double(x):
    fd = os.open('/tmp/own', os.O_CREAT | os.O_RDWR)  # its own file: the kernel would allow all of these
    hint = ctypes.c_uint64(2)
    os.write(fd, b'x')
    page = libc.mmap(None, 4096, 3, 1, fd, 0)  # PROT_READ | PROT_WRITE, MAP_SHARED: its own /tmp file
    for name, nr, args in (('sync', 162, ()), ('syncfs', 306, (fd,)), ('fsync', 74, (fd,)), ('fdatasync', 75, (fd,)),
                           ('msync', 26, (ctypes.c_void_p(page), 4096, 4)),  # MS_SYNC
                           ('F_SET_RW_HINT', 72, (fd, 1036, ctypes.byref(hint)))):
        ctypes.set_errno(0)
        got = libc.syscall(ctypes.c_long(nr), *args)
        print(name, 'worked' if got >= 0 else errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno()))
    return 2 * x
"""


@needs_jail
def test_no_call_waits_on_the_host_s_writeback_or_sets_a_write_hint(mini):
    """Red team rounds 22 and 24: syncfs on a read-only bind waits, in the kernel, on the host file system's
    writeback (a killed process cannot end meanwhile; fsync of a staging copy commits the host journal), and a
    write-life hint is a value per inode any opener reads back (only its owner may set one). Both refused, though a
    learner's own file would allow them."""
    statuses, outcomes, _ = in_jail(mini, HOST_WAITS_AND_HINTS)
    said = outcomes[0].output
    assert statuses == [P, P, P], [o.message for o in outcomes]
    assert said.split() == ["sync", "EPERM", "syncfs", "EPERM", "fsync", "EPERM", "fdatasync", "EPERM", "msync",
                            "EPERM", "F_SET_RW_HINT", "EPERM"], said


def test_the_filter_fails_loudly_for_a_call_it_cannot_number(monkeypatch):
    from grader.run.jail import seccomp

    monkeypatch.setattr(seccomp, "REFUSED", (*seccomp.REFUSED, "not_a_system_call"))
    seccomp.program.cache_clear()
    try:
        with pytest.raises(seccomp.SeccompUnavailable, match="does not know the system call 'not_a_system_call'"):
            seccomp.program()
    finally:
        seccomp.program.cache_clear()


def test_the_capture_files_are_the_graders_alone():
    from grader.run import capture

    for fd in capture.make():
        assert os.fstat(fd).st_mode & 0o777 == 0o600  # no jail's uid sets their times or attributes (round 21)
        os.close(fd)


@needs_jail
def test_the_ioctl_requests_python_makes_still_work_in_the_jail(mini):
    """ioctl is an allow-list (red team round 17 read a shared file's extent cache through one): isatty, the terminal's
    size, FIONREAD, FIONBIO and close-on-exec work as outside."""
    statuses, outcomes, _ = in_jail(mini, hostile("asks_ordinary_ioctls.py"))
    assert statuses == [P, P, P], [o.output for o in outcomes]
    assert "TIOCGWINSZ on a file: True" in outcomes[0].output, outcomes[0].output


@needs_jail
def test_no_input_file_s_link_count_tells_a_jail_how_many_others_hold_it(mini):
    """Fixture inputs reach a job as sealed copies: a hard link shared the inode, whose link count every jail read."""
    statuses, outcomes, _ = in_jail(mini, hostile("counts_links.py"))
    assert statuses == [F, F, F], [o.output for o in outcomes]
    assert "/memfd:input (deleted)': 0" in outcomes[0].output, outcomes[0].output  # it did read the inputs' counts


@needs_jail
def test_a_call_cannot_lower_the_limits_of_the_jail_s_own_processes(mini):
    """Red team round 8: prlimit on pid 1 (same uid) made every later worker fail before its first call: a grader
    error row. The filter refuses prlimit on any process but the caller's own."""
    statuses, outcomes, _ = in_jail(mini, hostile("lowers_the_residents_limits.py", LIMITS="FSIZE AS NOFILE"))
    assert statuses == [P, P, P], [o.message for o in outcomes]
    assert outcomes[0].output.count("refused") == 3 and "lowered" not in outcomes[0].output


@needs_jail
def test_a_worker_that_cannot_start_after_learner_code_ran_fails_that_learner_s_calls(mini, monkeypatch):
    """Without the filter's refusal (as before round 8), the next worker cannot start: the call fails as the
    learner's (CRASHED), never a grader error (JailError), since learner code ran in this jail before."""
    import pyseccomp

    from grader.run.jail import seccomp

    real = pyseccomp.SyscallFilter.add_rule

    def without_prlimit(self, action, name, *args):  # type: ignore[no-untyped-def]
        if name != "prlimit64":
            real(self, action, name, *args)

    monkeypatch.setattr(pyseccomp.SyscallFilter, "add_rule", without_prlimit)
    seccomp.program.cache_clear()
    write_student(mini, "double", hostile("lowers_the_residents_limits.py", LIMITS="FSIZE AS"))
    source, calls = calls_of(mini, "double", files=True)
    limits = Limits(timeout=5.0, memory_mb=1024)
    try:
        with jail.Jail(mini.root) as j:
            first = list(j.run(calls, limits))  # lowers pid 1's limits; this worker was forked before
            second = list(j.run(calls, limits))  # a new worker, forked from pid 1 with them
    finally:
        monkeypatch.undo()
        seccomp.program.cache_clear()
    assert "lowered" in first[0].output and judge(mini, "double", source, first) == [P, P, P]
    # the call that found no worker fails as the learner's; the jail is then made afresh for the rest
    assert judge(mini, "double", source, second) == [Status.CRASHED, P, P], [o.message for o in second]
    assert "an earlier call changed the grading sandbox's own processes" in second[0].message


@needs_jail
def test_the_jail_s_processes_are_the_first_the_kernel_kills_for_memory(mini):
    """Red team round 8: a jail inherited the machine's oom_score_adj (-1000 here) and could keep it. The grader
    writes 1000 while still root, which, where it holds CAP_SYS_RESOURCE, is also the least the learner's code may
    write there later."""
    text = ("def run_double(x):\n"
            "    print('adj', open('/proc/self/oom_score_adj').read().strip())\n"
            "    try:\n"
            "        with open('/proc/self/oom_score_adj', 'w') as f:\n"
            "            f.write('999')\n"
            "        print('lowered', open('/proc/self/oom_score_adj').read().strip())\n"
            "    except OSError as e:\n"
            "        print('refused', type(e).__name__)\n"
            "    return 2 * x\n")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [P, P, P] and "adj 1000" in outcomes[0].output, outcomes[0].output
    # red team round 9: 1000 is a floor only where the grader holds CAP_SYS_RESOURCE (Docker's default set lacks it)
    caps = next(int(line.split()[1], 16) for line in open("/proc/self/status") if line.startswith("CapEff:"))
    floor = bool(caps >> 24 & 1)
    assert ("refused" in outcomes[0].output) == floor, (floor, outcomes[0].output)


@needs_jail
def test_a_start_frame_past_the_last_call_is_the_learner_s_own_failure(mini):
    """Red team round 9: `start N` after all N results made the grader index past its calls (a grader error)."""
    statuses, outcomes, _ = in_jail(mini, hostile("forges_start_past_end.py"))
    assert statuses == [Status.EXCEPTION] * 3, [o.message for o in outcomes]


def test_a_printed_output_count_past_any_file_is_cut_to_one_a_file_can_hold():
    """Red team round 9: output_cut 10**4300 - 1 reached the gradebook, and formatting it stopped every learner's
    feedback file after the one that held it."""
    from grader.report import casetext
    from grader.results import CaseResult

    call = Call("c", "student.x", "f", {})
    header = {"status": "exception", "message": "m", "output": "x\n" * 50, "output_cut": 10**4300 - 1}
    out = protocol.result_of(call, header, [], 0.0)
    assert out.output_cut == protocol.CUT_CAP
    stored = CaseResult(stage="s", case="c", function="f", status=Status.FAIL, stdout="x\n" * 50,
                        stdout_cut_lines=10**4300 - 1)  # a record kept before the cap
    assert any("more lines" in line for line in casetext.printed(stored, casetext.Style(False), 3, {}))


@needs_jail
def test_the_grader_s_judging_is_not_the_next_call_s_time(mini):
    """Red team round 9: a slow verdict (decoys computed the first time, a check running the reference model) was
    charged to the next call, which timed out before its start was read; the self-paced runner already restarted
    the clock after judging."""
    write_student(mini, "double", "def run_double(x):\n    return 2 * x\n")
    source, calls = calls_of(mini, "double", files=True)
    statuses = []
    with jail.Jail(mini.root) as j:
        for outcome in j.run(calls, Limits(timeout=1.0, memory_mb=1024)):
            statuses.append(outcome.status)
            time.sleep(1.5)  # judging that takes longer than a call's timeout
    assert statuses == [None, None, None], statuses


@needs_jail
def test_no_call_can_make_kernel_objects_that_outlive_the_jail(mini):
    """Red team rounds 13 to 15: a socket holding the jail's /tmp sent to itself, System V message queues, and
    thousands of stacked seccomp filters each kept kernel memory past the jail's last process, freed by a kernel
    worker beside the next jail (round 15's filters wedged that worker for the whole machine). The filter refuses
    every call that makes one; the control shows each works outside the jail."""
    text = hostile("keeps_kernel_memory.py")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [F, F, F], [o.output for o in outcomes]
    assert "worked:" not in outcomes[0].output and outcomes[0].output.count("blocked:") == 10, outcomes[0].output
    control: dict[str, Any] = {}  # the control: run here, outside any jail, the calls work (no filter is loaded)
    exec(compile(text, "keeps_kernel_memory.py", "exec"), control)
    with contextlib.redirect_stdout(io.StringIO()) as said:
        assert control["run_double"](1) == 2
    for name in ("socketpair", "msgget", "shmget", "semget", "mq_open", "seccomp(", "prctl(PR_SET_SECCOMP)",
                 "pidfd_getfd"):
        assert f"worked: {name}" in said.getvalue(), said.getvalue()


@needs_jail
def test_only_the_jail_s_scratch_folders_take_files(mini):
    """Red team round 13: eleven tmpfs stand-ins (/usr/local, site-packages, /proc's hidden folders) took files, and
    /usr/local and /dev were sized at half the machine's memory. Every mount a file can be made in is listed."""
    text = ("import os\n"
            "def run_double(x):\n"
            "    for line in open('/proc/self/mountinfo'):\n"
            "        point = line.split()[4]\n"
            "        try:\n"
            "            with open(os.path.join(point, '.grader-probe'), 'w') as f:\n"
            "                f.write('x')\n"
            "            print('takes files:', point)\n"
            "        except OSError:\n"
            "            pass\n"
            "    return 2 * x\n")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [P, P, P], [o.message for o in outcomes]
    taking = sorted(line.split(": ", 1)[1] for line in outcomes[0].output.splitlines()
                    if line.startswith("takes files:"))
    assert taking == ["/dev/shm", "/tmp", "/var/tmp"], outcomes[0].output


@needs_jail
def test_no_file_s_times_can_be_set_in_the_jail_device_nodes_included(mini):
    """Red team round 20: bubblewrap's --dev binds the host's null, full, random, urandom and tty nodes writable, and
    a file's times set to now need only write permission: a hidden call stamped the nodes and every later jail read
    them (32 bits of a hidden input a grading, exact, until the machine restarts). The test above makes a file in
    each mount point, which a node refuses whether its mount is writable or not (ENOTDIR). No call sets a time now,
    on a node, a mount point or the jail's own scratch files; the nodes still work."""
    text = ("import os\n"
            "def run_double(x):\n"
            "    points = [line.split()[4] for line in open('/proc/self/mountinfo')]\n"
            "    open('/tmp/own', 'w').close()\n"
            "    nodes = ['/dev/null', '/dev/full', '/dev/random', '/dev/urandom', '/dev/tty']\n"
            "    for path in [*nodes, '/tmp/own', *points]:\n"
            "        for how in ('now', 'given'):\n"
            "            try:\n"
            "                os.utime(path, None if how == 'now' else (1, 1))\n"
            "                print('stamped:', path, how)\n"
            "            except OSError:\n"
            "                pass\n"
            "    with open('/dev/null', 'w') as f:\n"
            "        f.write('still a sink')\n"
            "    with open('/dev/urandom', 'rb') as f:\n"
            "        assert len(f.read(8)) == 8\n"
            "    print('nodes work; mounts:', len(points))\n"
            "    return 2 * x\n")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [P, P, P], [o.message for o in outcomes]
    said = outcomes[0].output
    assert "nodes work; mounts:" in said and "stamped:" not in said, said


@needs_jail
def test_no_call_reads_a_file_system_s_free_space_in_the_jail(mini):
    """Red team round 30: `statfs` of any bind of the host's disk (/usr, the grader's code, the staging folder) gave
    its free blocks and inodes, which the grader's writes move: a gradebook row, whose size a sealed case's stored
    output sets after the hidden cases. No call reads them in the jail (self-paced, the same code does); nor by
    ustat, by device number (round 32), nor syncs quotas (quotactl's Q_SYNC, a host writeback wait)."""
    text = ("import ctypes, os\n"
            "def run_double(x):\n"
            "    libc = ctypes.CDLL(None, use_errno=True)\n"
            "    points = [line.split()[4] for line in open('/proc/self/mountinfo')]\n"
            "    for path in ['/usr', '/tmp', *points]:\n"
            "        try:\n"
            "            print('free:', path, os.statvfs(path).f_bfree)\n"
            "        except OSError:\n"
            "            pass\n"
            "        out = ctypes.create_string_buffer(64)\n"  # ustat: the same by device number (round 32)
            "        if libc.syscall(136, ctypes.c_uint(os.stat(path).st_dev), out) == 0:\n"
            "            print('free:', path, 'by ustat')\n"
            "        if libc.syscall(179, ctypes.c_uint(0x800001 << 8), None, 0, None) == 0:\n"  # quotactl Q_SYNC
            "            print('free:', path, 'quotas synced')\n"
            "        try:\n"
            "            fd = os.open(path, os.O_RDONLY)\n"
            "            print('free:', path, os.fstatvfs(fd).f_bfree)\n"
            "        except OSError:\n"
            "            pass\n"
            "    print('looked at', len(points))\n"
            "    return 2 * x\n")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [P, P, P], [o.message for o in outcomes]
    said = outcomes[0].output
    assert "looked at" in said and "free:" not in said, said
    _, calls = calls_of(mini, "double")
    control = list(sandbox.run(mini.root, calls, Limits(timeout=5.0, memory_mb=1024)))
    assert "free: /usr" in control[0].output and "by ustat" in control[0].output, control[0].output


@needs_jail
def test_no_call_moves_pages_between_numa_nodes_in_the_jail(mini):
    """Red team round 30: mbind (MPOL_MF_MOVE), move_pages and migrate_pages move a shared file's pages to another
    node, which a later jail reads in /proc/self/numa_maps, on a machine of several nodes. Each is refused in the
    jail; self-paced, the same calls (with nothing to move) succeed."""
    text = ("import ctypes, mmap, os\n"
            "def run_double(x):\n"
            "    libc = ctypes.CDLL(None, use_errno=True)\n"
            "    libc.syscall.restype = ctypes.c_long\n"
            "    page = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)\n"
            "    addr = ctypes.addressof(ctypes.c_char.from_buffer(page))\n"
            "    calls = {'mbind': (237, ctypes.c_void_p(addr), ctypes.c_ulong(4096), 0, None, ctypes.c_ulong(0), 0),\n"
            "             'migrate_pages': (256, 0, ctypes.c_ulong(0), None, None),\n"
            "             'move_pages': (279, 0, ctypes.c_ulong(0), None, None, None, 0)}\n"
            "    for name, args in calls.items():\n"
            "        got = libc.syscall(*args)\n"
            "        print(name, 'refused' if got == -1 and ctypes.get_errno() == 1 else f'ran {got}')\n"
            "    return 2 * x\n")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [P, P, P], [o.message for o in outcomes]
    said = outcomes[0].output
    assert all(f"{name} refused" in said for name in ("mbind", "migrate_pages", "move_pages")), said
    _, calls = calls_of(mini, "double")
    first = list(sandbox.run(mini.root, calls, Limits(timeout=5.0, memory_mb=8192)))[0]  # (torch, once imported)
    assert "refused" not in first.output and first.output.count(" ran ") == 3, (first.status, first.message)


@needs_jail
def test_no_job_can_change_the_fixture_inputs_later_jails_read(mini):
    """Fixture arrays reach every job of a process as descriptors of one sealed copy each (staging.shared_input):
    no write through a descriptor, a reopened one or a mapping gets through, and the next jail reads them intact."""
    statuses, outcomes, _ = in_jail(mini, hostile("changes_shared_inputs.py"))
    said = outcomes[0].output
    assert statuses == [P, P, P] and "changed:" not in said and said.count("refused:") >= 6, said
    assert in_jail(mini, CORRECT)[0] == [P, P, P]  # the next jail, on the same copies
    from grader.run.jail import staging

    for (path, *_), fd in staging._shared.items():  # each copy holds its file's bytes still
        assert os.pread(fd, os.path.getsize(path) + 1, 0) == Path(path).read_bytes(), path


@needs_jail
def test_a_call_that_writes_its_inputs_changes_only_its_own_pages(mini):
    """Inputs reach a call as private copy-on-write mappings of the sealed copies (no copy made up front): each is a
    plain writeable ndarray; writing it, or the mapping under it, changes that call's pages only, never the copy
    other calls and jails read."""
    text = ("import mmap\n\nimport numpy as np\n\n\ndef run_double(x):\n"
            "    assert type(x) is np.ndarray and x.flags.writeable, type(x)\n"
            "    out = 2 * x\n"
            "    x[...] = 7\n"
            "    m = x\n"
            "    while m is not None and not isinstance(m, mmap.mmap):\n"
            "        m = getattr(m, 'base', None)\n"
            "    if m is not None:\n"
            "        m[:] = b'\\0' * len(m)\n"
            "        m.flush()\n"
            "        print('mapping written')\n"
            "    return out\n")
    statuses, outcomes, _ = in_jail(mini, text)
    assert statuses == [P, P, P], [o.message for o in outcomes]
    from grader.run.jail import staging

    if staging._shared:  # root: the sealed copies (else each job's own .npy files)
        assert "mapping written" in outcomes[0].output, outcomes[0].output
    for (path, *_), fd in staging._shared.items():  # each copy holds its file's bytes still
        assert os.pread(fd, os.path.getsize(path) + 1, 0) == Path(path).read_bytes(), path
    assert in_jail(mini, CORRECT)[0] == [P, P, P]  # the next jail, on the same copies


@needs_jail
def test_the_public_pass_s_jail_goes_on_into_the_hidden_pass_only_with_its_resident_alone(mini, monkeypatch):
    """`Jail.settle`, between a submission's passes: while a job runs (a worker, the learner's processes) the jail is
    not idle; after it, the resident has killed what it left, and the jail is kept; a jail in which anything else
    still ran would be ended there, inside the public phase."""
    write_student(mini, "double", "import time\n\n\ndef run_double(x):\n    time.sleep(1.5)\n    return 2 * x\n")
    _, calls = calls_of(mini, "double", files=True)
    seen: list[bool] = []
    with jail.Jail(mini.root) as j:
        def look() -> None:
            time.sleep(1.0)
            seen.append(j._box is not None and j._box.idle())

        watcher = threading.Thread(target=look)
        watcher.start()
        outcomes = list(j.run(calls[:1], Limits(timeout=5.0, memory_mb=1024)))
        watcher.join()
        box = j._box
        assert outcomes[0].status is None and box is not None and seen == [False] and box.idle()
        j.settle()
        assert j._box is box  # kept: the hidden pass needs no new interpreter
        monkeypatch.setattr(spawn.Box, "idle", lambda self: False)  # as if a process of the public pass ran on
        j.settle()
        assert j._box is None and box.proc.poll() is not None and j.stats[-1]["emptied"]


def test_a_grader_that_is_not_root_hands_no_shared_input_copies(tmp_path, monkeypatch):
    """Red team round 19: a grader that is not root runs its jails as itself, the owner of its sealed copies, whose
    mode a call could then set to 0 (every later learner of the worker timed out). Each job gets files of its own,
    which the jail sees read-only."""
    from grader.run.jail import staging

    source = tmp_path / "x.npy"
    np.save(source, np.arange(4.0))
    call = Call(case="c", module="student.double", function="run_double", inputs={"x": NpyFile(str(source))})
    assert staging.write_job(tmp_path / "as_root", [call], Limits()) != []  # root: the shared copy
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert staging.write_job(tmp_path / "not_root", [call], Limits()) == []
    assert json.loads((tmp_path / "not_root" / "job.json").read_text())["calls"][0]["inputs"]["x"] == {
        "npy": "0.npy", "scalar": False}


@needs_jail
def test_inputs_the_grader_cannot_hand_a_job_are_its_error_not_the_learners_timeout(mini, monkeypatch):
    """Red team round 19: a failed `staging.handed` was taken for a jail gone; the job was never sent and each of the
    learner's calls timed out, a 0 for a fault of the grader's. It is the grader's error (an error row, regraded)."""
    from grader.run.jail import staging

    asked = []

    def refused(shared: int) -> int:
        asked.append(shared)
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(staging, "handed", refused)
    t0 = time.monotonic()
    with pytest.raises(jail.JailError, match="could not hand the job its inputs: .*Permission denied"):
        in_jail(mini, "def run_double(x):\n    return 2 * x\n", Limits(timeout=5.0, memory_mb=1024))
    assert asked and time.monotonic() - t0 < 5.0  # it had inputs to hand, and no call waited for its timeout


def test_a_job_carries_at_most_input_fds_descriptors_and_copies_the_rest(tmp_path):
    """One message takes at most 253 descriptors: past protocol.INPUT_FDS a job's fixture inputs are copied in."""
    from grader.run.jail import staging

    files = []
    assert protocol.INPUT_FDS == 200
    for i in range(protocol.INPUT_FDS + 2):
        files.append(tmp_path / f"{i}.npy")
        np.save(files[-1], np.full(2, i, dtype=np.float32))
    calls = [Call(f"c{i}", "student.double", "run_double", {"x": NpyFile(str(f)), "again": NpyFile(str(files[0]))})
             for i, f in enumerate(files)]
    (tmp_path / "job").mkdir()
    fds = staging.write_job(tmp_path / "job" / "0-1", calls, Limits())
    spec = json.loads((tmp_path / "job" / "0-1" / "job.json").read_text())["calls"]
    assert len(fds) == protocol.INPUT_FDS == len(set(fds))  # one descriptor a file, however many calls share it
    assert spec[0]["inputs"]["again"] == spec[0]["inputs"]["x"] == {"fd": 0, "scalar": False}
    copied = [c["inputs"]["x"]["npy"] for c in spec[-2:]]  # the two past the cap: files in the job's folder
    assert [np.load(tmp_path / "job" / "0-1" / name).tolist() for name in copied] == [[200, 200], [201, 201]]
    assert os.pread(fds[5], 1 << 10, 0) == files[5].read_bytes()


@needs_jail
def test_no_job_leaves_a_message_on_the_inputs_for_the_next(mini):
    """Red team round 16: the sealed input copies were 0777 (xattrs and times settable by the jail's uid) and every
    job was handed the grader's own open file description (its offset, flags, signal). Each copy is now 0444, each job
    gets a description of its own, and its times are put back before each job: the next jail finds nothing."""
    from grader.run.jail import staging

    _, outcomes, _ = in_jail(mini, hostile("marks_shared_inputs.py", MODE="mark"))
    marked = outcomes[0].output
    assert "set: xattr" not in marked and "set: times" not in marked and "refused: xattr" in marked, marked
    assert "set: offset" in marked and "set: flags" in marked, marked  # its own description's: allowed, and its own
    _, outcomes, _ = in_jail(mini, hostile("marks_shared_inputs.py", MODE="read"))
    made = {fd: staging._times[fd] for (path, *_), fd in staging._shared.items() if path.startswith(str(mini.root))}
    found = [line.split()[1:] for o in outcomes for line in o.output.splitlines() if line.startswith("found:")]
    assert found, [o.output for o in outcomes]
    for offset, flags, sig, atime, mtime, *xattrs in found:
        assert (offset, flags, sig, " ".join(xattrs)) == ("0", "0", "0", "[]"), found
        assert int(mtime) in {m for _, m in made.values()} and int(atime) != 123456789 * 10**9, found
    late = 424242 * 10**9  # a read after the job, by a worker that forged its resident's `ended` (red team round
    for fd, (_, mtime) in made.items():  # 20): it moves a copy's access time once the grader took the job as done
        os.utime(fd, ns=(late, mtime))
    _, outcomes, _ = in_jail(mini, hostile("marks_shared_inputs.py", MODE="read"))
    found = [line.split()[1:] for o in outcomes for line in o.output.splitlines() if line.startswith("found:")]
    assert found and all(int(atime) != late for _, _, _, atime, *_ in found), found  # put back before each job
