"""Watch mode, driven like a learner drives it: the real `python -m grader --watch` on a pseudo-terminal.

One test per key (r, h, n, p, s, ?, q), plus saves as editors make them. The handlers themselves are tested
without a terminal in test_watch_session.py. Every wait is bounded (a few seconds) and every watcher is killed at
the end of its test. No test asserts a time, and no test concludes from nothing happening for a while: a negative
check waits for a positive signal first (a later grade, by its number on the status line).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grader.learner import filewatch
from tests.conftest import representatives

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
CLEAR = "\x1b[H\x1b[2J"
WAIT = 8.0  # seconds, the most any one expectation may take on a loaded machine

GOOD = """import math
import numpy as np


def run_gelu(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x * x * x)))
"""
WRONG = GOOD.replace("0.5 * x", "0.6 * x")  # same size as GOOD: a same-second save keeps mtime-second and size
LOOP = "def run_gelu(x):\n    while True:\n        pass\n"
VERDICT = re.compile(r"^(PASS|FAIL|TODO|ERR)\s+gelu", re.M)
GRADE = re.compile(r" · grade (\d+), ")


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """The gelu stage alone (and common/), with a 1 s timeout so a learner's endless loop ends quickly."""
    root = tmp_path / "course"
    (root / "student").mkdir(parents=True)
    text = (ROOT / "course.yaml").read_text()
    text = re.sub(r"timeout: *\d+", "timeout: 1", text)
    text = text[:text.index("stages:")] + "stages:\n  - id: gelu\n    points: 10\n"
    (root / "course.yaml").write_text(text)
    shutil.copytree(ROOT / "stages" / "gelu", root / "stages" / "gelu")
    shutil.copytree(ROOT / "common", root / "common")  # the reference is common/gpt2.py's gelu
    shutil.copytree(ROOT / "fixtures" / "gelu", root / "fixtures" / "gelu")
    (root / "student" / "__init__.py").write_text("")
    shutil.copy(ROOT / "student" / "gelu.py", root / "student" / "gelu.py")
    return root


class Screen:
    """A watcher on a pseudo-terminal: what it printed, keys sent to it."""

    def __init__(self, root: Path, *args: str) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, b"\x00\x28\x00\xa0\x00\x00\x00\x00")  # 40 rows, 160 columns

        def own_terminal() -> None:  # a session of its own, with the pty as its terminal: Ctrl-C reaches it
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        env = {**os.environ, "TERM": "xterm", "NO_COLOR": "1"}
        self.proc = subprocess.Popen([sys.executable, "-m", "grader", "--root", str(root), "--watch", *args],
                                     stdin=slave, stdout=slave, stderr=slave, env=env, preexec_fn=own_terminal,
                                     close_fds=True)
        os.close(slave)
        self.raw = ""

    def read(self, seconds: float = 0.05) -> None:
        while True:
            ready, _, _ = select.select([self.master], [], [], seconds)
            if not ready:
                return
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the watcher has gone and closed its side
                return
            if not data:
                return
            self.raw += data.decode(errors="replace")
            seconds = 0

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.replace(CLEAR, "\n<screen>\n"))

    def screens(self) -> list[str]:
        """Every screen the watcher drew whole, oldest first (the last one counts once its keys line is in)."""
        drawn = [ANSI.sub("", s).replace("\r", "") for s in self.raw.split(CLEAR)[1:]]
        return drawn if not drawn or re.search(r"q quit\n\Z", drawn[-1]) else drawn[:-1]

    def wait(self, what: Callable[[], bool], message: str) -> None:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            self.read()
            if what():
                return
        raise AssertionError(f"{message}; the watcher printed:\n{self.text[-3000:]}")

    def wait_screen(self, pattern: str, after: int = 0) -> str:
        """The first screen after the first `after` screens whose verdict line matches `pattern`."""
        found: list[str] = []

        def seen() -> bool:
            found[:] = [s for s in self.screens()[after:] if re.match(pattern, s)]
            return bool(found)
        self.wait(seen, f"no screen starting with {pattern!r}")
        return found[0]

    def grades(self) -> list[int]:
        """The grade number of every screen that shows one, oldest first."""
        return [int(m.group(1)) for m in (GRADE.search(s) for s in self.screens()) if m]

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def exit_code(self) -> int:
        deadline = time.monotonic() + WAIT
        while self.proc.poll() is None and time.monotonic() < deadline:
            self.read()
        assert self.proc.poll() is not None, "the watcher did not exit"
        self.read()
        return self.proc.returncode

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)
        os.close(self.master)


@pytest.fixture
def watch(course: Path) -> Iterator[Callable[..., Screen]]:
    started: list[Screen] = []

    def start(*args: str) -> Screen:
        screen = Screen(course, *args)
        started.append(screen)
        screen.wait_screen(r"(TODO|PASS|FAIL|ERR)")
        return screen

    yield start
    for screen in started:
        screen.close()


def save(path: Path, text: str, atomic: bool = False) -> None:
    if atomic:  # an editor's safe write: a temporary file renamed over the old one
        tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
        tmp.write_text(text)
        os.replace(tmp, path)
    else:
        path.write_text(text)


def add_second_stage(course: Path) -> None:
    """gelu_b: a copy of gelu, after it in the course, with a wrong student/gelu_b.py."""
    second = course / "stages" / "gelu_b"
    shutil.copytree(course / "stages" / "gelu", second)
    (second / "stage.yaml").write_text((second / "stage.yaml").read_text().replace("id: gelu", "id: gelu_b")
                                       .replace("student.gelu:", "student.gelu_b:"))
    shutil.copytree(course / "fixtures" / "gelu", course / "fixtures" / "gelu_b")
    manifest = course / "fixtures" / "gelu_b" / "MANIFEST.json"
    manifest.write_text(manifest.read_text().replace('"stage": "gelu"', '"stage": "gelu_b"'))
    with open(course / "course.yaml", "a") as f:
        f.write("  - id: gelu_b\n    points: 10\n")
    save(course / "student" / "gelu_b.py", WRONG)


# --- one test per key ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", representatives(["q", "\x03"], {"q"}, {"q": "q", "\x03": "ctrl-c"}.__getitem__))
def test_q_and_ctrl_c_exit_cleanly(watch: Callable[..., Screen], key: str):
    screen = watch("--stage", "gelu")
    screen.send(key)
    assert screen.exit_code() == 0
    assert "Traceback" not in screen.text and "KeyboardInterrupt" not in screen.text


@pytest.mark.slow  # a watcher on a pty per key; test_watch_session.py runs the keys in-process
def test_r_grades_again(watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    screen.send("r")
    screen.wait(lambda: 2 in screen.grades(), "no second grade")


@pytest.mark.slow  # a watcher on a pty per key; test_watch_session.py runs the keys in-process
def test_h_shows_the_next_hint(watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    screen.send("h")
    screen.wait(lambda: "Hint 1 of 3 for gelu:" in screen.text, "no hint shown")
    screen.send("h")
    screen.wait(lambda: "Hint 2 of 3 for gelu:" in screen.text, "no second hint")


@pytest.mark.slow  # a watcher on a pty per key; test_watch_session.py runs the keys in-process
def test_n_moves_on_after_a_pass(course: Path, watch: Callable[..., Screen]):
    add_second_stage(course)
    screen = watch()
    n = len(screen.screens())
    save(course / "student" / "gelu.py", GOOD)
    passed = screen.wait_screen(r"PASS  gelu", after=n)
    assert "gelu passes (1 of 2 stages): press n for the next stage, gelu_b" in passed
    assert "1 of 2 stages pass" in passed and "watching gelu " in passed
    screen.send("n")
    moved = screen.wait_screen(r"FAIL  gelu_b", after=n)
    assert "gelu passes (1 of 2 stages). Now on gelu_b" in moved and "watching gelu_b " in moved


@pytest.mark.slow  # a watcher on a pty per key; test_watch_session.py runs the keys in-process
def test_p_goes_back_a_stage(course: Path, watch: Callable[..., Screen]):
    add_second_stage(course)
    screen = watch("--stage", "gelu_b")
    n = len(screen.screens())
    screen.send("p")
    back = screen.wait_screen(r"TODO  gelu:", after=n)
    assert "Back on gelu" in back and "watching gelu " in back


@pytest.mark.slow  # a watcher on a pty per key; test_watch_session.py runs the keys in-process
def test_s_shows_the_instructions(watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    n = len(screen.screens())
    screen.send("s")
    shown = screen.wait_screen(r"# gelu_new, GPT-2's activation", after=n)
    assert "gelu's instructions, page 1 of" in shown
    n = len(screen.screens())
    screen.send(" ")
    screen.wait_screen(r"TODO  gelu", after=n)


@pytest.mark.slow  # a watcher on a pty per key; test_watch_session.py runs the keys in-process
def test_question_mark_lists_the_keys(watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    n = len(screen.screens())
    screen.send("?")
    keys = screen.wait_screen(r"Keys", after=n)
    assert "p   the previous stage" in keys and "--next-after" in keys
    n = len(screen.screens())
    screen.send("?")
    screen.wait_screen(r"TODO  gelu", after=n)


# --- saves, polling, following the course ------------------------------------------------------------------


def test_a_failing_save_shows_a_failure_then_a_correct_save_passes(course: Path, watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    first = screen.screens()[0]
    assert first.startswith("TODO  gelu: not started")
    assert re.search(r"r re-run · h hint · s instructions · \? keys · q quit\s*$", first), "the keys come last"
    n = len(screen.screens())
    save(course / "student" / "gelu.py", WRONG)
    failed = screen.wait_screen(r"FAIL  gelu: 0 of 7 cases pass", after=n)
    assert "out of tolerance" in failed
    n = len(screen.screens())
    save(course / "student" / "gelu.py", GOOD)
    screen.wait_screen(r"PASS  gelu: all 7 cases pass", after=n)
    assert "Traceback" not in screen.text


@pytest.mark.slow  # a watcher on a pty per way of saving
def test_an_atomic_save_and_a_deleted_then_recreated_file_are_seen(course: Path, watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    save(course / "student" / "gelu.py", GOOD, atomic=True)
    screen.wait_screen(r"PASS  gelu")
    n = len(screen.screens())
    (course / "student" / "gelu.py").unlink()
    screen.wait_screen(r"ERR\s+gelu", after=n)
    assert "student/gelu.py is missing" in screen.text
    n = len(screen.screens())
    save(course / "student" / "gelu.py", WRONG)
    screen.wait_screen(r"FAIL  gelu", after=n)


@pytest.mark.slow  # a watcher on a pty per way of saving
def test_ten_rapid_saves_end_in_one_verdict_for_the_last_content(course: Path, watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    n = len(screen.screens())
    for i in range(9):
        save(course / "student" / "gelu.py", WRONG + f"# save {i}\n")
    save(course / "student" / "gelu.py", GOOD)
    passed = screen.wait_screen(r"PASS  gelu", after=n)
    graded = int(GRADE.search(passed).group(1))  # type: ignore[union-attr]
    (course / "student" / "later.py").write_text("# a later save: its grade comes after any the burst made\n")
    screen.wait(lambda: max(screen.grades()) > graded, "the later save was not graded")
    verdicts = [s.split("\n", 1)[0][:4] for s in screen.screens()[n:] if VERDICT.match(s)]
    assert verdicts == ["PASS", "PASS"] and max(screen.grades()) == graded + 1  # the burst's one, then the later


@pytest.mark.slow  # waits out a 1 s timeout on a pty
def test_an_endless_loop_times_out_and_the_next_correct_save_passes(course: Path, watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    n = len(screen.screens())
    save(course / "student" / "gelu.py", LOOP)
    timed_out = screen.wait_screen(r"ERR\s+gelu", after=n)
    assert "timeout" in timed_out
    n = len(screen.screens())
    save(course / "student" / "gelu.py", GOOD)
    screen.wait_screen(r"PASS  gelu", after=n)


@pytest.mark.slow  # an endless loop on a pty
def test_a_save_during_an_endless_loop_ends_it_and_grades_the_new_file(course: Path,
                                                                       watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu")
    n = len(screen.screens())
    save(course / "student" / "gelu.py", LOOP)
    time.sleep(0.2)
    save(course / "student" / "gelu.py", GOOD)
    screen.wait_screen(r"PASS  gelu", after=n)
    # Grades run one after another: a verdict on the endless loop would have been drawn before this one.
    assert not [s for s in screen.screens()[n:] if "timeout" in s]


@pytest.mark.slow  # a watcher on a pty per way of saving
def test_a_helper_module_edit_takes_effect_on_the_next_save(course: Path, watch: Callable[..., Screen]):
    helper = course / "student" / "helpers.py"
    helper.write_text("HALF = 0.5\n")
    save(course / "student" / "gelu.py", GOOD.replace("0.5 * x", "HALF * x").replace(
        "import numpy as np\n", "import numpy as np\n\nfrom student.helpers import HALF\n"))
    screen = watch("--stage", "gelu")
    assert screen.screens()[0].startswith("PASS")
    n = len(screen.screens())
    helper.write_text("HALF = 0.6\n")
    screen.wait_screen(r"FAIL  gelu", after=n)


@pytest.mark.slow  # a watcher on a pty per way of saving
def test_polling_sees_two_same_size_saves_within_one_second(course: Path, watch: Callable[..., Screen]):
    screen = watch("--stage", "gelu", "--poll")
    assert "(polling)" in screen.screens()[0]
    n = len(screen.screens())
    save(course / "student" / "gelu.py", GOOD)
    screen.wait_screen(r"PASS  gelu", after=n)
    n = len(screen.screens())
    save(course / "student" / "gelu.py", WRONG)  # same size, same second
    screen.wait_screen(r"FAIL  gelu", after=n)
    n = len(screen.screens())
    save(course / "student" / "gelu.py", GOOD, atomic=True)
    screen.wait_screen(r"PASS  gelu", after=n)


@pytest.mark.slow  # a watcher on a pty; the pause is in-process too
def test_following_the_course_with_a_pause_moves_on_by_itself(course: Path, watch: Callable[..., Screen]):
    add_second_stage(course)
    screen = watch("--next-after", "0")
    assert "0 of 2 stages pass" in screen.screens()[0] and "watching gelu " in screen.screens()[0]
    n = len(screen.screens())
    save(course / "student" / "gelu.py", GOOD)
    moved = screen.wait_screen(r"FAIL  gelu_b", after=n)
    assert "gelu passes (1 of 2 stages). Now on gelu_b" in moved and "1 of 2 stages pass" in moved
    n = len(screen.screens())
    save(course / "student" / "gelu_b.py", GOOD)
    done = screen.wait_screen(r"PASS  gelu_b", after=n)
    assert "All 2 stages pass. Well done." in done and "2 of 2 stages pass" in done


@pytest.mark.slow  # a watcher in a subprocess; json mode is in test_watch_session.py
def test_json_lines_without_a_terminal(course: Path):
    proc = subprocess.Popen([sys.executable, "-m", "grader", "--root", str(course), "--stage", "gelu", "--watch",
                             "--format", "json"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + WAIT
        while not lines and time.monotonic() < deadline:
            time.sleep(0.05)
        save(course / "student" / "gelu.py", GOOD)
        while len(lines) < 2 and time.monotonic() < deadline + WAIT:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=2)
    reports = [json.loads(line) for line in lines]
    assert [r["stages"][0]["status"] for r in reports] == ["not_started", "pass"]
    assert "Traceback" not in (proc.stderr.read() if proc.stderr else "")


def test_watchdog_falls_back_to_polling_when_events_do_not_arrive(course: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(filewatch.FileSource, "_events", lambda self: None)  # events never come
    monkeypatch.setattr(filewatch, "WATCHDOG_INTERVAL", 0.1)
    monkeypatch.setattr(filewatch, "ARM_TIMEOUT", 0.0)
    changes: list[set[str]] = []
    notices: list[str] = []
    source = filewatch.FileSource(filewatch.Targets(course, "gelu"), changes.append, notices.append)
    try:
        time.sleep(0.15)
        save(course / "student" / "gelu.py", GOOD)
        deadline = time.monotonic() + WAIT
        while not changes and time.monotonic() < deadline:
            time.sleep(0.02)
        assert source.polling and notices and "polling" in notices[0]
        assert str(course / "student" / "gelu.py") in changes[0]
    finally:
        source.stop()


def test_file_systems_without_events_are_recognised(tmp_path: Path):
    mounts = f"/dev/sda1 / ext4 rw 0 0\nC:\\134 {tmp_path} 9p rw 0 0\n"
    assert "9p" in (filewatch.no_events_reason(tmp_path / "course", mounts) or "")
    assert filewatch.no_events_reason(Path("/usr"), mounts) is None


def test_relevant_files_only(course: Path):
    targets = filewatch.Targets(course, "gelu")
    assert targets.relevant(course / "student" / "gelu.py")
    assert targets.relevant(course / "fixtures" / "gelu" / "MANIFEST.json")
    assert targets.relevant(course / "stages" / "gelu" / "stage.yaml")
    for name in (".gelu.py.swp", "gelu.py~", ".#gelu.py", "4913", "notes.txt", "__pycache__/gelu.cpython-311.pyc"):
        assert not targets.relevant(course / "student" / name), name
    assert not targets.relevant(course / "stages" / "other" / "stage.yaml")
