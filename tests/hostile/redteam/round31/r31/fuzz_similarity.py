"""Round 31: similarity.fingerprints on random and hostile sources: any exception would be the row's grader error."""
import random, sys, traceback
sys.path.insert(0, "/work/redteam31")
from grader.instructor import similarity
rng = random.Random(7)
atoms = ["def f(", ")", "(", "[", "]", "{", "}", ":", "\n", "\r", "\r\n", "\t", " ", "    ", "\x0c", "'", '"', '"""',
         "f'", "f\"{", "}\"", "\\", "\\\n", "#", "x", "1e", "0x", "é", "\u00a0", "\u2028", "\u0085", "\ufeff",
         "if x:\n", "  pass\n", " return\n", "class A:\n", "lambda", "...", "->", "@", ":=", "0b2", "1_000",
         "rb'", "u'", "\x1b", "\x7f", "𝔁", "ℌ", "٣", "\u200b", "import", "from", "yield", "async ", "await "]
bad = 0
for i in range(60000):
    src = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 60)))
    try:
        similarity.fingerprints(similarity._condensed(src))
    except Exception:
        bad += 1
        if bad <= 5:
            print(repr(src)); traceback.print_exc()
print("exceptions:", bad)
