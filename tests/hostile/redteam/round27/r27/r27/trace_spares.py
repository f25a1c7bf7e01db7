# Round 27: run the CLI with spare.adopt/prestart, proc_standins and Cgroup.set_memory traced to stderr.
# usage: python attacks/r27/trace_spares.py batch SUBS --jobs 1 ...
import sys, os
from grader.run.jail import spare, box
orig_pre, orig_adopt = spare.prestart, spare.adopt
def pre(layout, settings, memory_mb):
    n = len(spare._mine())
    orig_pre(layout, settings, memory_mb)
    if len(spare._mine()) != n:
        print(f"[trace {os.getpid()}] prestart mem={memory_mb} now {[s.memory_mb for s in spare._mine()]}", file=sys.stderr)
def ad(settings):
    q = [s.memory_mb for s in spare._mine()]
    b = orig_adopt(settings)
    print(f"[trace {os.getpid()}] adopt from {q} -> {b.memory_mb if b else None}", file=sys.stderr)
    return b
box.prestart, box.adopt = pre, ad
from grader.run.jail import spawn as _sp
_ps = _sp.proc_standins
def _ps2(m):
    print(f"[trace {os.getpid()}] standins {m}", file=sys.stderr)
    return _ps(m)
_sp.proc_standins = _ps2
from grader.run.jail import cgroups as _cg
_sm = _cg.Cgroup.set_memory
def _sm2(self, m):
    try:
        _sm(self, m); print(f"[trace] set_memory {m} ok", file=sys.stderr)
    except OSError as e:
        print(f"[trace] set_memory {m} failed: {e}", file=sys.stderr); raise
_cg.Cgroup.set_memory = _sm2
from grader.__main__ import main
sys.argv = ["grader", *sys.argv[1:]]
main()
