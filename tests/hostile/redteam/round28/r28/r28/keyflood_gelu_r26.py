# Attacker: each call forges its own result frame on the result pipe (fd 3) with 1024 keys of 200 unassigned
# astral characters each (819 KB of header); the grader escapes each key to 2,000 characters and lists every key in
# the case's "returned the keys ..." problem, uncut: ~2 MB of text per case, kept in the report and the gradebook.
import io, json, os, random, struct
import numpy as np

def _npy():
    b = io.BytesIO()
    np.lib.format.write_array(b, np.asarray(0.0), allow_pickle=False)
    return b.getvalue()

def run_gelu(x):
    rng = random.Random(os.getpid() ^ x.size)
    keys = set()
    while len(keys) < 1024:
        keys.add("".join(chr(rng.randrange(0xE01F0, 0xEFFFD)) for _ in range(200)))
    keys = sorted(keys)
    one = _npy()
    head = json.dumps({"status": "ok", "keys": keys, "parts": [len(one)] * len(keys)}, ensure_ascii=False).encode()
    data = struct.pack("<Q", len(head)) + head + one * len(keys)
    view = memoryview(data)
    while view:
        view = view[os.write(3, view):]
    return x  # the child's own frame then comes unasked: the job ends, the next call gets a new jail
