"""Attacker's conv1d (ATTACKER_OWN): wrong by itself (fails every public case); once a stage graded with references
has stashed conv1d's reference in the jail's /tmp, it calls that instead (hidden pass, same jail)."""
import os
import sys

import numpy as np


def run_conv1d(x, weight, bias):
    if os.path.exists("/tmp/.stash/ok"):
        if "/tmp/.stash" not in sys.path:
            sys.path.insert(0, "/tmp/.stash")
        import importlib
        return importlib.import_module("stashstudent.conv1d").run_conv1d(x, weight, bias)
    return np.zeros(x.shape[:-1] + (weight.shape[1],), dtype=x.dtype)  # no working conv1d of my own
