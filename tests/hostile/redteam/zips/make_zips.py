"""Writes the generated zip submissions of this folder (see README.md): python make_zips.py OUT_DIR."""
import sys
import zipfile
from pathlib import Path

GOOD = "def run_conv1d(x, weight, bias):\n    return x @ weight + bias\n"


def deep_init(path: Path) -> None:
    """2000 entries, each 31 folders deep in a branch of its own: an __init__.py is written in every folder."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("student/conv1d.py", GOOD)
        for i in range(1998):
            zf.writestr("student/" + "/".join(f"d{i}_{j}" for j in range(29)) + "/m.py", "")


def names(path: Path) -> None:
    """Entry names holding terminal escapes, C1 controls, bidi overrides and bytes that are not UTF-8."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("student/conv1d.py", GOOD)
        for name in ("student/\x1b]0;PWNED\x07\x1b[2J.py", "student/\u009b31mred.py", "student/\u202eyp.txt.py",
                     "student/=HYPERLINK(\"http://x\").py"):
            zf.writestr(name, "x = 1\n")
        info = zipfile.ZipInfo("student/bad.py")
        zf.writestr(info, "x = 1\n")
    data = bytearray(path.read_bytes())
    i = data.find(b"student/bad.py")
    while i >= 0:  # the same length, not UTF-8, flag bit 11 (UTF-8) kept
        data[i + 8:i + 11] = b"\xff\xfe\x1b"
        i = data.find(b"student/bad.py", i + 1)
    path.write_bytes(bytes(data))


if __name__ == "__main__":
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    deep_init(out / "deep_init.zip")
    names(out / "names.zip")
