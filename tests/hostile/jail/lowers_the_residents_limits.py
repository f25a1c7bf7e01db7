"""Red team round 8: the jail's resident process (pid 1, the same uid as the learner's code) hands its hard limits to
every worker it forks. Lowered from a call, they made the next worker fail before its first call (its own limits
could not be set), and the submission's row a grader error instead of the learner's own failures."""
import resource


LOW = {"FSIZE": 1 << 20, "AS": 1 << 30, "NOFILE": 5}


def run_double(x):
    for limit, low in ((getattr(resource, f"RLIMIT_{n}"), LOW[n]) for n in "@@LIMITS@@".split()):
        try:
            resource.prlimit(1, limit, (low, low))
            print("lowered", limit)
        except OSError as e:
            print("refused", limit, type(e).__name__)
    return 2 * x
