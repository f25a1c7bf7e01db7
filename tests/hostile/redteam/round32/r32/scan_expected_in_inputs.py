"""Round 32: which case's expected output equals another case's input (same values, any dtype)? Host-side scan."""
import glob, os, json, sys
import numpy as np
import yaml
sys.path.insert(0, "/work/redteam32")
inputs = []  # (stage, case, name, array)
expected = []
for st in sorted(glob.glob("fixtures/*/")):
    stage = os.path.basename(st.rstrip("/"))
    for case in sorted(glob.glob(st + "*/")):
        cid = os.path.basename(case.rstrip("/"))
        for f in glob.glob(case + "*.npy"):
            try:
                a = np.load(f, allow_pickle=False)
            except Exception:
                continue
            (expected if os.path.basename(f).startswith("expected") else inputs).append((stage, cid, os.path.basename(f), a))
# value inputs from stage.yaml
for y in glob.glob("stages/*/stage.yaml"):
    d = yaml.safe_load(open(y)); stage = d["id"]
    for c in d.get("cases", []):
        for k, v in (c.get("inputs") or {}).items():
            if isinstance(v, dict) and "values" in v:
                inputs.append((stage, c["id"], k + "(values)", np.asarray(v["values"])))
            elif isinstance(v, dict) and "value" in v and isinstance(v["value"], str):
                inputs.append((stage, c["id"], k + "(text)", np.asarray(v["value"])))
for (s, c, n, e) in expected:
    for (s2, c2, n2, a) in inputs:
        if (s, c) == (s2, c2):
            continue
        try:
            if e.shape == a.shape and e.size and (e.dtype.kind in "US") == (a.dtype.kind in "US") and np.array_equal(e, a):
                print("EQUAL", s, c, n, "<-", s2, c2, n2, e.shape)
            elif e.ndim == 1 and a.ndim == 1 and e.size >= 4 and a.size > e.size and e.dtype.kind in "iu" and a.dtype.kind in "iu":
                for off in range(a.size - e.size + 1):
                    if np.array_equal(a[off:off + e.size], e):
                        print("SUBSEQ", s, c, n, "<-", s2, c2, n2, "at", off); break
        except Exception as ex:
            pass
