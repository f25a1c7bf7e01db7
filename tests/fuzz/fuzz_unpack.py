"""atheris target: any bytes as a submission zip (and, structured, as a zip's entry names and contents).

The unpacker must copy student/*.py into its destination or refuse with a SubmissionError naming the zip;
nothing may be written outside the destination. Anything else is a crash.
Run: python tests/fuzz/fuzz_unpack.py -runs=20000
"""

import io
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from grader.instructor import submissions

WORK = Path(tempfile.mkdtemp(prefix="fuzz-unpack-"))
# A bug already reported (grader/submissions.py _from_zip: an entry with an empty name makes ZipInfo.is_dir()
# raise IndexError). Counted and printed, so the rest of the run still looks for new ones.
KNOWN = {"empty zip entry name (IndexError in ZipInfo.is_dir)": 0}


def _zip_from(fdp: atheris.FuzzedDataProvider) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for _ in range(fdp.ConsumeIntInRange(0, 6)):
            name = fdp.PickValueInList(["student/gelu.py", "student/../x.py", "/abs.py", "a/student/b.py",
                                        "student/__init__.py", "gelu.py", ""]) + fdp.ConsumeUnicodeNoSurrogates(8)
            info = zipfile.ZipInfo(name or "x")
            info.external_attr = fdp.PickValueInList([0, 0o120777 << 16, 0o100644 << 16])
            z.writestr(info, fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 64)))
    return buf.getvalue()


def TestOneInput(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    blob = _zip_from(fdp) if fdp.ConsumeBool() else fdp.ConsumeBytes(len(data))
    zpath, dest = WORK / "sub.zip", WORK / "dest"
    zpath.write_bytes(blob)
    try:
        written = submissions.unpack(submissions.Submission("sub", zpath), dest, flat_ok=fdp.ConsumeBool())
        for rel in written:
            if not (dest / rel).resolve().is_relative_to((dest / "student").resolve()):
                raise AssertionError(f"wrote outside dest/student: {rel}")
    except IndexError as e:
        if "is_dir" not in "".join(__import__("traceback").format_tb(e.__traceback__)):
            raise
        KNOWN["empty zip entry name (IndexError in ZipInfo.is_dir)"] += 1
    except submissions.SubmissionError as e:
        if "sub.zip" not in str(e):
            raise AssertionError(f"an error that does not name the zip: {e}")
    finally:
        extra = {p.name for p in WORK.iterdir()} - {"sub.zip", "dest"}
        if extra:
            raise AssertionError(f"wrote beside dest: {extra}")
        shutil.rmtree(dest, ignore_errors=True)


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    try:
        atheris.Fuzz()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
        for what, n in KNOWN.items():
            print(f"KNOWN BUG {what}: {n} inputs", file=sys.stderr, flush=True)
