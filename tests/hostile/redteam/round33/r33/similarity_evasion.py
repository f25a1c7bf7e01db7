"""Two colluders share the same real code, kept in helpers; their stage files are padded with unique junk code so
that the 128 KiB read of a submission (stage files first: similarity.of_files) never reaches the helpers.
usage: python attacks/similarity_evasion.py SUBS   (makes SUBS/{ctl_a,ctl_b} control pair and SUBS/{ev_a,ev_b})"""
import random, sys
from pathlib import Path
sys.path.insert(0, "/work/redteam33")
from grader.course import load_course
from grader.instructor.references import files

course = load_course(Path("/work/redteam33"))
subs = Path(sys.argv[1])
real = files(course, *course.stages)  # the shared "solution": every stage as helper modules

def junk(seed, n_chars):
    rnd = random.Random(seed)
    out, size = [], 0
    i = 0
    while size < n_chars:
        a, b, c = (rnd.randrange(1, 10**6) for _ in range(3))
        ops = rnd.choice(["+", "-", "*", "^", "|", "&"])
        line = (f"def _pad_{i}(x, y=None):\n    if x > {a}:\n        return [x {ops} {b} for _ in range({c % 7 + 1})]\n"
                f"    while x < {c}:\n        x = x * {a % 5 + 2} + {b}\n    return {{'k{i}': x, 'v': y}}\n\n")
        out.append(line); size += len(line); i += 1
    return "".join(out)

for who, pad in (("ctl_a", False), ("ctl_b", False), ("ev_a", True), ("ev_b", True)):
    st = subs / who / "student"
    st.mkdir(parents=True)
    for rel, text in real.items():
        name = Path(rel).name
        if name.startswith("_course_common_"):
            (st / name.replace("_course_common_", "_cc_")).write_text(text.replace("_course_common_", "_cc_"))
            continue
        impl = "impl_" + name  # the real code, a helper
        (st / impl).write_text(text.replace("_course_common_", "_cc_"))
        stub = f"from student.{impl[:-3]} import *  # noqa\n"
        if pad:
            stub += junk(f"{who}-{name}", 12 * 1024)  # 12 stage files x 12 KiB > 128 KiB of unique code
        (st / name).write_text(stub)
print("made", sorted(p.name for p in subs.iterdir()))
