"""Which agent job a hook report came from, and whether that job is still alive.

The I/O half of :mod:`herdr.runtime.agent_state.reporter`: the reporting process is
the socket peer (``SO_PEERCRED``); its process group is the agent's job when the
report came from a hook the agent ran.
"""

from __future__ import annotations

import contextlib
import os

from herdr.api import peercred
from herdr.runtime import agent_state

REPORTER_RECHECK_MS = 1000


def report_job(sock: peercred.SockOpt | None, shell_pid: int | None) -> int | None:
    """The process group a report on ``sock`` anchors to (``None``: nothing to follow)."""
    if sock is None or shell_pid is None:
        return None
    try:
        creds = peercred.peer_credentials(sock)
        if creds is None or creds[0] <= 0:
            return None
        pgid = os.getpgid(creds[0])
    except OSError:
        return None
    shell_pgid = None
    with contextlib.suppress(OSError):
        shell_pgid = os.getpgid(shell_pid)
    pid = creds[0]
    return agent_state.reporter_job(reporter_pid=pid, reporter_pgid=pgid, shell_pgid=shell_pgid)


def job_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` is left (one we may not signal counts)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
