"""Graded mode's jail: an untrusted submission's code in a fresh interpreter inside bubblewrap, in a cgroup.

The forked child of grader/run/sandbox.py stays for self-paced grading, where the learner runs their own code.
`preflight` (can this machine jail? `require`), `filetable` (the machine's table of open files, made larger than
the jails' memory could fill: `make_room`), `mounts` (what a jail sees: an allow-list), `cgroups` (memory,
processes and CPU of a jail, together), `staging` (the grader's folder a jail reads from), `prepare` (bubblewrap's
process before exec), `spawn` (starting and ending one jail), `job` (the grader's side of one stage's calls), `box`
(`Jail`: one per submission, reused by its stages), `spare` (the next submission's jail, started meanwhile),
`inside` (the jail's side: the resident process and its workers). See docs/jail.md and SECURITY.md.

    jail.require(unsandboxed=False)  # before a graded batch: fail fast, naming what to install
    note = jail.make_room(jails=2, memory_mb=4096)  # None, or a line for the instructor
    with jail.Jail(submission_root, unsandboxed=False) as j:  # one per submission
        for stage in stages:
            outcomes = j.run(calls, limits, cancel=...)  # the same Outcome records as sandbox.run
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below, imported on first use: the jail's own interpreter needs none of them
    from grader.run.jail.box import Jail, one_shot
    from grader.run.jail.filetable import make_room
    from grader.run.jail.mounts import Settings
    from grader.run.jail.preflight import INSTALL, JailUnavailable, require, unavailable
    from grader.run.jail.spare import discard_spare
    from grader.run.jail.spawn import JailError

_WHERE = {"Jail": "box", "one_shot": "box", "discard_spare": "spare", "make_room": "filetable", "Settings": "mounts",
          "INSTALL": "preflight", "JailUnavailable": "preflight", "require": "preflight", "unavailable": "preflight",
          "JailError": "spawn"}
__all__ = ["INSTALL", "Jail", "JailError", "JailUnavailable", "Settings", "discard_spare", "make_room", "one_shot",
           "require", "unavailable"]


def __getattr__(name: str) -> Any:
    """The public API, each name imported from its module when first asked for."""
    if name not in _WHERE:
        raise AttributeError(f"module 'grader.run.jail' has no attribute '{name}'")
    import importlib

    return getattr(importlib.import_module(f"grader.run.jail.{_WHERE[name]}"), name)
