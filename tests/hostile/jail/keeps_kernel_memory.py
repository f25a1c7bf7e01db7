"""Make kernel objects that outlive the jail's last process, freed later by a kernel worker beside the next jail
(red team rounds 13 to 15): a unix socket holding a descriptor of /tmp sent to itself, System V message queues,
shared memory and semaphores, POSIX message queues, seccomp filters and Landlock rulesets of the jail's own, and
another process's descriptors through pidfd_getfd. Each is only asked for here, harmlessly (a filter's program is a
NULL pointer: EFAULT where the call is allowed); a call that gets past the jail's filter is printed "worked"."""
import ctypes
import errno
import os
import socket

# x86_64 system call numbers
SYS = {"seccomp": 317, "landlock_create_ruleset": 444, "pidfd_getfd": 438, "mq_open": 240, "mq_unlink": 241,
       "msgget": 68, "shmget": 29, "semget": 64, "msgctl": 71, "shmctl": 31, "semctl": 66}
IPC_PRIVATE, IPC_RMID = 0, 0


def run_double(x):
    libc = ctypes.CDLL(None, use_errno=True)

    def call(name, *args):
        ctypes.set_errno(0)
        got = libc.syscall(SYS[name], *args)
        return got, ctypes.get_errno()

    def allowed(got, err, fault_ok=False):
        """True where the kernel did (or would have done) the work: a result, or EFAULT/EBADF past the filter."""
        return got >= 0 or err in ((errno.EFAULT, errno.EBADF, errno.EINVAL) if fault_ok else ())

    worked = []

    def sent_to_itself():
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        fd = os.open("/tmp", os.O_RDONLY)
        socket.send_fds(a, [b"x"], [fd])
        os.close(fd)
        return True

    ways = {
        "socketpair + a descriptor of /tmp sent to itself (round 13)": sent_to_itself,
        "socket(AF_UNIX)": lambda: socket.socket(socket.AF_UNIX).close() or True,
        "msgget (System V message queue, round 14)": lambda: _made(call("msgget", IPC_PRIVATE, 0o600),
                                                                   lambda q: call("msgctl", q, IPC_RMID, None)),
        "shmget (System V shared memory)": lambda: _made(call("shmget", IPC_PRIVATE, 4096, 0o600),
                                                         lambda q: call("shmctl", q, IPC_RMID, None)),
        "semget (System V semaphores)": lambda: _made(call("semget", IPC_PRIVATE, 1, 0o600),
                                                      lambda q: call("semctl", q, 0, IPC_RMID)),
        "mq_open (POSIX message queue)": lambda: _made(call("mq_open", b"jail-q", os.O_CREAT | os.O_RDWR, 0o600,
                                                            None), lambda q: call("mq_unlink", b"jail-q")),
        "seccomp(SET_MODE_FILTER) (round 15)": lambda: allowed(*call("seccomp", 1, 0, None), fault_ok=True),
        "prctl(PR_SET_SECCOMP)": lambda: allowed(*_prctl(libc, 22, 2, None), fault_ok=True),
        "landlock_create_ruleset": lambda: allowed(*call("landlock_create_ruleset", None, 0, 1), fault_ok=True),
        "pidfd_getfd": lambda: allowed(*call("pidfd_getfd", -1, 0, 0), fault_ok=True),
    }
    for name, way in ways.items():
        try:
            if way():
                worked.append(name)
                print("worked:", name)
            else:
                print("blocked:", name)
        except OSError as e:
            print("blocked:", name, type(e).__name__, e)
    return 2 * x if worked else x * 0


def _made(result, remove):
    got, _ = result
    if got >= 0:
        remove(got)
        return True
    return False


def _prctl(libc, *args):
    ctypes.set_errno(0)
    got = libc.prctl(*args)
    return got, ctypes.get_errno()
