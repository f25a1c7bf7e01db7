"""The broken-submission corpus: one learner file per failure mode, each with its own status, and the grader lives on.

Every submission is graded on the mini course's `double` stage (3 cases), so each test also checks that the
grader carried on to the later cases after a failure.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from grader.records import replace
from grader.results import Status
from grader.run import protocol, sandbox
from tests.conftest import CORPUS, ROOT, grade_source

# file -> (status of every case, a piece of the message or None)
CORPUS_CASES = {
    "correct.py": (Status.PASS, None),
    "correct_list.py": (Status.PASS, None),
    "correct_float64.py": (Status.PASS, None),
    "mutates_input.py": (Status.PASS, None),
    "not_started.py": (Status.TODO, "not written yet"),
    "syntax_error.py": (Status.SYNTAX_ERROR, "student/double.py:2"),
    "import_error.py": (Status.IMPORT_ERROR, "numpy_that_does_not_exist"),
    "missing_function.py": (Status.IMPORT_ERROR, "has no function run_double()"),
    "exception.py": (Status.EXCEPTION, "student/double.py:2, in helper"),
    "timeout.py": (Status.TIMEOUT, "took longer than 3 s"),
    "memory.py": (Status.MEMORY, "memory"),
    "segfault.py": (Status.CRASHED, "SIGSEGV"),
    "sys_exit.py": (Status.EXITED, "exit(0)"),
    "os_exit.py": (Status.EXITED, "exit code 0"),
    "returns_none.py": (Status.BAD_OUTPUT, "returned None"),
    "returns_string.py": (Status.BAD_OUTPUT, "returned text"),
    "object_dtype.py": (Status.BAD_OUTPUT, "object"),
    "ragged_list.py": (Status.BAD_OUTPUT, "rectangular"),
    "wrong_shape.py": (Status.FAIL, None),
    "wrong_values.py": (Status.FAIL, None),
    "nan_output.py": (Status.FAIL, None),
    "reads_stdin.py": (Status.EXCEPTION, "EOFError"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CORPUS_CASES))
def test_corpus(mini, name):
    status, fragment = CORPUS_CASES[name]
    before = {pid for pid in _children_of(os.getpid()) if _alive(pid)}
    if name == "timeout.py":
        mini, fragment = _short_timeout(mini), "took longer than 0.5 s"
    result = grade_source(mini, "double", (CORPUS / name).read_text())
    if name == "timeout.py":  # an endless loop is reported once; the other cases say why they did not run
        assert [c.status for c in result.cases] == [Status.TIMEOUT, Status.SKIPPED, Status.SKIPPED]
        assert "case 'small' timed out" in result.cases[1].message
        result.cases = result.cases[:1]
    else:
        assert [c.status for c in result.cases] == [status] * 3, [(c.status, c.message) for c in result.cases]
    if fragment:
        assert all(fragment in c.message for c in result.cases), result.cases[0].message
    left = {pid for pid in _children_of(os.getpid()) if _alive(pid)} - before
    assert not left, f"{name} left processes of this grader running: {left}"  # the grader lives on, alone


def _short_timeout(course):
    """The timeout corpus entry with a 3 s limit would cost 9 s; a 0.5 s stage timeout proves the same."""
    from grader.course import Course

    stage = replace(course.stage("double"), timeout=0.5)
    return Course(root=course.root, title=course.title, stages=(stage, *course.stages[1:]), timeout=course.timeout,
                  memory_mb=course.memory_mb)


@pytest.mark.slow
def test_torch_tensor_output_is_accepted(mini):
    pytest.importorskip("torch")
    result = grade_source(mini, "double", (CORPUS / "correct_torch.py").read_text())
    assert result.passed, [c.message for c in result.cases]


def test_float64_output_for_float32_input_is_noted_not_failed(mini):
    result = grade_source(mini, "double", (CORPUS / "correct_float64.py").read_text())
    assert result.passed
    assert any("float64" in n and "float32" in n for n in result.cases[0].notes)


def test_shape_is_checked_before_values(mini):
    result = grade_source(mini, "double", (CORPUS / "wrong_shape.py").read_text())
    problem = result.cases[0].comparisons[0].problem
    assert "[1, 2, 3]" in problem and "[2, 3]" in problem


def test_nan_is_reported_as_not_finite(mini):
    result = grade_source(mini, "double", (CORPUS / "nan_output.py").read_text())
    comp = result.cases[0].comparisons[0]
    assert comp.nonfinite == 1 and comp.mismatched == 1
    assert comp.worst is not None and np.isnan(comp.worst.actual)


def test_exception_traceback_is_trimmed_to_the_learners_frames(mini):
    result = grade_source(mini, "double", (CORPUS / "exception.py").read_text())
    message = result.cases[0].message
    assert "grader/sandbox.py" not in message
    assert "student/double.py:6, in run_double" in message and "ValueError" in message


def test_output_is_captured_and_truncated_with_a_note(mini):
    result = grade_source(mini, "double", (CORPUS / "noisy.py").read_text())
    case = result.cases[0]
    assert case.status is Status.FAIL
    assert case.stdout.startswith("debug line 0\n")
    assert case.stdout_cut_lines > 0
    assert len(case.stdout) <= protocol.OUTPUT_CAP


def test_a_child_the_learner_forked_does_not_survive(mini):
    before = _processes_named("sleep-marker")
    source = (CORPUS / "leaves_child.py").read_text().replace("time.sleep(60)",
                                                                "os.execlp('sleep', 'sleep-marker', '60')")
    source = source.replace("os.execlp('sleep', 'sleep-marker', '60')",
                            "os.execlp('bash', 'bash', '-c', 'exec -a sleep-marker sleep 60')")
    result = grade_source(mini, "double", source)
    assert result.passed
    time.sleep(0.2)
    assert _processes_named("sleep-marker") == before


def _processes_named(name):
    found = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if f.read().split(b"\0")[0] == name.encode():
                        found.add(pid)
            except OSError:
                pass
    return found


def test_bytecode_cache_is_never_trusted(mini, tmp_path):
    """Two saves of the same size in the same second: the second must be graded as what it says."""
    path = mini.root / "student" / "double.py"
    wrong, right = "def run_double(x):\n    return x * 3\n", "def run_double(x):\n    return x * 2\n"
    assert len(wrong) == len(right)
    path.write_text(wrong)
    import py_compile

    # a __pycache__ entry for the wrong code, keyed on mtime+size (whatever SOURCE_DATE_EPOCH says)
    py_compile.compile(str(path), doraise=True, invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    stamp = os.stat(path).st_mtime
    path.write_text(right)
    os.utime(path, (stamp, stamp))
    import subprocess
    import sys

    fooled = subprocess.run([sys.executable, "-c", "import student.double as d; print(d.run_double(1))"],
                            cwd=mini.root, capture_output=True, text=True, check=True)
    assert fooled.stdout == "3\n"  # the trap is armed: a plain import runs the stale bytecode
    from grader.judge import grade

    result = grade.grade_stage(mini, mini.stage("double"))
    assert result.passed


def test_inputs_are_copies_each_call_gets_its_own(mini):
    result = grade_source(mini, "double", (CORPUS / "mutates_input.py").read_text())
    assert result.passed


@pytest.mark.slow
def test_a_graded_run_does_not_wait_for_a_timed_out_function_again(mini):
    """Issue 14: a function that timed out once has its later cases marked as not run, without another wait."""

    from grader.course import Course

    stage = replace(mini.stage("double"), timeout=2.0)  # roomy: graded setup counts, and CI machines are busy
    mini = Course(root=mini.root, title=mini.title, stages=(stage, *mini.stages[1:]), timeout=mini.timeout,
                  memory_mb=mini.memory_mb)
    write = "def run_double(x):\n    while x.size == 6:\n        pass\n    return 2 * x\n"
    started = time.monotonic()
    result = grade_source(mini, "double", write, graded=True)
    assert [c.status for c in result.cases] == [Status.TIMEOUT, Status.SKIPPED, Status.SKIPPED]
    assert time.monotonic() - started < 2 * 2.0
    assert "run_double timed out on case 'small'" in result.cases[1].message


def test_run_yields_every_call_even_after_crashes(tmp_path):
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "__init__.py").write_text("")
    (tmp_path / "student" / "m.py").write_text(
        "import os\n\ndef f(k):\n    if k == 1:\n        os._exit(3)\n    if k == 2:\n        while True: pass\n"
        "    return [k]\n")
    calls = [sandbox.Call(case=str(k), module="student.m", function="f", inputs={"k": k}) for k in range(4)]
    outcomes = list(sandbox.run(tmp_path, calls, sandbox.Limits(timeout=0.5, memory_mb=1024)))
    assert [o.status for o in outcomes] == [None, Status.EXITED, Status.TIMEOUT, None]
    assert outcomes[3].value is not None and outcomes[3].value[""].tolist() == [3]


def test_a_child_dies_with_its_grader(mini):
    """Killing the grader mid-grade (a closed terminal) must not leave the learner's endless loop spinning."""
    import subprocess
    import sys

    write = "def run_double(x):\n    while True:\n        pass\n"
    (mini.root / "student" / "double.py").write_text(write)
    proc = subprocess.Popen([sys.executable, "-m", "grader", "--stage", "double"], cwd=mini.root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not _children_of(proc.pid):
        time.sleep(0.05)
    children = _children_of(proc.pid)
    assert children, "the grader never started a child"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(pid) for pid in children):
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in children)


def _children_of(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_machine_out_of_processes_is_a_clear_error_not_a_leak(mini, monkeypatch):
    from grader.errors import GraderError

    before = len(os.listdir("/proc/self/fd"))

    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    with pytest.raises(GraderError, match="cannot start a process for the learner's code"):
        grade_source(mini, "double", (CORPUS / "correct.py").read_text())
    assert len(os.listdir("/proc/self/fd")) == before


def test_an_array_two_calls_share_reaches_the_second_unchanged(tmp_path):
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "__init__.py").write_text("")
    (tmp_path / "student" / "m.py").write_text("def f(x):\n    out = x.sum()\n    x *= 0\n    return [out]\n")
    x = np.arange(5.0)
    calls = [sandbox.Call(case=str(k), module="student.m", function="f", inputs={"x": x}) for k in range(2)]
    outcomes = list(sandbox.run(tmp_path, calls, sandbox.Limits(timeout=5, memory_mb=1024)))
    assert [o.value[""].tolist() for o in outcomes] == [[10.0], [10.0]]
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]  # and the grader's own copy is untouched


def test_each_case_shows_exactly_what_its_own_call_printed(mini):
    """stdout and stderr interleaved as written, under the case that printed them, and nothing of another call."""
    source = ("import sys\n"
              "def run_double(x):\n"
              "    print('shape', x.shape)\n"
              "    print('to stderr', x.size, file=sys.stderr)\n"
              "    print('after')\n"
              "    return 2 * x\n")
    result = grade_source(mini, "double", source)
    shapes = {c.case: c.stdout for c in result.cases}
    assert len(set(shapes.values())) == len(result.cases) > 1
    for case in result.cases:
        lines = case.stdout.splitlines()
        assert len(lines) == 3 and lines[0].startswith("shape (") and lines[1].startswith("to stderr ")
        assert lines[2] == "after" and case.stdout_cut_lines == 0


def test_a_timeout_names_the_learners_line(mini):
    source = ("def run_double(x):\n"
              "    i = 0\n"
              "    while i >= 0:\n"
              "        i += 1\n"
              "    return x\n")
    result = grade_source(_short_timeout(mini), "double", source)
    case = result.cases[0]
    assert case.status is Status.TIMEOUT
    assert case.where is not None and case.where.startswith("student/double.py:"), case.where
    assert case.where.split(":")[1].split()[0] in ("3", "4") and "i" in case.where
    assert case.where.split()[0] in case.message


def test_not_started_names_the_function_that_raised(mini):
    source = ("def helper(x):\n"
              "    raise NotImplementedError('helper is not written yet')\n"
              "def run_double(x):\n"
              "    return helper(x) * 2\n")
    result = grade_source(mini, "double", source)
    assert {c.status for c in result.cases} == {Status.TODO}
    assert {c.raised_in for c in result.cases} == {"student/double.py:helper"}


def test_a_returned_list_is_noted(mini):
    result = grade_source(mini, "double", "def run_double(x):\n    return (2 * x).tolist()\n")
    assert {c.status for c in result.cases} == {Status.PASS}
    assert {c.returned for c in result.cases} == {"list"}


def test_blas_threads_leave_a_core_for_the_graders_comparisons_unless_the_user_chose() -> None:
    from grader.run import threads

    env: dict[str, str] = {"MKL_NUM_THREADS": "3"}
    n = threads.leave_a_core(env)
    assert n == max(1, len(os.sched_getaffinity(0)) - 1)
    assert env == {"OPENBLAS_NUM_THREADS": str(n), "OMP_NUM_THREADS": str(n), "MKL_NUM_THREADS": "3"}
    assert "threads.leave_a_core(argv=sys.argv[1:])" in (ROOT / "grader" / "__main__.py").read_text().split(
        "import main")[0]
    big: dict[str, str] = {}
    assert threads.leave_a_core(big, ["--stage", "gpt2", "--checkpoint", "m/model.safetensors"]) == \
        len(os.sched_getaffinity(0))

