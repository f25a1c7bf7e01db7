"""Round 28: grade one submission (real jail) with timestamps on the jail's steps, to see where a batch waits.
usage: python attacks/r28/trace_probe.py COURSE_ROOT SUB_DIR"""
import sys, time
from pathlib import Path

from grader.course.load import load_course
from grader.instructor import upstream
from grader.run.jail import box as jailbox, spawn, job as jobmod

T0 = time.monotonic()


def say(*a):
    print(f"{time.monotonic() - T0:8.2f}", *a, flush=True)


def wrap(cls, name):
    orig = getattr(cls, name)

    def w(self, *a, **k):
        say("enter", cls.__name__, name)
        try:
            return orig(self, *a, **k)
        finally:
            say("leave", cls.__name__, name, getattr(self, "stalled", ""))
    setattr(cls, name, w)


for cls, name in [(jailbox.Jail, "settle"), (jailbox.Jail, "_end_box"), (jailbox.Jail, "_start"),
                  (spawn.Box, "kill"), (jobmod.Job, "close")]:
    wrap(cls, name)
orig_send = jailbox.Jail._send_job
n = [0]


def send(self, box, calls, limits, cpu):
    n[0] += 1
    if n[0] % 50 == 0 or len(calls) < 3 or box.stalled:
        say("send job", n[0], calls[0].case, len(calls), "stalled" if box.stalled else "")
    j = orig_send(self, box, calls, limits, cpu)
    if box.stalled:
        say("STALLED after send", n[0])
    return j


jailbox.Jail._send_job = send
course = load_course(sys.argv[1])
report = upstream.grade_stages(course, Path(sys.argv[2]), upstream.Settings())
say("done", report.points)
