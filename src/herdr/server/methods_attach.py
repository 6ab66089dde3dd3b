"""``client.attach``: the held TUI stream (see :mod:`herdr.server.attach`)."""

from __future__ import annotations

from typing import Any

from herdr.api import protocol
from herdr.api.limits import MAX_SIZE_CELLS
from herdr.server.attach import serve_client
from herdr.server.core import ApiError, Result
from herdr.server.wiring import Call

ATTACH_METHOD = "client.attach"


def attach_precheck(params: dict[str, Any]) -> None:
    """Sizes are 1..MAX_SIZE_CELLS, or 0 for "not known yet" (the area stays as it is)."""
    for name in ("cols", "rows"):
        value = params.get(name)
        if value is None:
            continue
        # Not an unsigned integer: does not deserialize (invalid_request); too big: a
        # limit of ours (invalid_params).
        unsigned = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        if not unsigned or value > MAX_SIZE_CELLS:
            raise ApiError(
                protocol.INVALID_PARAMS if unsigned else protocol.INVALID_REQUEST,
                f"params.{name}: expected an integer in 0..{MAX_SIZE_CELLS}",
            )
    for name in ("workspace_id", "tab_id"):
        value = params.get(name)
        if value is not None and not isinstance(value, str):
            raise ApiError(protocol.INVALID_REQUEST, f"params.{name}: expected a string")


async def client_attach(call: Call) -> Result | None:
    """Answer ``attach_started``, then stream state and rows until either side leaves."""
    await serve_client(call.server.attach, call.conn, call.id, call.params)
    return None
