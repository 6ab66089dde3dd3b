"""The TUI's connection refuses a socket served by another user before sending."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from herdr.api.attach_messages import AttachParams
from herdr.client.connection import Connection, UntrustedServer
from herdr_testing import wait_until
from herdr_testing.foreign_user import NEEDS_ROOT, NOBODY, Squatter, squatter

pytestmark = NEEDS_ROOT


@pytest.fixture
def squatted() -> Iterator[Squatter]:
    with squatter() as bait:
        yield bait


CALLS = [
    pytest.param(lambda conn: conn.attach(AttachParams(cols=80, rows=24)), id="attach"),
    pytest.param(lambda conn: conn.call("workspace.list", {}), id="command"),
]


@pytest.mark.parametrize("call", CALLS)
def test_tui_connection_refuses_the_squatter(
    squatted: Squatter, call: Callable[[Connection], Awaitable[Any]]
) -> None:
    served = squatted.served()

    async def main() -> None:
        conn = Connection(str(squatted.path))
        try:
            await call(conn)
        finally:
            conn.close()

    with pytest.raises(UntrustedServer) as info:
        asyncio.run(main())
    message = str(info.value)
    assert message.startswith("server_untrusted: ")
    assert str(squatted.path) in message
    assert f"uid {NOBODY}" in message
    wait_until(lambda: squatted.served() > served, message="the squatter saw no connection")
    assert squatted.received() == b""
