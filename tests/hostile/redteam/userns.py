"""Escape attempt (stage conv1d): create namespaces from inside the jail (user, mount, net, pid via os.unshare and
unshare(1)), hoping to regain capabilities (a new user namespace makes us root in it, then mount /proc or remount /).
Held if every unshare fails. The first public case raises with what happened (shown as its message)."""
import ctypes
import os
import subprocess


def run_conv1d(x, weight, bias):
    said = []
    libc = ctypes.CDLL(None, use_errno=True)
    flags = {"CLONE_NEWUSER": 0x10000000, "CLONE_NEWNS": 0x00020000, "CLONE_NEWNET": 0x40000000,
             "CLONE_NEWPID": 0x20000000, "CLONE_NEWUTS": 0x04000000, "CLONE_NEWCGROUP": 0x02000000}
    for name, flag in flags.items():
        r = libc.unshare(flag)
        said.append(f"{name}: {'WORKED' if r == 0 else os.strerror(ctypes.get_errno())}")
    try:
        r = subprocess.run(["unshare", "-Ur", "id"], capture_output=True, text=True, timeout=5)
        said.append(f"unshare -Ur: rc={r.returncode} {r.stdout.strip()} {r.stderr.strip()[:100]}")
    except Exception as e:  # noqa: BLE001
        said.append(f"unshare -Ur: {e}")
    if not os.path.exists("/tmp/said"):
        open("/tmp/said", "w").close()
        raise RuntimeError("; ".join(said))
    return x @ weight + bias
