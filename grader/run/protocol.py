"""What passes between the grader and a learner's child: calls, limits, outcomes, and the framed result stream.

A frame is an 8-byte length, a JSON header naming its payloads' sizes, then the payloads (.npy bytes and the call's
captured output). The child sends `start i`, then call i's result, for each call in order. The parser refuses any
frame it cannot read or that is larger than the call may send, as it arrives, without buffering it. Text from the
child (messages, printed output, module names) is made safe once, here, where it enters: invalid Unicode replaced,
terminal control characters escaped, length bounded.
"""

from __future__ import annotations

import io
import json
import math
import mmap
import os
import re
import signal
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np

from grader.records import Record, field
from grader.results import Status
from grader.run.safetext import MESSAGE_CAP, safe_text

HEADER = struct.Struct("<Q")  # a frame's header length
HEADER_CAP = 1 << 20  # the largest JSON header a child may send
PARTS_CAP = 1024  # payloads one frame may carry (a dict output has one per key)
FRAME_CAP = 1 << 30  # the most one call may send back when nothing tighter is known
INPUT_FDS = 200  # fixture inputs a jail's job may carry as descriptors (one message takes at most 253); more: copies
OUTPUT_CAP = 8 * 1024  # bytes of a call's printed output kept
CUT_CAP = 1 << 30  # lines of printed output a call can have had cut: no more than the bytes a file may hold
OBSERVED_CAP = 2000  # observed calls kept of one call (run/observe.py records no more): 32 tokens x 12 blocks is 384

# The statuses a child may report about itself. PASS and FAIL are decided by the grader's comparison, and
# TIMEOUT / CRASHED / SKIPPED by the grader watching the child: a child claiming any of them is lying.
CHILD_STATUSES = frozenset({Status.TODO, Status.SYNTAX_ERROR, Status.IMPORT_ERROR, Status.EXCEPTION,
                            Status.MEMORY, Status.EXITED, Status.BAD_OUTPUT})


class NpyFile(Record, frozen=True):
    """An input array still in its verified .npy fixture file: the jail gets a descriptor of a sealed copy of it.

    Cases sharing a file (an MLP's weights) share one copy, instead of the grader writing each array out again;
    a process makes one copy of each file for all its jobs (grader/run/jail/staging.py `shared_input`).
    """

    path: str


class Call(Record):
    """One call of a learner function with named inputs."""

    case: str
    module: str
    function: str
    inputs: dict[str, Any]
    returns: str = "array"
    keys: tuple[str, ...] = ()  # the names of a returned tuple's arrays, in order
    max_bytes: int = FRAME_CAP  # the largest result this call may send (a few times its expected output)
    observe: tuple[tuple[str, str], ...] = ()  # (module, function): the learner's calls of these are recorded


class Limits(Record):
    """What one call may use."""

    timeout: float = 10.0
    memory_mb: int = 4096


class Outcome(Record):
    """What one call did: a value to compare (status None) or a final status with a message."""

    case: str
    status: Status | None
    value: dict[str, np.ndarray] | None = None
    message: str = ""
    output: str = ""  # what the call printed, stdout and stderr interleaved as written, cut to OUTPUT_CAP
    output_cut: int = 0  # lines of output not kept
    seconds: float = 0.0
    modules: list[str] = field(default_factory=list)
    raised_in: str | None = None  # "student/gelu.py:run_gelu": the learner's function that raised (TODO, error)
    returned: str | None = None  # what the function returned when it was not an array ("list", "tuple", ...)
    where: str | None = None  # a timed-out call: the learner's line it was on ("student/gelu.py:11  while ...")
    isolation: str | None = None  # graded: what kept the child apart from the grader (SECURITY.md)
    observed: list[dict[str, Any]] | None = None  # the call's observed calls (run/observe.py), as the child said


def encode(header: dict[str, Any], parts: list[bytes] | tuple[bytes, ...] = (), sizes: list[int] | None = None
           ) -> bytes:
    """One frame's bytes; with `sizes`, its header alone, for payloads of those sizes written after it."""
    head = json.dumps({**header, "parts": sizes if sizes is not None else [len(p) for p in parts]}).encode()
    return HEADER.pack(len(head)) + head + b"".join(parts)


def _buffer(size: int) -> bytearray | mmap.mmap:
    """Room for a frame's payloads, taken as the child's bytes arrive.

    A large one is an anonymous mapping, whose pages are taken only when written; a bytearray is zeroed whole at
    once, so merely announcing a size would cost the grader that memory.
    """
    if size < 1 << 20:
        return bytearray(size)
    return mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # private: a jail may map no shared one


class Frames:
    """Splits the child's byte stream into (JSON header, [payloads]) frames; refuses anything malformed.

    `limit` is the most the current frame may carry, set by the grader when a call starts and 0 otherwise; a frame
    announcing more is refused from its header alone, before its payload is read. Headers are JSON objects of finite
    numbers with a list of at most PARTS_CAP non-negative int payload sizes. Once a header is read, its payloads go
    into one buffer of exactly their size, read into in place (`read`): a model's logits (51 MB a case) are copied
    from the pipe once, and the arrays read from them are views of that buffer.
    """

    def __init__(self) -> None:
        self.buf = bytearray()
        self.broken: str | None = None
        self.limit = 0
        self.pending: tuple[dict[str, Any], list[int], int] | None = None  # a header awaiting its payload
        self.payload: bytearray | mmap.mmap | None = None  # the pending frame's payloads, filled up to `got`
        self.got = 0

    def read(self, fd: int) -> Iterator[tuple[dict[str, Any], list[memoryview]]] | None:
        """Read what the pipe holds (into a pending payload's buffer when one is due): the frames it completes.

        None when the pipe is closed. The frames are parsed as they are taken, so the caller acts on each (a `start`
        sets `limit`) before the next one's header is read.
        """
        if self.payload is not None and self.broken is None:
            n = os.readv(fd, [memoryview(self.payload)[self.got:]])
            if n == 0:
                return None
            self.got += n
            return self._frames()
        data = os.read(fd, 1 << 20)
        return self.feed(data) if data else None

    def feed(self, data: bytes) -> Iterator[tuple[dict[str, Any], list[memoryview]]]:
        """The complete frames in what has arrived so far (call until it yields nothing more)."""
        if self.payload is not None:
            take = min(len(data), len(self.payload) - self.got)
            self.payload[self.got:self.got + take] = data[:take]
            self.got += take
            data = data[take:]
        self.buf += data
        yield from self._frames()

    def _frames(self) -> Iterator[tuple[dict[str, Any], list[memoryview]]]:
        while self.broken is None:
            if self.payload is None:
                if self.pending is None:
                    if len(self.buf) < HEADER.size:
                        return
                    self.pending = self._header()
                    if self.pending is None:
                        return
                header, sizes, n = self.pending
                del self.buf[:HEADER.size + n]
                self.payload, self.got = _buffer(sum(sizes)), min(len(self.buf), sum(sizes))
                self.payload[:self.got] = self.buf[:self.got]
                del self.buf[:self.got]
            if self.got < len(self.payload):
                return  # the rest arrives in pipe-sized pieces, read straight into the payload
            assert self.pending is not None
            header, sizes, _ = self.pending
            view, parts, at = memoryview(self.payload).toreadonly(), [], 0
            for size in sizes:
                parts.append(view[at:at + size])
                at += size
            self.pending, self.payload, self.got = None, None, 0
            yield header, parts

    def _header(self) -> tuple[dict[str, Any], list[int], int] | None:
        (n,) = HEADER.unpack_from(self.buf)
        if n > HEADER_CAP:
            self.broken = "sent something the grader could not read (was the grader's pipe written to?)"
            return None
        if len(self.buf) < HEADER.size + n:
            return None
        header = parse_header(bytes(self.buf[HEADER.size:HEADER.size + n]))
        sizes = header.get("parts") if header is not None else None
        if header is None or not (isinstance(sizes, list) and len(sizes) <= PARTS_CAP
                                  and all(type(s) is int and s >= 0 for s in sizes)):
            self.broken = "sent something the grader could not read (was the grader's pipe written to?)"
            return None
        if sum(sizes) > self.limit:
            self.broken = (f"returned more than {self.limit:,} bytes, far more than this case's answer" if self.limit
                           else "sent output the grader did not ask for (was the grader's pipe written to?)")
            return None
        return header, sizes, n


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999 parses as inf
        raise ValueError("not a finite number")
    return value


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_header(raw: bytes) -> dict[str, Any] | None:
    """A frame's JSON header: an object of finite numbers (NaN, Infinity, 1e999 refused), or None."""
    try:
        header = json.loads(raw, parse_float=_finite, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return header if isinstance(header, dict) else None


NPY_HEADER_CAP = 4096  # bytes of an .npy header: numpy's own are a few dozen, padded to 64
_NPY_HEADER = re.compile(r"\{'descr': '(?P<descr>[<>|=][a-zA-Z]\d+)', 'fortran_order': (?P<fortran>True|False), "
                         r"'shape': \((?P<shape>|\d+,|\d+(?:, \d+)+)\), \} *\n")


def read_npy(data: bytes | memoryview) -> np.ndarray:
    """An .npy payload read strictly: numbers or text, and exactly the bytes its header's shape declares.

    A forged header cannot make the grader allocate more than the payload it sent (numpy's own reader allocates
    the declared shape first).
    """
    whole = memoryview(data)
    head = bytes(whole[:12])  # the magic, the version and the header's length: the header alone is copied
    version = np.lib.format.read_magic(io.BytesIO(head))
    if version not in ((1, 0), (2, 0)):
        raise ValueError(f"unsupported .npy version {version}")
    (length,) = struct.unpack("<H" if version == (1, 0) else "<I", head[8:10] if version == (1, 0) else head[8:12])
    start = 10 if version == (1, 0) else 12
    if length > NPY_HEADER_CAP:
        raise ValueError("an .npy header far longer than numpy writes")
    # Read as numpy writes it, and nothing else: numpy's own reader runs a header through Python's tokenizer when
    # it holds an `L` (a Python 2 long), 30 ms for 10 KB of newlines, a thousand times a result (red team round 9)
    found = _NPY_HEADER.fullmatch(bytes(whole[start:start + length]).decode("latin1"))
    if found is None:
        raise ValueError("an .npy header not as numpy writes it")
    dtype = np.dtype(found["descr"])
    fortran = found["fortran"] == "True"
    shape = tuple(int(n) for n in found["shape"].replace(",", " ").split())
    if dtype.hasobject or dtype.fields is not None or dtype.kind not in "biufcU" or any(d < 0 for d in shape):
        raise ValueError("not an array of numbers (or text)")
    body = whole[start + length:]
    if len(body) != math.prod(shape) * dtype.itemsize:
        raise ValueError("the payload's size does not match its shape")
    # A read-only view of the payload's own bytes, not a copy: a model's logits (51 MB) are held once.
    array = np.frombuffer(body, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    if dtype.kind == "U":  # UCS-4 holds any 32-bit value; text is code points up to 0x10FFFF, no surrogates
        points = np.frombuffer(body, dtype=np.dtype("u4").newbyteorder(dtype.byteorder))
        if ((points > 0x10FFFF) | ((points >= 0xD800) & (points <= 0xDFFF))).any():
            raise ValueError("text that is not Unicode (red team round 9: str() of it raised in the grader)")
    return array


def result_of(call: Call, header: dict[str, Any], parts: list[memoryview], seconds: float) -> Outcome:
    """A result frame as an Outcome: arrays read without pickle, statuses the child may not claim refused."""
    modules = header.get("modules", [])
    text = {k: safe_text(header[k], 300) if isinstance(header.get(k), str) else None for k in ("raised_in", "returned")}
    output, cut = header.get("output", ""), header.get("output_cut", 0)
    common: dict[str, Any] = {
        "output": safe_text(output, OUTPUT_CAP) if isinstance(output, str) else "",
        # at most the lines a capture file can hold (red team round 9: 10**4300 - 1 stopped every feedback file)
        "output_cut": min(cut, CUT_CAP) if type(cut) is int and cut >= 0 else 0, "seconds": seconds, **text,
        "modules": [safe_text(m, 200) for m in modules[:1000]] if isinstance(modules, list) else []}
    if header.get("status") != "ok":
        try:
            status = Status(header.get("status"))
        except (ValueError, TypeError):
            status = Status.BAD_OUTPUT
        if status not in CHILD_STATUSES:
            return Outcome(call.case, Status.BAD_OUTPUT, message=f"claimed the status '{status.value}' for itself; "
                           "only the grader decides that (was the grader's pipe written to?)", **common)
        return Outcome(call.case, status, message=safe_text(header.get("message", ""), MESSAGE_CAP), **common)
    keys = header.get("keys", [])
    if not isinstance(keys, list) or len(keys) != len(parts) or len(set(map(str, keys))) != len(keys):
        return Outcome(call.case, Status.BAD_OUTPUT, message="sent an output the grader could not read", **common)
    value = {}
    for key, data in zip(keys, parts, strict=True):
        try:
            value[safe_text(key, 200)] = read_npy(data)
        except Exception:  # any malformed bytes: the child's problem, never the grader's
            return Outcome(call.case, Status.BAD_OUTPUT, message="returned a value the grader could not read as an "
                           "array of numbers", **common)
    observed = header.get("observed")
    if call.observe:
        common["observed"] = ([o for o in observed[:OBSERVED_CAP] if isinstance(o, dict)]
                              if isinstance(observed, list) else [])
    return Outcome(call.case, None, value=value, **common)


def timeout_message(timeout: float, where: str | None) -> str:
    """What a call stopped at its timeout is told, with the learner's line it was on when known."""
    spot, _, line = (where or "").partition("  ")
    at = (f" It was at {spot}" + (f" ({line})." if line else ".")) if where else ""
    return (f"took longer than {timeout:g} s and was stopped.{at} Look for a loop that never ends, or work that grows "
            "much faster than the input.")


def ended(sig: int | None, code: int | None) -> tuple[Status, str]:
    """How a process that ended without answering its call is reported: by the signal that killed it, or its exit."""
    if sig == signal.SIGKILL:
        return Status.CRASHED, ("was killed (SIGKILL): by the system for using too much memory, or by the code "
                                "itself. Check the size of the arrays you create.")
    if sig is not None:
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return Status.CRASHED, (f"crashed: the process was killed by {name}. This happens with a segmentation "
                                "fault in native code or an abort().")
    return Status.EXITED, (f"ended the process (exit code {code}) instead of returning: remove calls to exit(), "
                           "sys.exit() or os._exit(), and closing the grader's pipes.")


def out_of_memory(memory_mb: int) -> str:
    """What a call whose processes were stopped by the memory limit of their cgroup is told."""
    return (f"used more than {memory_mb} MiB of memory (all its processes and the files it wrote, counted together) "
            "and was stopped. Check the size of the arrays you create.")
