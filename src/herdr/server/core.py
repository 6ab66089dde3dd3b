"""What every request handler can reach: the bus, server facts, and how to stop.

Kept free of transport and dispatch details so handler modules import only this.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from herdr import PROTOCOL_VERSION, __version__
from herdr.runtime.events import Event, EventBus, FilterFactory

if TYPE_CHECKING:
    from herdr.server.panes import PaneHost
    from herdr.server.transport import Connection

Result = dict[str, Any]

log = logging.getLogger("herdr.server")


def encode(obj: Any) -> bytes:
    """One NDJSON line (orjson on the server: ~15x faster than json for our records)."""
    return orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE)


class ApiError(Exception):
    """A failure with a specific spec error code; becomes the error envelope."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ServerInfo:
    socket_path: Path
    session: str | None  # None = default session (or an explicit socket path)
    data_dir: Path
    state_dir: Path
    version: str = __version__
    protocol: int = PROTOCOL_VERSION
    started_at: float = field(default_factory=time.time)


@dataclass
class ServerCore:
    """Shared server state; the session model joins it in phase 2."""

    info: ServerInfo
    bus: EventBus = field(default_factory=lambda: EventBus(encode))
    stopping: asyncio.Event = field(default_factory=asyncio.Event)
    # Called once on shutdown, before the socket goes away (pane teardown etc.).
    shutdown_hooks: list[Callable[[], Any]] = field(default_factory=list)
    # Hooks the session model fills in: canonical pane id (or None if unknown), custom
    # subscription filters (``pane.output_matched``), and an already-true wait condition
    # (``pane_output_changed`` with ``min_revision`` <= the current revision).
    resolve_pane: Callable[[str], str | None] = lambda _pane_id: None
    filter_factories: dict[str, FilterFactory] = field(default_factory=dict)
    current_match: Callable[[Mapping[str, Any]], Event | None] = lambda _match: None
    # The session model and its terminals (set by the app before serving).
    host: PaneHost | None = None
    # Attention plumbing between attached clients and agent state: whether some attached,
    # focused client currently shows a pane (set by the attach registry), and a callback
    # the agent runtime installs to mark a tab's panes seen when a client shows it.
    pane_viewed: Callable[[str], bool] = lambda _pane_id: False
    on_tab_viewed: Callable[[str, str], None] = lambda _workspace_id, _tab_id: None
    # Health of session.json saving for ``ping`` (set by the persistence; None: none).
    persistence_health: Callable[[], dict[str, object] | None] = lambda: None

    @property
    def panes(self) -> PaneHost:
        if self.host is None:
            raise ApiError("internal_error", "the session model is not available")
        return self.host

    def request_stop(self, reason: str) -> None:
        if not self.stopping.is_set():
            log.info("stop requested", extra={"reason": reason})
            self.stopping.set()

    def capabilities(self) -> dict[str, bool]:
        return {"live_handoff": False, "detached_server_daemon": False}


@dataclass
class Call:
    """One request: its id, method, validated params and the connection it came on."""

    id: str
    method: str
    params: dict[str, Any]
    core: ServerCore
    conn: Connection
    # Run after the response line has been flushed (e.g. ``server.stop``).
    after_response: list[Callable[[], None]] = field(default_factory=list)
