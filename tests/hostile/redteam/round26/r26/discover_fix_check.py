"""Finding 1: a candidate fix for submissions.discover, checked with the same property fuzz (monkeypatched here).

The `while` loop must also refuse a candidate that is another entry's SHORT name (the LMS's), not only its ident.
"""
import sys
sys.path.insert(0, "/work/redteam26")
from pathlib import Path
from grader.instructor import submissions
from grader.instructor.intake import printable


def discover_fixed(folder: Path):
    paths = [p for p in sorted(folder.iterdir()) if not p.name.startswith(".")]
    short = [printable(p.stem if p.suffix.lower() == ".zip" else p.name) for p in paths]
    idents = [printable(p.name) if short.count(ident) > 1 else ident for p, ident in zip(paths, short, strict=True)]
    shared = {i for i in short if short.count(i) > 1}
    out, seen = [], set()
    for path, ident in zip(paths, idents, strict=True):
        unique, n = (f"{ident}~1", 1) if idents.count(ident) > 1 or ident in shared else (ident, 1)
        while unique in seen or (unique != ident and (unique in idents or unique in short)):
            n += 1
            unique = f"{ident}~{n}"
        seen.add(unique)
        out.append(submissions.Submission(unique, path))
    return out


submissions.discover = discover_fixed
sys.argv = [sys.argv[0], sys.argv[1] if len(sys.argv) > 1 else "1"]
exec(open("/work/redteam26/attacks/fuzz_discover.py").read())
