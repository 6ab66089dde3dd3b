"""Events on a live server: scenario 32, seq, since_seq replay, end of stream, waits."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from herdr.api.client import Client
from herdr_testing import ServerHandle
from herdr_testing.held import HeldConnection


def Stream(path: Path, subscriptions: list[dict[str, Any]], **extra: Any) -> HeldConnection:
    """A raw ``events.subscribe`` connection reading NDJSON lines."""
    params = {"subscriptions": subscriptions, **extra}
    return HeldConnection(path, "events.subscribe", params, "sub", timeout=10)


def create_workspace(server: ServerHandle) -> dict[str, Any]:
    reply = server.request("workspace.create", {"cwd": str(server.root)})
    result: dict[str, Any] = reply["result"]
    return result


def test_32_subscribe_lifecycle_events(herdr_server: ServerHandle) -> None:
    stream = Stream(
        herdr_server.socket_path, [{"type": "workspace.created"}, {"type": "pane.created"}]
    )
    try:
        started = stream.next()
        assert started is not None
        assert started["id"] == "sub"
        assert started["result"]["type"] == "subscription_started"
        create_workspace(herdr_server)
        first, second = stream.next(), stream.next()
        assert first is not None and second is not None
        assert first["event"] == "workspace_created"
        assert first["data"]["type"] == "workspace_created"
        assert first["data"]["workspace"]["workspace_id"] == "w1"
        assert "id" not in first
        assert second["event"] == "pane_created"
        assert second["data"]["pane"]["pane_id"] == "w1:p1"
        assert first["seq"] < second["seq"]
    finally:
        stream.close()


def test_since_seq_replays_what_a_reconnecting_subscriber_missed(
    herdr_server: ServerHandle,
) -> None:
    subs = [{"type": "workspace.created"}, {"type": "workspace.closed"}]
    stream = Stream(herdr_server.socket_path, subs)
    started = stream.next()
    assert started is not None
    create_workspace(herdr_server)
    seen = stream.next()
    assert seen is not None
    last = seen["seq"]
    stream.close()  # the subscriber goes away ...
    create_workspace(herdr_server)  # ... and misses these
    herdr_server.request("workspace.close", {"workspace_id": "w1"})
    again = Stream(herdr_server.socket_path, subs, since_seq=last)
    try:
        started = again.next()
        assert started is not None
        result = started["result"]
        assert result["type"] == "subscription_started"
        assert result["gap"] is False
        assert result["replayed"] == 2
        replayed = [again.next(), again.next()]
        assert [e["event"] for e in replayed if e] == ["workspace_created", "workspace_closed"]
        seqs = [e["seq"] for e in replayed if e]
        assert seqs == sorted(seqs) and seqs[0] > last
        assert result["last_seq"] >= seqs[-1]
        create_workspace(herdr_server)  # then it goes live
        live = again.next()
        assert live is not None and live["event"] == "workspace_created"
        assert live["seq"] > seqs[-1]
    finally:
        again.close()


def test_pane_scoped_subscription_ends_when_pane_closes(herdr_server: ServerHandle) -> None:
    create_workspace(herdr_server)
    pane = herdr_server.request("pane.split", {"target_pane_id": "w1:p1", "direction": "down"})
    pane_id = pane["result"]["pane"]["pane_id"]
    stream = Stream(
        herdr_server.socket_path,
        [
            {"type": "pane.agent_status_changed", "pane_id": pane_id},
            {
                "type": "pane.output_matched",
                "pane_id": pane_id,
                "source": "recent",
                "match": {"type": "substring", "value": "marker-42"},
            },
        ],
    )
    try:
        assert stream.next() is not None
        herdr_server.request(
            "pane.send_input",
            {"pane_id": pane_id, "text": "echo marker-$((40+2))", "keys": ["Enter"]},
        )
        matched = stream.next()
        assert matched is not None
        assert matched["event"] == "pane.output_matched"
        assert matched["data"]["matched_line"].strip() == "marker-42"
        assert isinstance(matched["seq"], int)
        herdr_server.request("pane.close", {"pane_id": pane_id})
        ends = [stream.next(), stream.next()]
        assert all(e is not None and e["event"] == "subscription_ended" for e in ends)
        assert {e["data"]["reason"] for e in ends if e} == {"pane_closed"}
        assert stream.next() is None  # then the server closes the stream
    finally:
        stream.close()


def test_output_matched_subscribers_on_one_pane_each_get_their_match(
    herdr_server: ServerHandle,
) -> None:
    """Identical subscriptions share one check per output change; others keep theirs."""
    create_workspace(herdr_server)

    def item(match: dict[str, str]) -> dict[str, Any]:
        return {
            "type": "pane.output_matched",
            "pane_id": "w1:p1",
            "source": "recent",
            "match": match,
        }

    alpha = {"type": "substring", "value": "alpha-7"}
    streams = [
        Stream(herdr_server.socket_path, [item(alpha)]),
        Stream(herdr_server.socket_path, [item(alpha)]),
        Stream(herdr_server.socket_path, [item({"type": "regex", "value": r"^beta-\d+$"})]),
    ]
    try:
        assert all(s.next() is not None for s in streams)
        herdr_server.request(
            "pane.send_input",
            {
                "pane_id": "w1:p1",
                "text": "echo alpha-$((3+4)); echo beta-$((40+2))",
                "keys": ["Enter"],
            },
        )
        first, second, beta = (s.next() for s in streams)
        assert first is not None and second is not None and beta is not None
        assert first == second  # same match, same output change, same seq
        assert first["event"] == beta["event"] == "pane.output_matched"
        assert first["data"]["matched_line"].strip() == "alpha-7"
        assert beta["data"]["matched_line"].strip() == "beta-42"
        assert first["data"]["read"]["pane_id"] == "w1:p1"
    finally:
        for s in streams:
            s.close()


def test_server_stop_ends_streams(herdr_server: ServerHandle) -> None:
    stream = Stream(herdr_server.socket_path, [{"type": "workspace.created"}])
    try:
        assert stream.next() is not None
        herdr_server.cli("server", "stop")
        end = stream.next()
        assert end is not None
        assert end["event"] == "subscription_ended"
        assert end["data"]["reason"] == "server_stopping"
        assert stream.next() is None
    finally:
        stream.close()


def last_seq(server: ServerHandle) -> int:
    stream = Stream(server.socket_path, [])
    try:
        started = stream.next()
        assert started is not None
        return int(started["result"]["last_seq"])
    finally:
        stream.close()


def test_events_wait_matches_a_later_event(herdr_server: ServerHandle) -> None:
    """A waiter started with ``since_seq`` cannot miss an event that races its start."""
    result: dict[str, Any] = {}
    since = last_seq(herdr_server)

    def waiter() -> None:
        result.update(
            herdr_server.request(
                "events.wait",
                {
                    "match_event": {"event": "workspace_created"},
                    "timeout_ms": 10000,
                    "since_seq": since,
                },
            )
        )

    thread = threading.Thread(target=waiter)
    thread.start()
    create_workspace(herdr_server)
    thread.join(15)
    assert result["result"]["type"] == "wait_matched"
    event = result["result"]["event"]
    assert event["event"] == "workspace_created"
    assert event["data"]["workspace"]["workspace_id"] == "w1"
    assert event["seq"] > since


def test_events_wait_since_seq_sees_logged_event(herdr_server: ServerHandle) -> None:
    create_workspace(herdr_server)
    reply = herdr_server.request(
        "events.wait",
        {
            "match_event": {"event": "pane_created", "workspace_id": "w1"},
            "since_seq": 0,
            "timeout_ms": 1000,
        },
    )
    assert reply["result"]["event"]["data"]["pane"]["pane_id"] == "w1:p1"


def test_events_wait_timeout(herdr_server: ServerHandle) -> None:
    reply = herdr_server.request(
        "events.wait",
        {"match_event": {"event": "tab_closed", "tab_id": "w9:t9"}, "timeout_ms": 200},
    )
    assert reply["error"]["code"] == "timeout"


def test_wait_for_output_min_revision(herdr_server: ServerHandle) -> None:
    create_workspace(herdr_server)
    revision = herdr_server.request("pane.get", {"pane_id": "w1:p1"})["result"]["pane"]["revision"]
    reply = herdr_server.request(
        "events.wait",
        {
            "match_event": {
                "event": "pane_output_changed",
                "pane_id": "w1:p1",
                "min_revision": revision,
            },
            "timeout_ms": 1000,
        },
    )
    assert reply["result"]["event"]["data"]["revision"] >= revision


@pytest.mark.slow
def test_slow_subscriber_is_dropped_not_waited_for(herdr_server: ServerHandle) -> None:
    """A subscriber that stops reading gets a lag marker; the server keeps serving."""
    create_workspace(herdr_server)
    stream = Stream(herdr_server.socket_path, [{"type": "workspace.renamed"}])
    stream.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        assert stream.next() is not None
        client = Client(herdr_server.socket_path)
        label = "x" * 200  # ~300-byte events: kernel and transport buffers fill quickly
        started = time.monotonic()
        for i in range(3000):
            client.workspace_rename("w1", f"{label}{i}")
        elapsed = time.monotonic() - started
        assert client.ping()["type"] == "pong"
        kinds: dict[str, int] = {}
        lagged = None
        while True:
            event = stream.next()
            if event is None:
                break
            kinds[event["event"]] = kinds.get(event["event"], 0) + 1
            if event["event"] == "subscription_lagged":
                lagged = event
                break
        assert lagged is not None, kinds
        assert lagged["data"]["dropped"] >= 1
        assert lagged["data"]["first_seq"] <= lagged["data"]["last_seq"]
        assert elapsed < 120  # sanity bound only: nothing blocked on the stuck reader
        client.workspace_rename("w1", "after")  # live events resume after the marker
        while (event := stream.next()) is not None and event["data"].get("label") != "after":
            pass
        assert event is not None and event["seq"] > lagged["data"]["last_seq"]
    finally:
        stream.close()
