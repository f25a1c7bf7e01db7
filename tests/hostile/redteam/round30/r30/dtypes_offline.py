import io, numpy as np, traceback
from grader.run.protocol import read_npy
from grader.judge import compare
from grader.course.model import Tolerance
exp = {"": np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4)}
def npy(arr):
    b = io.BytesIO(); np.lib.format.write_array(b, arr, allow_pickle=False); return b.getvalue()
def forged(descr, shape, body=b"", fortran=False):
    h = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    h = h + " " * ((64 - (len(h) + 11) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h.encode("latin1") + body
cands = {
 "f16": npy(np.ones((2,3,4), np.longdouble)), "c32": npy(np.ones((2,3,4), np.clongdouble)),
 "f2": npy(np.ones((2,3,4), np.float16)), "u8big": npy(np.ones((2,3,4), ">u8")),
 "b1": npy(np.ones((2,3,4), bool)), "U3": npy(np.array([["abc"]*4]*3*2).reshape(2,3,4)),
 "U0": forged("<U0", "(1000000000, 1000000000)"), "0xhuge": forged("<f4", "(0, 4611686018427387904, 4611686018427387904)"),
 "f8_0d": npy(np.float64(3.0)), "c16nan": npy(np.full((2,3,4), np.nan+1j*np.inf)),
 "i8max": npy(np.full((2,3,4), np.iinfo(np.int64).min)), "u8max": npy(np.full((2,3,4), np.iinfo(np.uint64).max)),
 "fortran0": forged("<f4", "(0, 3, 4)", fortran=True), "V": forged("|V8", "(3,)", b"x"*24),
 "m8": forged("<m8", "(2, 3, 4)", b"\0"*192), "M8": forged("<M8", "(2, 3, 4)", b"\0"*192), "O": forged("|O", "(1,)", b"x"*8),
 "S3": forged("|S3", "(2, 3, 4)", b"a"*72),
}
tol = Tolerance(atol=1e-5, rtol=0.0)
for name, data in cands.items():
    try:
        arr = read_npy(data)
    except Exception as e:
        print(name, "read_npy refused:", type(e).__name__, str(e)[:60]); continue
    try:
        r = compare.compare_outputs({"": arr}, exp, tol, None)
        print(name, "compared ok:", [c.ok for c in r], [ (c.problem or "")[:60] for c in r])
        m = compare.matches({"": arr}, exp, tol)
    except Exception as e:
        print(name, "GRADER RAISED:", type(e).__name__, e); traceback.print_exc(limit=3)
