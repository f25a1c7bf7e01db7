"""Round 32: does any hidden case's expected output equal a public case's expected output (anywhere in the
course)? Then code fitted to the public answers (a lookup) passes it. Host-side scan of fixtures/."""
import glob, os, json
import numpy as np
pub, hid = [], []
for st in sorted(glob.glob("fixtures/*/")):
    man = json.load(open(st + "MANIFEST.json"))
    for cid, c in man["cases"].items():
        for f in glob.glob(f"{st}{cid}/expected*.npy"):
            a = np.load(f, allow_pickle=False)
            (hid if c.get("hidden") else pub).append((st.split("/")[1], cid, a))
for (s, c, e) in hid:
    for (s2, c2, a) in pub:
        if e.shape == a.shape and e.size and (e.dtype.kind in "US") == (a.dtype.kind in "US") and np.array_equal(e, a):
            print("HIDDEN EXPECTED == PUBLIC EXPECTED", s, c, "==", s2, c2, e.shape)
        elif e.ndim == 1 and a.ndim == 1 and e.size >= 4 and e.dtype.kind in "iu" and a.dtype.kind in "iu" and a.size >= e.size:
            for off in range(a.size - e.size + 1):
                if np.array_equal(a[off:off + e.size], e):
                    print("HIDDEN EXPECTED inside PUBLIC EXPECTED", s, c, "in", s2, c2, off); break
print("hidden", len(hid), "public", len(pub))
