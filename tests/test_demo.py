"""`python -m grader generate`: a course's demo, run on the learner's own functions in the sandbox."""

from __future__ import annotations

import pytest

from grader.course import load_course
from tests.conftest import course_from_files, run_cli

FILES = {
    "course.yaml": "format_version: 1\ntitle: Echo\nstages: [shout, echo]\n",
    "stages/shout/stage.yaml": """\
id: shout
title: Shout
tolerance: {atol: 0, rtol: 0}
functions:
  run_shout: {entry: "student.shout:run_shout", params: [text], reference: shout, returns: text}
cases:
  - {id: one, inputs: {text: {value: "hello"}}}
""",
    "stages/shout/reference.py": "def shout(text):\n    return text.upper()\n",
    "stages/echo/stage.yaml": """\
id: echo
title: Echo twice
tolerance: {atol: 0, rtol: 0}
depends_on: [shout]
demo: demo
functions:
  run_echo: {entry: "student.echo:run_echo", params: [text], reference: echo, returns: text}
cases:
  - {id: one, inputs: {text: {value: "hi"}}}
""",
    "stages/echo/reference.py": "def echo(text):\n    return text + text\n",
    "stages/echo/demo.py": """\
def demo(options, learner, reference, emit, artifacts):
    for _ in range(options.tokens):
        emit(learner("echo", "run_echo", text=learner("shout", "run_shout", text=options.prompt)) + "\\n")
    if options.compare:
        emit("reference: " + reference("echo", "run_echo")(options.prompt.upper()) + "\\n")
""",
}
for _name in ("shout", "echo"):
    FILES[f"stages/{_name}/instructions.md"] = f"{_name}\n"


SHOUT = "def run_shout(text):\n    return text.upper()\n"
ECHO = "from student.shout import run_shout\n\n\ndef run_echo(text):\n    return text + text\n"


def test_the_demo_runs_on_the_learners_code_once_its_stages_pass(tmp_path):
    root = course_from_files(tmp_path / "course", FILES,
                             {"shout": SHOUT, "echo": "def run_echo(text):\n    raise NotImplementedError\n"}).root
    early = run_cli("generate", "hey", cwd=root)  # nothing graded yet: the first stage it needs is named
    assert early.returncode == 2 and "'shout' does not pass yet" in early.stderr
    assert run_cli("--all", cwd=root).returncode == 1
    early = run_cli("generate", "hey", cwd=root)
    assert early.returncode == 2 and "'echo' does not pass yet" in early.stderr
    assert "python -m grader --stage echo --watch" in early.stderr
    (root / "student" / "echo.py").write_text(ECHO)
    assert run_cli("--all", cwd=root).returncode == 0
    done = run_cli("generate", "hey", "--tokens", "2", "--compare", cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "HEYHEY\nHEYHEY\nreference: HEYHEY\n"


@pytest.mark.slow  # six runs; the demo: test above
def test_a_stage_changed_since_its_pass_is_named_and_a_failing_call_stops_the_demo(tmp_path):
    root = course_from_files(tmp_path / "course", FILES, {"shout": SHOUT, "echo": ECHO}).root
    assert run_cli("--all", cwd=root).returncode == 0
    (root / "student" / "shout.py").write_text(SHOUT + "\n# edited\n")
    changed = run_cli("generate", "hey", cwd=root)
    assert changed.returncode == 2 and "'shout' does not pass yet" in changed.stderr
    assert run_cli("--all", cwd=root).returncode == 0
    (root / "student" / "shout.py").write_text(SHOUT.replace("return", "if text == 'boom':\n        1 / 0\n    return"))
    assert run_cli("--all", cwd=root).returncode == 0  # the cases never say boom
    stopped = run_cli("generate", "boom", cwd=root)
    assert stopped.returncode == 2
    assert "your run_shout (student/shout.py) stopped the demo (exception)" in stopped.stderr
    assert "ZeroDivisionError" in stopped.stderr and "Traceback" not in stopped.stderr


@pytest.mark.slow
def test_the_course_demo_streams_the_learners_own_text(tmp_path):
    """The real course: once every stage passes, `generate` writes with the learner's own functions."""
    import sys

    from tests.conftest import ROOT, copy_course

    sys.path.insert(0, str(ROOT / "bench"))
    from stagesrc import student_source  # a learner file that calls the stage's reference

    root = copy_course(ROOT, tmp_path / "course")
    course = load_course(root)
    for stage in course.stages:
        (root / stage.student_file).write_text(student_source(root, stage.id))
    early = run_cli("generate", "Return the", cwd=root)
    assert early.returncode == 2 and "does not pass yet" in early.stderr
    assert run_cli("--all", cwd=root, timeout=900).returncode == 0
    done = run_cli("generate", "Return the", "--tokens", "12", "--compare", cwd=root)
    assert done.returncode == 0, done.stderr
    first, reference, verdict = done.stdout.splitlines()[:3]
    assert first.startswith("Return the") and len(first) > len("Return the")
    assert reference == "reference: " + first and verdict == "yours and the reference's agree on all 12 new tokens"
