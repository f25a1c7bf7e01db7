"""discover/survey/plan-level id code on random byte names: any exception, duplicate id, or plain-name takeover."""
import os, random, shutil, sys, tempfile
from pathlib import Path
sys.path.insert(0, "/work/redteam26")
from grader.instructor import submissions, regrade, feedback
from grader.instructor.intake import printable

random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
ALPH = [b"a", b"A", b"~", b"1", b".", b"zip", b".zip", b".ZIP", b"\xff", b"\xc3\xa9", b"e\xcc\x81", b"\xe2\x84\xaa",
        b"K", b" ", b"\x1b", b"\\x1b", b"\\xff", b"-", b"_", b"\xe1\x85\x9f", b"\xef\xbc\xab"]
bad = 0
base = Path(tempfile.mkdtemp(prefix="rt26-fzb-", dir="/tmp/rt26-fz"))
for trial in range(4000):
    d = base / str(trial)
    d.mkdir()
    names = set()
    for _ in range(random.randint(2, 6)):
        n = b"".join(random.choice(ALPH) for _ in range(random.randint(1, 4)))
        if n.startswith(b".") or n in names:
            continue
        names.add(n)
        p = os.path.join(bytes(d), n)
        try:
            if n.lower().endswith(b".zip") and random.random() < 0.7:
                open(p, "wb").write(b"PK")
            else:
                os.mkdir(p)
        except OSError:
            pass
    try:
        subs = submissions.discover(d)
        ids = [s.id for s in subs]
        names_ = feedback.file_names(ids)
        assert len(set(ids)) == len(ids), "dup ids"
        assert len(set(n.lower() for n in names_.values())) == len(ids), "dup feedback names (case)"
        for s in subs:
            assert submissions.named(s.path) == s.id, f"named {submissions.named(s.path)!r} != {s.id!r}"
        shorts = {s.path.name: printable(s.path.stem if s.path.suffix.lower() == ".zip" else s.path.name) for s in subs}
        for s in subs:
            for o in subs:
                if o is not s and s.id == shorts[o.path.name] and shorts[s.path.name] != s.id:
                    raise AssertionError(f"{s.path.name!r} took {o.path.name!r}'s name {s.id!r}")
    except Exception as e:
        bad += 1
        if bad < 6:
            print(type(e).__name__, e, sorted(os.listdir(bytes(d))))
    shutil.rmtree(d)
print("bad", bad)
