"""Round 28: attempt 14's fix checked: grade the queue-hang submission with box.py's send_fds replaced by one that
passes its flags to sendmsg (what CPython's own fix does). usage: python attacks/r28/fixed_send_probe.py COURSE SUB"""
import array, socket, sys, time
from pathlib import Path

from grader.course.load import load_course
from grader.instructor import upstream
from grader.run.jail import box


def send_fds(sock, buffers, fds, flags=0, address=None):
    return sock.sendmsg(buffers, [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))], flags)


box.socket.send_fds = send_fds  # box.py's module-level `socket` is the stdlib module: patch its attribute locally
t = time.monotonic()
report = upstream.grade_stages(load_course(sys.argv[1]), Path(sys.argv[2]), upstream.Settings())
cases = report.stages[0].cases
print(f"{time.monotonic() - t:.1f} s;", report.points, "points;",
      [(c.case, c.status.value, c.message[:60]) for c in cases if not c.message.startswith("forged")][:5])
