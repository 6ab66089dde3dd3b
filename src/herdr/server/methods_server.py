"""``ping`` and ``server.*``: the methods that need no session model."""

from __future__ import annotations

import logging

from herdr.config import server_settings
from herdr.server.core import Result
from herdr.server.handoff_old import hand_off
from herdr.server.wiring import Call

log = logging.getLogger("herdr.server")


def ping(call: Call) -> Result:
    info = call.server.info
    return {
        "type": "pong",
        "version": info.version,
        "protocol": info.protocol,
        "capabilities": call.server.capabilities(),
        "persistence": call.server.persistence.health_record(),
    }


def server_stop(call: Call) -> Result:
    """Answer ``ok`` first, then stop: the caller must see its answer."""
    call.after_response.append(lambda: call.server.request_stop("server.stop"))
    return {"type": "ok"}


async def server_live_handoff(call: Call) -> Result:
    """Hand every pane to a new server process (`handoff_old`), answer, then stop
    without signalling any pane process. A refusal changes nothing."""
    result = await hand_off(call.server, call.params)
    call.after_response.append(lambda: call.server.request_stop("live handoff"))
    return result


def server_reload_config(call: Call) -> Result:
    """Re-read config.toml and apply what the server uses (new panes' shell, directory and
    scrollback, headless size, restore and history switches).

    ``applied``: the file was read cleanly. ``partial``: invalid values fell back to
    their defaults (listed in ``diagnostics``). ``failed``: the file could not be read
    or parsed, and the running settings stay as they were.
    """
    host = call.server.panes
    settings, diagnostics = server_settings.read(host.env)
    for line in diagnostics:
        log.warning("reload-config: %s", line)
    if settings is None:
        return {"type": "config_reload", "status": "failed", "diagnostics": diagnostics}
    host.settings = settings
    status = "partial" if diagnostics else "applied"
    log.info("config reloaded (%s)", status)
    return {"type": "config_reload", "status": status, "diagnostics": diagnostics}
