"""What ordinary Python asks of a descriptor through ioctl still works in the jail, whose filter keeps only these
requests (red team round 17): isatty, the terminal's size, bytes waiting in a pipe, close-on-exec, non-blocking."""
import fcntl
import os
import shutil
import struct
import termios


def run_double(x):
    r, w = os.pipe()
    os.write(w, b"abc")
    waiting = struct.unpack("i", fcntl.ioctl(r, termios.FIONREAD, b"\0\0\0\0"))[0]
    os.set_inheritable(r, True)  # FIONCLEX where Python has it
    os.set_inheritable(r, False)  # FIOCLEX
    fcntl.ioctl(w, termios.FIONBIO, struct.pack("i", 1))
    print("isatty", os.isatty(r), "waiting", waiting, "columns", shutil.get_terminal_size((77, 20)).columns)
    try:
        fcntl.ioctl(r, termios.TIOCGWINSZ, b"\0" * 8)
    except OSError as e:  # a pipe is no terminal: the kernel's own answer, ENOTTY
        print("TIOCGWINSZ on a pipe:", e.errno == 25)
    ok = waiting == 3 and not os.isatty(r) and not os.get_inheritable(r)
    return 2 * x if ok else x
