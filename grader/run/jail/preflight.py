"""Whether graded mode can jail on this machine, asked once up front: bubblewrap, cgroups, user namespaces, seccomp.

A machine that cannot jail is refused before the first submission (`require`), with what to install or change,
instead of failing every submission; `--unsandboxed` is the instructor's explicit way past it.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

from grader.errors import UsageError
from grader.run.jail import cgroups, seccomp
from grader.run.jail.mounts import Bind
from grader.run.jail.prepare import as_seen, looked_up_libc, prepare
from grader.run.jail.spawn import UID_BASE

INSTALL = "apt-get install bubblewrap"
PROBE_WITHIN = 20.0  # seconds for bubblewrap to make a jail that runs `true` (it takes ~15 ms)


class JailUnavailable(UsageError):
    """Graded mode cannot jail here (no bubblewrap, no usable cgroups); the message says what to install or change."""


def unavailable() -> str | None:
    """Why graded mode cannot jail on this machine, or None when it can."""
    if shutil.which("bwrap") is None:
        return f"bubblewrap (bwrap) is not installed: `{INSTALL}` (or your system's package for it)"
    if not sys.platform.startswith("linux"):
        return "the jail needs Linux namespaces and cgroups"
    try:
        cgroups.detect()
    except (cgroups.CgroupUnavailable, OSError) as e:
        return (f"no usable cgroup ({e}); run the grader as root, or in a cgroup v2 subtree delegated to its "
                "user (e.g. `systemd-run --user --scope -p Delegate=yes ...`)")
    try:
        seccomp.program()
    except seccomp.SeccompUnavailable as e:
        return str(e)
    return probe(shutil.which("bwrap") or "bwrap", os.geteuid() == 0)


@functools.cache
def probe(bwrap: str, as_root: bool) -> str | None:
    """Whether bubblewrap can make its namespaces here, set up as a jail is (once per process: ~15 ms).

    As root that is as a fresh uid (user namespaces are allowed per user), through a view built in a mount namespace
    of its own: a container without CAP_SYS_ADMIN fails here, not on every submission.
    """
    binds, view = as_seen([Bind("/", "/")], as_root)
    filter_fd = seccomp.descriptor()  # loaded as every jail's is: a kernel that hangs loading it hangs here
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--ro-bind", binds[0].source, "/",
            "--seccomp", str(filter_fd), "--", shutil.which("true") or "/bin/true"]
    uid = UID_BASE - 1 if as_root else None  # a uid no jail uses
    before_exec = None if not as_root else functools.partial(prepare, [], view, uid, looked_up_libc())
    try:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env={}, pass_fds=(filter_fd,), preexec_fn=before_exec)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap could not be run ({e})"
    finally:
        os.close(filter_fd)
    try:
        _, stderr = proc.communicate(timeout=PROBE_WITHIN)
    except subprocess.TimeoutExpired:  # not subprocess.run's timeout: it waits for the killed process, forever
        proc.kill()  # if the kernel holds it (an unkillable wait), it is left behind: we do not wait for it
        return (f"bubblewrap did not start a jail within {PROBE_WITHIN:g} s, even killed it may not have ended: "
                "the kernel may be stuck (look for \"blocked for more than\" in `dmesg`); restart the machine")
    if proc.returncode != 0:
        said = stderr.decode("utf-8", "replace").strip()[-500:]
        return (f"bubblewrap cannot create its namespaces here ({said}); unprivileged user namespaces must be "
                "allowed: `sysctl kernel.unprivileged_userns_clone=1` (older Debian); on Ubuntu 23.10 and later, "
                "an AppArmor profile granting `userns` to /usr/bin/bwrap, or "
                "`sysctl kernel.apparmor_restrict_unprivileged_userns=0`; in a container, mount namespaces "
                "(CAP_SYS_ADMIN) for a root grader")
    return None


def require(unsandboxed: bool = False) -> None:
    """Raise JailUnavailable unless graded mode can jail here (or the caller chose --unsandboxed)."""
    if unsandboxed:
        return
    why = unavailable()
    if why is not None:
        raise JailUnavailable(f"graded mode runs each submission in a bubblewrap jail, and cannot here: {why}. "
                              f"Grade with --unsandboxed only if you trust every submission (SECURITY.md).")
    login_uid()


UNSET_LOGIN_UID = "4294967295"


@functools.cache
def login_uid() -> None:
    """Give this grader process an audit login uid if it has none, before it starts a jail (once per process).

    A task whose login uid is unset may set it once without any privilege, and each set takes the next number of one
    machine-wide counter, the audit session id (/proc/self/sessionid): a jail set it to a hidden input's bits with
    that many threads and a later jail read it exactly (red team round 18; a grader run as a service or in a
    container has none set). Jails inherit this one, and changing a set login uid needs CAP_AUDIT_CONTROL, which no
    jail has. A grader started from a login keeps its own; a kernel without audit has neither file.
    """
    try:
        with open("/proc/self/loginuid") as f:
            if f.read().strip() != UNSET_LOGIN_UID:
                return
        with open("/proc/self/loginuid", "w") as f:
            f.write(str(os.getuid()))
    except OSError:  # no audit in this kernel: no counter either
        return
