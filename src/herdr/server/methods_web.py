"""``web.start`` / ``web.stop``: the web view, run in this server's loop (extensions).

The caller of ``web.start`` is the socket's owner (the socket is 0600 and peers of
other users are refused), so the answer carries the URL with its token, which the CLI
prints once; a second ``web.start`` reports the view already running.
"""

from __future__ import annotations

from herdr.server.core import Result
from herdr.server.wiring import Call
from herdr.web.host import DEFAULT_BIND, DEFAULT_PORT, WebOptions


def options_of(params: dict[str, object]) -> WebOptions:
    port, bind = params.get("port"), params.get("bind")
    return WebOptions(
        port=port if isinstance(port, int) else DEFAULT_PORT,
        bind=bind if isinstance(bind, str) else DEFAULT_BIND,
        read_only=params.get("read_only") is True,
        allow_typing=params.get("allow_typing") is True,
        exposed=params.get("exposed") is True,
    )


async def web_start(call: Call) -> Result:
    running, already = await call.server.web.start(call.server, options_of(call.params))
    return {"type": "web_started", **running.record(), "already_running": already}


async def web_stop(call: Call) -> Result:
    return {"type": "web_stopped", "stopped": await call.server.web.stop()}


METHODS = {"web.start": web_start, "web.stop": web_stop}
