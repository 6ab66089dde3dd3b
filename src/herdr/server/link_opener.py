"""Run the configured link opener for ``pane.link.activate`` (no shell, ever).

herdr's server only resolves the link and answers ``handled: false``: the client opens
it on its own machine. A server-side opener runs only when ``$HERDR_LINK_OPENER`` is set
in the server's environment (e.g. ``xdg-open``, or a test's recorder); the URL must be a
safe web URL and goes in as one argv element after the opener's own words.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from herdr.runtime.links import opener_argv

__all__ = ["OPENER_ENV", "open_link"]

OPENER_ENV = "HERDR_LINK_OPENER"

log = logging.getLogger("herdr.server.link_opener")


async def open_link(env: Mapping[str, str], url: str) -> bool:
    """Start the opener on ``url``; True when it started (it runs detached, in its own
    session, with no terminal). False: no opener configured, unsafe URL, or spawn error."""
    opener = env.get(OPENER_ENV, "")
    if not opener.strip():
        return False
    argv = opener_argv(opener, url)
    if argv is None:
        return False
    child_env = {k: v for k, v in env.items() if not k.startswith("HERDR_")}
    try:
        await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,
            env=child_env,
        )
    except OSError as exc:
        log.warning("link opener %r failed to start: %s", argv[0], exc)
        return False
    return True
