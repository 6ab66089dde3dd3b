"""Session size follows the most recently active client, and passes back on detach."""

from __future__ import annotations

import pytest
from test_attach_stream import Stream  # type: ignore[import-not-found]

from herdr_testing import ServerHandle, wait_until


@pytest.fixture
def workspace(herdr_server: ServerHandle) -> ServerHandle:
    reply = herdr_server.request("workspace.create", {"cwd": "/tmp", "focus": True})
    assert "result" in reply, reply
    return herdr_server


def _area(server: ServerHandle) -> tuple[int, int]:
    snap = server.request("session.snapshot", {})["result"]["snapshot"]
    area = snap["layouts"][0]["area"]
    return (area["width"], area["height"])


def test_size_passes_back_to_the_remaining_client_on_detach(workspace: ServerHandle) -> None:
    big = Stream(str(workspace.socket_path), {"cols": 120, "rows": 35})
    try:
        big.pump(lambda: big.state.get("area") == [120, 35])
        small = Stream(str(workspace.socket_path), {"cols": 80, "rows": 24})
        small.pump(lambda: small.state.get("area") == [80, 24])
        small.send({"t": "in", "pane_id": "w1:p1", "data": "x"})
        big.pump(lambda: big.state.get("area") == [80, 24])
        small.close()
        big.pump(lambda: big.state.get("area") == [120, 35])
        wait_until(lambda: _area(workspace) == (120, 35))
    finally:
        big.close()


def test_view_change_is_activity(workspace: ServerHandle) -> None:
    a = Stream(str(workspace.socket_path), {"cols": 100, "rows": 30})
    try:
        a.pump(lambda: a.state.get("area") == [100, 30])
        b = Stream(str(workspace.socket_path), {"cols": 70, "rows": 20})
        try:
            b.pump(lambda: b.state.get("area") == [70, 20])
            a.pump(lambda: a.state.get("area") == [70, 20])  # a has seen b's size first
            a.send({"t": "view", "workspace_id": "w1", "tab_id": "w1:t1", "focused": True})
            a.pump(lambda: a.state.get("area") == [100, 30])
            b.send({"t": "view", "workspace_id": "w1", "tab_id": "w1:t1", "focused": True})
            a.pump(lambda: a.state.get("area") == [70, 20])
            a.send({"t": "view", "workspace_id": "w1", "tab_id": "w1:t1", "focused": True})
            a.pump(lambda: a.state.get("area") == [100, 30])
            # losing focus is a view change but not activity: the size stays
            b.send({"t": "view", "workspace_id": "w1", "tab_id": "w1:t1", "focused": False})
            with pytest.raises(TimeoutError):
                a.pump(lambda: a.state.get("area") == [70, 20], timeout=1.0)
        finally:
            b.close()
        a.pump(lambda: a.state.get("area") == [100, 30])
    finally:
        a.close()
