"""File descriptor budget: raise RLIMIT_NOFILE at start, cap connections, keep a reserve.

Every connection holds a descriptor, and so does every pane. Without a cap, enough
held connections (subscriptions, attach streams, waits) exhaust the process's
descriptors and the next pane creation fails in some confusing way. So the soft limit
is raised to the hard one at start, and a new connection is refused with one error
line when the configured cap is reached or when accepting it would eat into a reserve
kept for panes, logs and session saves.

The reserve check uses the accepted descriptor's number: the kernel hands out the
lowest free one, so a number at or above ``limit - FD_RESERVE`` means every lower one
is taken. Connections therefore never hold a descriptor in the reserve.
"""

from __future__ import annotations

import logging
import resource
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from herdr.config.server_settings import ServerSettings
from herdr.terminal import pty

if TYPE_CHECKING:
    from herdr.server.panes import PaneHost

log = logging.getLogger("herdr.server.limits")

DEFAULT_MAX_CONNECTIONS = ServerSettings().max_connections
"""``[server] max_connections``: the default cap on open connections."""

FD_RESERVE = 32
"""Descriptors kept free for panes (a pty pair, a spawn pipe), logs and saves."""

NOFILE_CAP = 65_536
"""Soft limit to ask for when the hard limit is unlimited (the kernel caps it anyway)."""


def raise_nofile_limit() -> tuple[int, int]:
    """Raise the soft RLIMIT_NOFILE to the hard limit; returns (before, after).

    A failure is logged and leaves the limit as it was. Pane programs still start with
    the limit we were given (some programs close or poll every descriptor up to it).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = NOFILE_CAP if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (OSError, ValueError) as exc:
            log.warning("cannot raise the open file limit from %d to %d: %s", soft, target, exc)
            return soft, soft
        pty.set_child_rlimit(resource.RLIMIT_NOFILE, (soft, hard))
        log.info("raised the open file limit", extra={"nofile_before": soft, "nofile": target})
        return soft, target
    return soft, soft


def max_connections_of(host: PaneHost) -> Callable[[], int]:
    """The live ``[server] max_connections`` (``server.reload_config`` changes it)."""
    return lambda: host.settings.max_connections


def soft_nofile_limit() -> int:
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return NOFILE_CAP if soft == resource.RLIM_INFINITY else soft


def fd_ceiling(soft_limit: int) -> int:
    """The lowest descriptor number a connection may not hold (the reserve starts there)."""
    return max(soft_limit - FD_RESERVE, 0)


def over_capacity(*, held: int, max_connections: int, fd: int, ceiling: int) -> str | None:
    """Why a new connection must be refused, or ``None`` to take it."""
    if held >= max_connections:
        return f"the server already holds {held} connections ([server] max_connections)"
    if fd >= ceiling:
        return "the server is short of file descriptors (they are kept for panes)"
    return None


class Throttle:
    """At most one log line per ``interval`` seconds for a repeated event.

    :meth:`ready` says whether to log now and how many were left unlogged since.
    """

    def __init__(self, interval: float = 5.0) -> None:
        self.interval = interval
        self._last: float | None = None
        self._suppressed = 0

    def ready(self, now: float | None = None) -> int | None:
        now = time.monotonic() if now is None else now
        if self._last is not None and now - self._last < self.interval:
            self._suppressed += 1
            return None
        self._last = now
        count, self._suppressed = self._suppressed, 0
        return count
