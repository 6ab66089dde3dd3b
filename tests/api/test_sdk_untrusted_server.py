"""The Python SDK refuses a socket served by another user, before it sends anything."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from herdr.api.client import AsyncClient, Client, HerdrError, ServerUntrusted
from herdr_testing import wait_until
from herdr_testing.foreign_user import NEEDS_ROOT, NOBODY, Squatter, squatter

pytestmark = NEEDS_ROOT


@pytest.fixture
def squatted() -> Iterator[Squatter]:
    with squatter() as bait:
        yield bait


def _async(call: Callable[[AsyncClient], Any]) -> Callable[[Squatter], Any]:
    def run(bait: Squatter) -> Any:
        async def main() -> Any:
            return await call(AsyncClient(bait.path))

        return asyncio.run(main())

    return run


CALLS = [
    pytest.param(lambda bait: Client(bait.path).ping(), id="sync-ping"),
    pytest.param(
        lambda bait: Client(bait.path).workspace_create(label="x"), id="sync-workspace-create"
    ),
    pytest.param(
        lambda bait: Client(bait.path).events([{"type": "pane.created"}]), id="sync-events"
    ),
    pytest.param(_async(lambda client: client.ping()), id="async-ping"),
    pytest.param(
        _async(lambda client: client.events([{"type": "pane.created"}])), id="async-events"
    ),
]


@pytest.mark.parametrize("call", CALLS)
def test_sdk_refuses_the_squatter(squatted: Squatter, call: Callable[[Squatter], Any]) -> None:
    served = squatted.served()
    with pytest.raises(ServerUntrusted) as info:
        call(squatted)
    assert isinstance(info.value, HerdrError)
    assert info.value.code == "server_untrusted"
    assert info.value.uid == NOBODY
    assert str(squatted.path) in info.value.message
    wait_until(lambda: squatted.served() > served, message="the squatter saw no connection")
    assert squatted.received() == b""
