# module: gelu
"""Recon (round 10b): what the jail lets a public call do; printed, the case failed on purpose so it is shown."""
import ctypes, errno, os, socket, struct
import numpy as np

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = dict(pidfd_open=434, pidfd_getfd=438, pidfd_send_signal=424, process_madvise=440, name_to_handle_at=303,
          open_by_handle_at=304, open_tree=428, fsopen=430, fsmount=432, move_mount=429, mount_setattr=442,
          setns=308, unshare=272, landlock_create_ruleset=444, clone3=435, msgget=68, semget=64, shmget=29,
          mq_open=240, add_key=248, keyctl=250, io_uring_setup=425, memfd_secret=447, futex_waitv=449,
          quotactl_fd=443, process_mrelease=448, set_mempolicy_home_node=450, map_shadow_stack=453,
          lsm_get_self_attr=459, statmount=457, listmount=458, mseal=462, kexec_file_load=320,
          open_tree_attr=467, file_getattr=468, uretprobe=335, lookup_dcookie=212, vmsplice=278,
          fanotify_init=300, remap_file_pages=216, personality=135, acct=163, swapon=167, chroot=161,
          pivot_root=155, mknodat=259, ioprio_set=251, sched_setattr=314, migrate_pages=256, move_pages=279,
          get_mempolicy=239, mbind=237, kcmp=312, seccomp=317, rseq=334, epoll_create1=291, timerfd_create=283,
          signalfd4=289, eventfd2=290, inotify_init1=294, userfaultfd=323, perf_event_open=298, bpf=321,
          fsconfig=431, fspick=433)


def sc(name, *args):
    r = libc.syscall(NR[name], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return f"{name}: {r} {errno.errorcode.get(ctypes.get_errno(), '') if r < 0 else ''}"


def t(what, fn):
    try:
        return f"{what}: {fn()!r}"[:300]
    except BaseException as e:  # noqa
        return f"{what}: {type(e).__name__} {e}"[:300]


def run_gelu(x):
    out = []
    p = out.append
    for name in ("pidfd_open",):
        p(sc(name, 1, 0))
    fd = libc.syscall(434, ctypes.c_long(os.getpid()), ctypes.c_long(0))
    p(f"pidfd self {fd}")
    iov = (ctypes.c_long * 2)(0, 4096)
    p(sc("process_madvise", fd, ctypes.addressof(iov), 1, 21, 0))
    buf = ctypes.create_string_buffer(256)
    struct.pack_into("I", buf, 0, 128)
    mid = ctypes.c_int()
    p(sc("name_to_handle_at", -100, ctypes.c_char_p(b"/usr/bin/python3"), buf, ctypes.byref(mid), 0))
    p(sc("open_by_handle_at", -100, buf, 0))
    p(sc("open_tree", -100, ctypes.c_char_p(b"/tmp"), 1))
    p(sc("fsopen", ctypes.c_char_p(b"tmpfs"), 0))
    p(sc("fspick", -100, ctypes.c_char_p(b"/tmp"), 0))
    p(sc("mount_setattr", -100, ctypes.c_char_p(b"/tmp"), 0, 0, 0))
    p(sc("setns", 0, 0))
    p(sc("unshare", 0x10000000))
    p(sc("unshare", 0x00020000))
    p(sc("landlock_create_ruleset", 0, 0, 1))
    p(sc("msgget", 0, 0o1000 | 0o666))
    p(sc("shmget", 0, 4096, 0o1000 | 0o666))
    p(sc("semget", 0, 1, 0o1000 | 0o666))
    p(sc("mq_open", ctypes.c_char_p(b"q"), 0o100 | 2, 0o666, 0))
    p(sc("add_key", ctypes.c_char_p(b"user"), ctypes.c_char_p(b"x"), ctypes.c_char_p(b"y"), 1, -3))
    p(sc("keyctl", 0, -3, 0))
    p(sc("io_uring_setup", 4, ctypes.create_string_buffer(120)))
    p(sc("memfd_secret", 0))
    p(sc("statmount", 0, 0, 0, 0))
    p(sc("listmount", 0, 0, 0, 0))
    p(sc("kcmp", 1, os.getpid(), 0, 0, 0))
    p(sc("userfaultfd", 0))
    p(sc("perf_event_open", 0, 0, -1, -1, 0))
    p(sc("fanotify_init", 0, 0))
    p(sc("inotify_init1", 0))
    p(sc("personality", 0xffffffff))
    p(sc("lookup_dcookie", 0, 0, 0))
    p(sc("mknodat", -100, ctypes.c_char_p(b"/tmp/fifo"), 0o10644, 0))
    p(sc("move_pages", 1, 0, 0, 0, 0, 0))
    p(sc("migrate_pages", 1, 8, 0, 0))
    p(sc("ioprio_set", 1, 1, (3 << 13)))
    p(sc("futex_waitv", 0, 0, 0, 0, 0))
    p(sc("process_mrelease", fd, 0))
    p(sc("pidfd_send_signal", libc.syscall(434, ctypes.c_long(1), ctypes.c_long(0)), 0, 0, 0))
    p(sc("pidfd_getfd", libc.syscall(434, ctypes.c_long(1), ctypes.c_long(0)), 3, 0))
    p(t("abstract", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).bind("\0rt10b")))
    p(t("netlink", lambda: socket.socket(16, socket.SOCK_RAW, 0)))
    p(t("ls /", lambda: sorted(os.listdir("/"))))
    p(t("ls /dev", lambda: sorted(os.listdir("/dev"))))
    p(t("ls /dev/shm", lambda: sorted(os.listdir("/dev/shm"))))
    p(t("ls /proc", lambda: sorted(n for n in os.listdir("/proc") if not n.isdigit())))
    p(t("ls /proc/sys", lambda: os.listdir("/proc/sys")))
    p(t("ls /proc/net", lambda: sorted(os.listdir("/proc/net"))[:40]))
    p(t("proc/net/unix", lambda: open("/proc/net/unix").read()[:200]))
    p(t("proc/self/cgroup", lambda: open("/proc/self/cgroup").read()))
    p(t("proc/self/status", lambda: [l for l in open("/proc/self/status") if l.startswith(("Uid", "Cap", "Seccomp", "NSpid", "NoNewPrivs"))]))
    p(t("uid_map", lambda: open("/proc/self/uid_map").read()))
    p(t("ls /jail/job", lambda: os.listdir("/jail/job")))
    for root, dirs, files in os.walk("/jail/job"):
        for f in files:
            st = os.stat(os.path.join(root, f))
            p(f"  {root}/{f} ino={st.st_ino} nlink={st.st_nlink} size={st.st_size}")
    p(t("ls /submission/student", lambda: os.listdir("/submission/student")))
    p(t("stat student", lambda: os.stat("/submission/student")))
    p(t("mounts", lambda: [l.split()[1] for l in open("/proc/self/mounts")]))
    print("\n".join(out))
    return np.asarray(x) * 0
