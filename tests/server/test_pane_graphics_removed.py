"""``pane.graphics.set|clear|info``: herdr 0.9.2 removed pane graphics.

The methods stay in protocol 22, so a client still gets one specific answer:
``feature_disabled`` (herdr's code for graphics it will not do), whatever the pane,
and nothing else changes. Params that do not deserialize are still ``invalid_request`` first.
"""

from __future__ import annotations

from typing import Any

import pytest

from herdr.server.methods_commands import GRAPHICS_REMOVED
from herdr_testing import ServerHandle
from herdr_testing.schema22 import assert_valid_response

SET = {"pane_id": "w1:p1", "format": "png", "image_width": 1, "image_height": 1}


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("pane.graphics.set", SET),
        ("pane.graphics.clear", {"pane_id": "w1:p1"}),
        ("pane.graphics.clear", {"pane_id": "w1:p1", "layer_id": "overlay"}),
        ("pane.graphics.info", {"pane_id": "w1:p1"}),
        ("pane.graphics.info", {"pane_id": "w9:p9"}),  # refused before the pane is looked up
    ],
    ids=["set", "clear", "clear-layer", "info", "info-unknown-pane"],
)
def test_graphics_methods_answer_feature_disabled(
    shared_server: ServerHandle, method: str, params: dict[str, Any]
) -> None:
    if "result" not in shared_server.request("pane.get", {"pane_id": "w1:p1"}):
        shared_server.request("workspace.create", {})
    reply = shared_server.request(method, params)
    assert_valid_response(reply)
    assert reply["error"] == {"code": "feature_disabled", "message": GRAPHICS_REMOVED}


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("pane.graphics.set", {"pane_id": "w1:p1"}),
        ("pane.graphics.clear", {}),
        ("pane.graphics.info", {"pane_id": 3}),
    ],
    ids=["set-missing-fields", "clear-missing-pane", "info-bad-type"],
)
def test_bad_params_are_still_refused_first(
    shared_server: ServerHandle, method: str, params: dict[str, Any]
) -> None:
    reply = shared_server.request(method, params)
    assert reply["error"]["code"] == "invalid_request", reply
