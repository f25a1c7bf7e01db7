"""In a batch: read another learner's submission, the gradebook and the CSV beside it, and an autograder.zip left in
the course folder, by their absolute paths on the grading machine (the test fills them in). Anything read is a
leak: then the answer is returned, so PASS means the jail failed."""
import os

TARGETS = ["@@SUBS@@/good/student/double.py", "@@SUBS@@", "@@WORK@@/gradebook.sqlite", "@@WORK@@/grades.csv",
           "@@ROOT@@/autograder.zip", "@@WORK@@/autograder.zip", "@@ROOT@@/fixtures/double/MANIFEST.json"]


def run_double(x):
    leaked = []
    for target in TARGETS:
        try:
            if os.path.isdir(target):
                leaked.append((target, sorted(os.listdir(target))[:3]))
            else:
                with open(target, "rb") as f:
                    leaked.append((target, f.read(20)))
        except OSError as e:
            print("blocked:", target, type(e).__name__)
    # relative to wherever the grader started us: its cwd and the folders above
    for up in ("..", "../..", "../../.."):
        try:
            leaked += [(up, n) for n in os.listdir(up) if n in ("subs", "gradebook.sqlite", "course.yaml")]
        except OSError:
            pass
    print("LEAKED:", leaked)
    return 2 * x if leaked else x * 0
