import ctypes


def run_double(x):
    ctypes.string_at(0)
    return 2 * x
