"""A subscriber that falls behind is told what it lost: ``events_lost``, then the lag line.

herdr 0.9's published protocol-22 schema names no loss event at all (its subscription
stream knows three kinds), so both lines are extensions of ours: ``events_lost`` under
the name 0.9-era clients look for, ``subscription_lagged`` as before; they carry the same
counts and both are in our event schema.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest

from herdr.api import protocol
from herdr.api.client import Client
from herdr.api.schema import build_schema
from herdr.api.validate import Compiler
from herdr.runtime.events import EventBus, compile_subscription
from herdr_testing import ServerHandle
from herdr_testing.held import HeldConnection

EVENT_DATA = Compiler(build_schema()["schemas"]["event"]["$defs"]).ref("EventData")


def _bus_lines(queue_limit: int, events: int) -> list[dict[str, Any]]:
    bus = EventBus(lambda doc: json.dumps(doc).encode() + b"\n", queue_limit=queue_limit)
    sub, _ = bus.subscribe([compile_subscription({"type": "workspace.created"})])
    for i in range(events):
        bus.publish("workspace_created", {"workspace": {"workspace_id": f"w{i}"}})
    return [json.loads(line) for line in bus.drain(sub)]


@pytest.mark.parametrize(
    ("limit", "events", "dropped"),
    # the queue keeps limit - 1 events (room for the loss report)
    [pytest.param(4, 10, 7, id="seven-lost"), pytest.param(2, 3, 2, id="two-lost")],
)
def test_the_loss_is_reported_twice_with_the_same_counts(
    limit: int, events: int, dropped: int
) -> None:
    docs = _bus_lines(limit, events)
    lost, lagged = docs[-2], docs[-1]
    assert (lost["event"], lagged["event"]) == (protocol.EVENTS_LOST, protocol.SUBSCRIPTION_LAGGED)
    for doc in (lost, lagged):
        assert "seq" not in doc  # bookkeeping, never logged
        assert doc["data"]["dropped"] == dropped
        assert (doc["data"]["first_seq"], doc["data"]["last_seq"]) == (events - dropped + 1, events)
        assert EVENT_DATA(doc["data"], "data") is None
    assert {k: v for k, v in lost["data"].items() if k != "type"} == {
        k: v for k, v in lagged["data"].items() if k != "type"
    }


def test_nothing_lost_means_no_loss_lines() -> None:
    docs = _bus_lines(8, 3)
    assert [d["event"] for d in docs] == ["workspace_created"] * 3


@pytest.mark.slow
def test_a_stuck_reader_on_a_real_server_is_told_what_it_lost(
    herdr_server: ServerHandle,
) -> None:
    herdr_server.request("workspace.create", {"cwd": str(herdr_server.root)})
    params = {"subscriptions": [{"type": "workspace.renamed"}]}
    stream = HeldConnection(herdr_server.socket_path, "events.subscribe", params, "s", timeout=10)
    stream.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        assert stream.next() is not None
        client = Client(herdr_server.socket_path)
        label = "x" * 200
        for i in range(3000):
            client.workspace_rename("w1", f"{label}{i}")
        assert client.ping()["type"] == "pong"  # the stuck reader blocked nothing
        deadline = time.monotonic() + 60
        previous: dict[str, Any] | None = None
        while time.monotonic() < deadline:
            event = stream.next()
            assert event is not None, "the stream ended before any loss was reported"
            if event["event"] == protocol.SUBSCRIPTION_LAGGED:
                break
            previous = event
        else:
            raise AssertionError("no loss reported")
        assert previous is not None and previous["event"] == protocol.EVENTS_LOST
        assert previous["data"]["dropped"] == event["data"]["dropped"] >= 1
        assert previous["data"]["last_seq"] == event["data"]["last_seq"]
    finally:
        stream.close()
