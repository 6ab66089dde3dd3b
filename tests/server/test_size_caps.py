"""Sizes a client sets are capped (issue 11, item 10).

``client.attach`` refuses a size beyond 1000 cells each way with ``invalid_params``
and changes nothing; the attach stream's ``resize`` lines (which get no answer) are
clamped to 1..1000, never fed to the emulators as they come. ``pane.resize`` moves a
divider by a share of the split, already clamped to 0.5 (herdr's rule).
"""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from herdr_testing import ServerHandle


class Attached:
    """An attached client that reads the state document."""

    def __init__(self, server: ServerHandle, params: dict[str, Any]) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(str(server.socket_path))
        self.buf = b""
        self.state: dict[str, Any] = {}
        self.send({"id": "a1", "method": "client.attach", "params": params})
        self.started = self.read()

    def send(self, msg: Any) -> None:
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def read(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        doc: dict[str, Any] = json.loads(line)
        if doc.get("t") == "state":
            self.state = doc["state"]
        return doc

    def area_becomes(self, area: list[int]) -> bool:
        while self.state.get("area") != area:
            self.read()
        return True

    def areas_until(self, area: list[int]) -> list[tuple[int, ...]]:
        """Every area the state documents showed until ``area``."""
        seen: list[tuple[int, ...]] = []
        while self.state.get("area") != area:
            if self.read().get("t") == "state":
                seen.append(tuple(self.state["area"]))
        return seen

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def workspace(herdr_server: ServerHandle) -> ServerHandle:
    reply = herdr_server.request("workspace.create", {"cwd": "/tmp", "focus": True})
    assert "result" in reply, reply
    return herdr_server


def area(server: ServerHandle) -> dict[str, int]:
    reply = server.request("pane.layout", {"pane_id": "w1:p1"})
    found: dict[str, int] = reply["result"]["layout"]["area"]
    return found


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"cols": 1001, "rows": 24}, "invalid_params"),
        ({"cols": 80, "rows": 1001}, "invalid_params"),
        ({"cols": 10**9, "rows": 10**9}, "invalid_params"),
        # not an unsigned integer at all: does not deserialize
        ({"cols": -1, "rows": 24}, "invalid_request"),
        ({"cols": "80", "rows": 24}, "invalid_request"),
        ({"cols": 80.5, "rows": 24}, "invalid_request"),
        ({"cols": True, "rows": 24}, "invalid_request"),
    ],
    ids=["cols", "rows", "huge", "negative", "string", "float", "bool"],
)
def test_attach_with_an_impossible_size_is_refused_and_changes_nothing(
    workspace: ServerHandle, params: dict[str, Any], code: str
) -> None:
    before = area(workspace)
    reply = workspace.request("client.attach", params)
    assert reply["error"]["code"] == code, reply
    assert "0..1000" in reply["error"]["message"]
    assert area(workspace) == before
    assert workspace.server.alive()


def test_attach_at_the_limit_is_accepted(workspace: ServerHandle) -> None:
    client = Attached(workspace, {"cols": 1000, "rows": 1000})
    try:
        assert client.started["result"]["type"] == "attach_started"
        assert client.area_becomes([1000, 1000])
    finally:
        client.close()
    assert area(workspace)["width"] == 1000


@pytest.mark.parametrize(
    ("resize", "expected"),
    [
        ({"cols": 10**9, "rows": 10**9}, [1000, 1000]),
        ({"cols": 5000, "rows": 40}, [1000, 40]),
        ({"cols": 0, "rows": -7}, [1, 1]),
        ({"cols": "wide", "rows": None}, [90, 30]),  # not integers: the size stays
        ({"cols": 2**70, "rows": 50}, [90, 50]),  # decoded as a float: not an integer
    ],
    ids=["huge", "wide", "zero-negative", "not-integers", "beyond-64-bit"],
)
def test_resize_lines_are_clamped_and_the_server_goes_on(
    workspace: ServerHandle, resize: dict[str, Any], expected: list[int]
) -> None:
    client = Attached(workspace, {"cols": 90, "rows": 30})
    try:
        assert client.area_becomes([90, 30])
        client.send({"t": "resize", **resize})
        client.send({"t": "scroll", "pane_id": "w1:p1", "delta": -(10**12)})  # clamped too
        if expected != [90, 30]:
            assert client.area_becomes(expected)
            assert area(workspace) == {"x": 0, "y": 0, "width": expected[0], "height": expected[1]}
        # Lines on one connection are handled in order: once this size shows, the ones
        # above were handled, and no other size was ever applied.
        client.send({"t": "resize", "cols": 100, "rows": 31})
        seen = client.areas_until([100, 31])
        assert set(seen) <= {(90, 30), tuple(expected), (100, 31)}, seen
        assert workspace.request("ping", {})["result"]["type"] == "pong"
    finally:
        client.close()
    assert workspace.server.alive()


@pytest.mark.parametrize("amount", [1e308, -5.0, 0.5, 0], ids=["huge", "negative", "max", "zero"])
def test_pane_resize_amount_is_a_clamped_share(workspace: ServerHandle, amount: float) -> None:
    workspace.request("pane.split", {"target_pane_id": "w1:p1", "direction": "right"})
    reply = workspace.request(
        "pane.resize", {"pane_id": "w1:p1", "direction": "right", "amount": amount}
    )
    assert reply["result"]["type"] == "pane_resize", reply
    widths = [p["rect"]["width"] for p in reply["result"]["resize"]["layout"]["panes"]]
    assert all(w >= 1 for w in widths)
    assert workspace.server.alive()
