"""Round 27: build full-course submissions from the grader's own reference tree (references.files): honest learners,
and attackers that are the same tree with one module swapped (a crasher on hidden calls, an input scribbler).
usage: python attacks/r27/build_full.py OUT_DIR   (from /work/redteam27, venv active)"""
import sys
from pathlib import Path

from grader.course.load import load_course
from grader.instructor.references import files

out = Path(sys.argv[1])
course = load_course(".")
tree = files(course, *course.stages)
here = Path(__file__).parent

def make(name, swap=None):
    for rel, text in tree.items():
        p = out / name / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for rel, text in (swap or {}).items():
        (out / name / rel).write_text(text)

for n in ("h1", "h2", "h3", "h4"):
    make(n)
# every call of every stage: write its arrays and the mappings under them first, then answer as the reference does
scrib = {}
for rel, text in tree.items():
    if rel.startswith("student/_"):
        continue
    scrib[rel] = text + '''

def _scribble_all():
    import functools, mmap, sys
    import numpy as np
    mod = sys.modules[__name__]
    for name in [n for n in dir(mod) if n.startswith("run_")]:
        f = getattr(mod, name)
        if getattr(f, "_scribbled", False):
            continue
        @functools.wraps(f)
        def g(*a, _f=f, **k):
            for v in list(a) + list(k.values()):
                if isinstance(v, np.ndarray) and v.flags.writeable and v.size:
                    saved = v.copy()
                    m = v
                    while m is not None and not isinstance(m, mmap.mmap):
                        m = getattr(m, "base", None)
                    if m is not None:
                        m.seek(0); m.write(b"\\xff" * min(len(m), 4096))
                    v[...] = saved  # the call's own pages: restored, so its answer stays right
            return _f(*a, **k)
        g._scribbled = True
        setattr(mod, name, g)
_scribble_all()
'''
make("m_scribble", scrib)
# ends its worker in every hidden call (a shape or value no public case has is not knowable here: every call after
# the public pass is told by a marker file the public calls leave in /tmp)
crash = dict(tree)
crash = {"student/softmax.py": tree["student/softmax.py"] + '''

import os as _os
_orig = run_softmax
def run_softmax(*a, **k):
    if any('"case": "hidden' in open(f"/jail/job/{n}/job.json").read() for n in _os.listdir("/jail/job")):
        _os._exit(3)
    return _orig(*a, **k)
'''}
make("m_crash", crash)
print(sorted(p.name for p in out.iterdir()))
