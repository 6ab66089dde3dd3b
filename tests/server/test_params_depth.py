"""Deeply nested params get one ``invalid_params`` answer, never ``internal_error``.

A layout tree or filter a few levels deep is normal; a client's thousand-level tree used
to reach Python's recursion limit in the params validator (``layout.apply`` answered
``internal_error`` at ~400 levels).
"""

from __future__ import annotations

from typing import Any

import pytest

from herdr.api.limits import MAX_PARAMS_DEPTH, nesting_depth
from herdr_testing import ServerHandle


def _split_tree(levels: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "pane"}
    for _ in range(levels):
        node = {
            "type": "split",
            "direction": "right",
            "ratio": 0.5,
            "first": {"type": "pane"},
            "second": node,
        }
    return node


@pytest.mark.parametrize(
    ("value", "depth"),
    [
        pytest.param(1, 0, id="scalar"),
        pytest.param({}, 1, id="empty-object"),
        pytest.param({"a": [1, {"b": []}]}, 4, id="mixed"),
        pytest.param([[[[]]]], 4, id="arrays"),
    ],
)
def test_nesting_depth(value: object, depth: int) -> None:
    assert nesting_depth(value) == depth


def test_nesting_depth_stops_past_the_limit() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    assert MAX_PARAMS_DEPTH < nesting_depth(deep) <= MAX_PARAMS_DEPTH + 1


@pytest.mark.parametrize("levels", [65, 400, 900])
def test_a_deep_layout_tree_is_refused_cleanly(herdr_server: ServerHandle, levels: int) -> None:
    reply = herdr_server.request(
        "layout.apply", {"workspace_id": "w1", "root": _split_tree(levels)}
    )
    assert reply["error"]["code"] == "invalid_params", reply
    assert "nested deeper than" in reply["error"]["message"]
    assert herdr_server.request("ping", {})["result"]["type"] == "pong"


def test_a_normal_layout_tree_still_applies(herdr_server: ServerHandle) -> None:
    herdr_server.request("workspace.create", {"cwd": "/tmp"})
    reply = herdr_server.request("layout.apply", {"workspace_id": "w1", "root": _split_tree(3)})
    assert "result" in reply, reply
