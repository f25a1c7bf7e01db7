"""Leak hidden inputs through stage-level notes (stage conv1d). On a hidden case, import a subset of the course's
other stage modules (student.layernorm, student.softmax, ... : stubs, imported but never called) chosen by the
bits of a hash of the hidden input, and fail one hidden case on purpose so the stage does not pass. The grader's
"Your code uses student/X.py (stage 'X'), which has not been graded yet / does not pass yet" notes are computed
from the modules the child says it imported, and they are stage notes, which hidden-case redaction does not touch:
the set of notes shown to the learner spells the bits (about one per other stage, per stage, per submission).
BROKEN if the notes of a graded result vary with the hidden input (compare two hidden cases or two bit choices)."""
# module: conv1d
import hashlib
import importlib

import numpy as np

CARRIERS = ["layernorm", "softmax", "attention", "block", "gpt2", "generate", "kvcache", "tokenizer"]


def run_conv1d(x, weight, bias):
    out = x @ weight + bias
    if x.shape[-2:] == (64, 768) or x.shape[-2:] == (1, 768):  # the hidden cases' shapes (stage.yaml names them)
        byte = hashlib.sha256(np.ascontiguousarray(x).tobytes()).digest()[0]
        for bit, name in enumerate(CARRIERS):
            if byte >> bit & 1:
                importlib.import_module(f"student.{name}")
        if x.shape[-2:] == (1, 768):
            return out + 1.0  # fail this hidden case: the stage is not passed, so the notes are shown
    return out
