"""``ping`` and ``server.*``: the methods that need no session model."""

from __future__ import annotations

from herdr.server.core import Call, Result


def ping(call: Call) -> Result:
    info = call.core.info
    return {
        "type": "pong",
        "version": info.version,
        "protocol": info.protocol,
        "capabilities": call.core.capabilities(),
    }


def server_stop(call: Call) -> Result:
    """Answer ``ok`` first, then stop: the caller must see its answer."""
    call.after_response.append(lambda: call.core.request_stop("server.stop"))
    return {"type": "ok"}
