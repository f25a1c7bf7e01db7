"""MINE_MARK helper of the attacker: at every import, snapshot whatever files of student/ are NOT mine (references
standing in, and the common/ cut written beside them) into the jail's /tmp; `find` looks a function up there."""
import hashlib
import importlib
import os
import sys
from pathlib import Path

ST = Path("/tmp/.s")
HERE = Path(__file__).resolve().parent
ON = True  # the control (carol_big) sets this False


def stash():
    if not ON:
        return
    theirs = {f.name: f.read_text() for f in HERE.glob("*.py") if "MINE_MARK" not in f.read_text()}
    if not any(n.startswith("_course_common_") for n in theirs):
        return
    tag = hashlib.sha256(repr(sorted(theirs.items())).encode()).hexdigest()[:8]
    pkg = ST / f"s{tag}"
    if pkg.exists():
        return
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for name, text in theirs.items():
        if name != "__init__.py":
            (pkg / name).write_text(text.replace("student.", f"s{tag}."))
    print("stashed", sorted(theirs))


def find(name):
    if not ST.is_dir():
        return None
    if str(ST) not in sys.path:
        sys.path.insert(0, str(ST))
    for pkg in sorted(ST.iterdir()):
        for mod in sorted(pkg.glob("_course_common_*.py")):
            m = importlib.import_module(f"{pkg.name}.{mod.stem}")
            if hasattr(m, name):
                return getattr(m, name)
    return None


stash()
