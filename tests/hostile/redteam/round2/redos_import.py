# module: combine
r"""ReDoS against the grader's import scanner (judge/loops.py): a correct combine.py whose string literal holds a
line of `from` and millions of spaces (3,000,000 in the attack; the test fills them in). The first
pattern's `[ \t]+(\.*)([\w.]*)[ \t]+import` split those spaces every way: hours of a batch worker, outside every
timeout and budget, and the batch never finished. Held if the batch grades this submission (combine passes) and
every other learner in seconds."""
from student.double import run_double


def run_combine(x, y):
    return run_double(x) + y


_NOTE = """
from@@SPACES@@
"""
