"""``integration.install``, ``integration.uninstall`` and ``integration.list``.

They run in the server process, so the server's environment (HOME, CLAUDE_CONFIG_DIR,
…) decides where files go, as in herdr. File work runs in a worker thread: a slow
disk never stalls other clients' requests. The installer (~10 ms of imports) is loaded
there on first use, not at the server's start.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from herdr.integrations.files import IntegrationError
from herdr.server.core import ApiError, Result
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode

log = logging.getLogger("herdr.server.integrations")


# The installer's calls, each run in a worker thread, which imports it the first time.
def _install(target: str, env: Mapping[str, str]) -> list[str]:
    from herdr.integrations import install

    return install.install(target, env)


def _uninstall(target: str, env: Mapping[str, str]) -> list[str]:
    from herdr.integrations import install

    return install.uninstall(target, env)


def _listing(env: Mapping[str, str]) -> list[dict[str, object]]:
    from herdr.integrations import install

    return install.listing(env)


async def integration_install(call: Call) -> Result:
    target = call.params["target"]
    env = dict(call.server.panes.env)
    try:
        messages = await asyncio.to_thread(_install, target, env)
    except IntegrationError as exc:
        log.warning("integration install %s failed: %s", target, exc)
        raise ApiError(ErrorCode.INTEGRATION_INSTALL_FAILED, str(exc)) from None
    log.info("integration install %s: ok", target)
    return {"type": "integration_install", "target": target, "details": {"messages": messages}}


async def integration_uninstall(call: Call) -> Result:
    target = call.params["target"]
    env = dict(call.server.panes.env)
    try:
        messages = await asyncio.to_thread(_uninstall, target, env)
    except IntegrationError as exc:
        log.warning("integration uninstall %s failed: %s", target, exc)
        raise ApiError(ErrorCode.INTEGRATION_UNINSTALL_FAILED, str(exc)) from None
    log.info("integration uninstall %s: ok", target)
    return {"type": "integration_uninstall", "target": target, "details": {"messages": messages}}


async def integration_list(call: Call) -> Result:
    env = dict(call.server.panes.env)
    return {
        "type": "integration_list",
        "integrations": await asyncio.to_thread(_listing, env),
    }
