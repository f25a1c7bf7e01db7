
# --- round 12 row 3, appended to the honest mlp.py: its first public call (graded in a references jail, since conv1d
# fails) holds 2 GiB for 1 s, then answers right.
import ctypes as _ct, time as _time

_libc = _ct.CDLL(None, use_errno=True)
_libc.mmap.restype = _ct.c_void_p
_libc.mmap.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int, _ct.c_int, _ct.c_int, _ct.c_long]
_libc.munmap.argtypes = [_ct.c_void_p, _ct.c_size_t]
_honest_mlp = run_mlp
_st = {"n": 0}


def run_mlp(*args, **kwargs):
    _st["n"] += 1
    if _st["n"] == 1:
        n = 2048 << 20
        a = _libc.mmap(None, n, 3, 0x22, -1, 0)
        _ct.memset(a, 1, n)
        _time.sleep(1)
        _libc.munmap(a, n)
    return _honest_mlp(*args, **kwargs)
