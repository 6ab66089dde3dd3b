"""What every part of the server is built on: its facts, the bus, the stop signal and
the session host; plus the error and encoding every handler uses.

Kept free of transport, dispatch and the other parts (agents, attach, persistence) so
any of them can import this without a cycle: :mod:`herdr.server.wiring` puts them
together into the one immutable :class:`~herdr.server.wiring.Server`.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec
import orjson

from herdr.runtime.events import EventBus
from herdr.server.info import ServerInfo
from herdr.vocab import HerdrError

if TYPE_CHECKING:
    from herdr.server.panes import PaneHost

Result = dict[str, Any]

log = logging.getLogger("herdr.server")


def struct_fields(obj: Any) -> Any:
    """orjson's ``default``: a msgspec Struct (most value types) as its fields, the way
    orjson writes a dataclass, so a value put in a record as is encodes either way."""
    if isinstance(obj, msgspec.Struct):
        return msgspec.structs.asdict(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


def encode(obj: Any) -> bytes:
    """One NDJSON line (orjson on the server: ~15x faster than json for our records)."""
    return orjson.dumps(obj, default=struct_fields, option=orjson.OPT_APPEND_NEWLINE)


class ApiError(HerdrError):
    """A failure a handler reports with a specific spec error code."""


@dataclass(frozen=True)
class ServerCore:
    """The server's facts, its event bus, the stop signal and the session host."""

    info: ServerInfo
    bus: EventBus
    stopping: asyncio.Event
    panes: PaneHost

    def request_stop(self, reason: str) -> None:
        if not self.stopping.is_set():
            log.info("stop requested", extra={"reason": reason})
            self.stopping.set()

    def capabilities(self) -> dict[str, bool | int | None]:
        """The protocol-22 capability block of ``ping``.

        The server always runs detached from its clients; ``ping`` is the health probe;
        attach clients lease surface interest (a ``surface`` line, herdr's
        ``client_shell.surface.set``). We speak no client-shell
        endpoint generation (that is herdr's thin-client wire). Live handoff: see
        :mod:`herdr.server.handoff_old`.
        """
        return {
            "live_handoff": True,
            "detached_server_daemon": True,
            "endpoint_protocol_generation": None,
            "health_check": True,
            "surface_interest": True,
        }
