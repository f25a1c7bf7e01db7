# module: gelu
"""Row 5: a gelu that is wrong (so its printed output is shown), whose result frame says it printed 50 lines and
dropped 10**4300 - 1 more.

The worker's `capture` (grader.run.child.capture, in this process's memory: the learner's) is swapped for one whose
read() returns that count. protocol.result_of keeps any non-negative int as output_cut; json reads and writes a
4,300-digit int (Python's limit on int<->str is more than 4,300 digits). The text report adds the lines it cuts to
it (casetext.printed: `more = len(lines) - len(shown) + cut`, 10**4300: 4,301 digits) and formats it with
f"{more:,}": ValueError, "Exceeds the limit (4300 digits) for integer string conversion", in every text rendering
of her report (feedback, report --feedback DIR, batch --feedback DIR).
"""
import sys
import types

import numpy as np

_child = sys.modules.get("grader.run.child")
if _child is not None:
    _real = _child.capture
    _child.capture = types.SimpleNamespace(empty=_real.empty, make=_real.make,
                                           read=lambda fd, cap=8192: ("".join(f"line {i}\n" for i in range(50)), 10 ** 4300 - 1))


def run_gelu(x):
    print("hello")
    return np.asarray(x) * 0.5  # wrong: the case fails, so what it printed is shown
