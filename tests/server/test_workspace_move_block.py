"""``workspace.move_block`` on a real server: herdr 0.9's block reorder.

The named workspaces go, in the order given, before ``before_workspace_id`` (the end
when absent); the answer is the new ``workspace_list``; a change publishes one
``workspace_reordered``, a no-op none; bad input gets herdr's codes and changes
nothing; the order survives a restart.
"""

from __future__ import annotations

from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.held import HeldConnection
from herdr_testing.schema22 import assert_valid_response


def order(server: Any) -> list[str]:
    reply = server.request("workspace.list", {})
    return [ws["workspace_id"] for ws in reply["result"]["workspaces"]]


def four_workspaces(server: Any) -> None:
    for _ in range(4):
        assert "result" in server.request("workspace.create", {})
    assert order(server) == ["w1", "w2", "w3", "w4"]


@pytest.mark.parametrize(
    ("block", "before", "expected"),
    [
        (["w3", "w1"], "w2", ["w3", "w1", "w2", "w4"]),
        (["w1"], None, ["w2", "w3", "w4", "w1"]),
        (["w4", "w2"], "w1", ["w4", "w2", "w1", "w3"]),
        (["w2", "w1"], None, ["w3", "w4", "w2", "w1"]),
        (["1", "w3"], "4", ["w2", "w1", "w3", "w4"]),  # index refs resolve before moving
    ],
    ids=["before-anchor", "to-end", "non-contiguous", "reversed-to-end", "index-refs"],
)
def test_block_moves_in_the_given_order(
    herdr_server: ServerHandle, block: list[str], before: str | None, expected: list[str]
) -> None:
    four_workspaces(herdr_server)
    params: dict[str, Any] = {"workspace_ids": block}
    if before is not None:
        params["before_workspace_id"] = before
    reply = herdr_server.request("workspace.move_block", params)
    assert_valid_response(reply)
    result = reply["result"]
    assert result["type"] == "workspace_list"
    assert [ws["workspace_id"] for ws in result["workspaces"]] == expected
    assert order(herdr_server) == expected


@pytest.mark.parametrize(
    ("params", "code", "needle"),
    [
        ({"workspace_ids": []}, "workspace_move_block_failed", "must not be empty"),
        ({"workspace_ids": ["w1", "w1"]}, "workspace_move_block_failed", "more than once"),
        ({"workspace_ids": ["w2", "2"]}, "workspace_move_block_failed", "more than once"),
        (
            {"workspace_ids": ["w1", "w2"], "before_workspace_id": "w2"},
            "workspace_move_block_failed",
            "must not be part of",
        ),
        ({"workspace_ids": ["w1", "w9"]}, "workspace_not_found", "w9"),
        ({"workspace_ids": ["w1"], "before_workspace_id": "w9"}, "workspace_not_found", "w9"),
        ({"workspace_ids": "w1"}, "invalid_request", "workspace_ids"),
        ({"workspace_ids": [1]}, "invalid_request", "workspace_ids"),
        ({}, "invalid_request", "workspace_ids"),
    ],
    ids=[
        "empty",
        "duplicate",
        "duplicate-by-index",
        "anchor-in-block",
        "unknown-id",
        "unknown-anchor",
        "not-a-list",
        "not-strings",
        "missing",
    ],
)
def test_bad_input_gets_one_error_and_changes_nothing(
    shared_server: ServerHandle, params: dict[str, Any], code: str, needle: str
) -> None:
    if not order(shared_server):
        four_workspaces(shared_server)
    before = order(shared_server)
    reply = shared_server.request("workspace.move_block", params)
    assert_valid_response(reply)
    assert reply["error"]["code"] == code, reply
    assert needle in reply["error"]["message"]
    assert order(shared_server) == before
    assert shared_server.request("ping", {})["result"]["type"] == "pong"


def test_a_move_publishes_workspace_reordered_and_a_no_op_nothing(
    herdr_server: ServerHandle,
) -> None:
    four_workspaces(herdr_server)
    subs = [{"type": "workspace.reordered"}, {"type": "workspace.renamed"}]
    stream = HeldConnection(
        herdr_server.socket_path, "events.subscribe", {"subscriptions": subs}, "sub", timeout=10
    )
    try:
        started = stream.next()
        assert started is not None and started["result"]["type"] == "subscription_started"
        # Already at the end: nothing moves, nothing is published.
        noop = herdr_server.request("workspace.move_block", {"workspace_ids": ["w4"]})
        assert [ws["workspace_id"] for ws in noop["result"]["workspaces"]] == order(herdr_server)
        moved = herdr_server.request(
            "workspace.move_block", {"workspace_ids": ["w4", "w2"], "before_workspace_id": "w1"}
        )
        assert "result" in moved
        herdr_server.request("workspace.rename", {"workspace_id": "w1", "label": "fence"})
        first, second = stream.next(), stream.next()
        assert first is not None and second is not None
        assert first["event"] == "workspace_reordered"
        data = first["data"]
        assert data["workspace_ids"] == ["w4", "w2"]
        assert data["before_workspace_id"] == "w1"
        assert [ws["workspace_id"] for ws in data["workspaces"]] == ["w4", "w2", "w1", "w3"]
        assert second["event"] == "workspace_renamed"  # the no-op published nothing
    finally:
        stream.close()


def test_the_order_survives_a_restart(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server()
    four_workspaces(server)
    reply = server.request("workspace.move_block", {"workspace_ids": ["w3", "w4"]})
    assert [ws["workspace_id"] for ws in reply["result"]["workspaces"]] == ["w1", "w2", "w3", "w4"]
    reply = server.request(
        "workspace.move_block", {"workspace_ids": ["w4", "w3"], "before_workspace_id": "w1"}
    )
    assert [ws["workspace_id"] for ws in reply["result"]["workspaces"]] == ["w4", "w3", "w1", "w2"]
    assert server.stop() == 0
    again = herdr_env.start_server()
    wait_until(lambda: len(order(again)) == 4, message="the session was not restored")
    assert order(again) == ["w4", "w3", "w1", "w2"]
