"""What ordinary Python asks of a descriptor through ioctl still works in the jail, whose filter keeps only these
requests (red team round 17): isatty, the terminal's size, bytes left to read, close-on-exec, non-blocking."""
import fcntl
import os
import shutil
import struct
import tempfile
import termios


def run_double(x):
    with tempfile.TemporaryFile() as f:
        f.write(b"abc")
        f.flush()
        f.seek(0)
        fd = f.fileno()
        waiting = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        os.set_inheritable(fd, True)  # FIONCLEX where Python has it
        os.set_inheritable(fd, False)  # FIOCLEX
        fcntl.ioctl(fd, termios.FIONBIO, struct.pack("i", 1))
        print("isatty", os.isatty(fd), "waiting", waiting, "columns", shutil.get_terminal_size((77, 20)).columns)
        try:
            fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
        except OSError as e:  # a file is no terminal: the kernel's own answer, ENOTTY
            print("TIOCGWINSZ on a file:", e.errno == 25)
        ok = waiting == 3 and not os.isatty(fd) and not os.get_inheritable(fd)
    return 2 * x if ok else x
