"""Fuzz what the grader does with a learner's text outside the jail: similarity fingerprints and the import scan."""
import random, sys, time, traceback
sys.path.insert(0, "/work/redteam22")
from grader.instructor import similarity
from grader.judge import loops

BITS = ["def f(x):\n", "    return x\n", "'''", '"""', "f'{", "}'", "\\\n", "\t", "  ", "\x0c", "\x0b", "\r", "\u2028",
        "\x85", "(", ")", "[", "]", "{", "}", "import a.b as c\n", "from . import x\n", "from student.gelu import (\n",
        "#", "\n", "if 1:\n", "  x\n", " y\n", "0x", "1e", "1_", "\u00e9", "\U0001f600", "\ufeff", "async ", "await ",
        "lambda:", "@", ":=", "->", "...", "`", "$", "?", "!", "0b2", "1__0", "'", '"', "r'\\'", "b'\xe9'", "\\N{",
        "f'{x!r:>{w}}'", "f\"{'\\n'}\"", "match x:\n", " case 1:\n", "type X = int\n", "\x00"]
rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
end = time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 30)
seen, n, slow = {}, 0, 0.0
while time.time() < end:
    src = "".join(rng.choice(BITS) for _ in range(rng.randint(1, 60)))
    t = time.monotonic()
    try:
        similarity.fingerprints(src, time.monotonic() + 1.0)
        loops.imported(src)
    except Exception as e:
        key = (type(e).__name__, traceback.extract_tb(e.__traceback__)[-1].lineno)
        if key not in seen:
            seen[key] = src
            print("CRASH", type(e).__name__, str(e)[:120], traceback.extract_tb(e.__traceback__)[-1], repr(src)[:300])
    slow = max(slow, time.monotonic() - t)
    n += 1
print("tries", n, "distinct crashes", len(seen), "slowest", round(slow, 3))
