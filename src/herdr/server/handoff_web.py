"""The web view across a live handoff: same address, same token, so open pages reconnect.

The old server closes its view after the new one adopted the panes and before it lets
go, so the port is free when the new server starts the view again from the record the
handoff document carries (it travels only over the private socketpair).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from herdr.vocab import HerdrError
from herdr.web.host import WebOptions

if TYPE_CHECKING:
    from herdr.server.wiring import Server

log = logging.getLogger("herdr.server.handoff")


def record(server: Server) -> dict[str, Any] | None:
    """What the new server needs to run the same view, or None when none runs."""
    running = server.web.running
    if running is None:
        return None
    o = running.options
    return {
        "port": running.port,
        "bind": o.bind,
        "read_only": o.read_only,
        "allow_typing": o.allow_typing,
        "exposed": o.exposed,
        "token": running.token,
    }


async def resume(server: Server, rec: object) -> None:
    """Start the view the old server ran (a failure is logged; the panes matter more)."""
    if not isinstance(rec, dict):
        return
    try:
        options = WebOptions(
            port=int(rec["port"]),
            bind=str(rec["bind"]),
            read_only=bool(rec["read_only"]),
            allow_typing=bool(rec["allow_typing"]),
            exposed=bool(rec["exposed"]),
        )
        await server.web.start(server, options, token=str(rec["token"]))
    except (KeyError, TypeError, ValueError) as exc:
        log.warning("live handoff: the web view record is unreadable: %r", exc)
    except HerdrError as exc:
        log.warning("live handoff: the web view did not start again: %s", exc.message)
