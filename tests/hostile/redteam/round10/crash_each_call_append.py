
# appended to every honest stage file: every call SIGKILLs its own worker, so the grader starts a new jail for the
# next call (bubblewrap, a cgroup, the resident's numpy import): the grader's own time per call, outside the jail
import os as _os, signal as _signal
for _name in [n for n in list(globals()) if n.startswith("run_")]:
    globals()[_name] = lambda *a, **k: _os.kill(_os.getpid(), _signal.SIGKILL)
