"""Seen/done follows what attached, focused clients show (spec §9.8), on a real server.

An agent that finishes (working → idle) in a pane some focused client shows is
``idle``; nobody looking makes it ``done``. The attach registry keeps the set of shown
panes current when a client attaches, sends ``view`` or leaves, and when an event moves
panes or focus (a split into the shown tab); showing a tab marks its panes seen.
"""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest

from herdr_testing import ServerHandle, wait_until


class Client:
    """An attached client whose pushed frames are read and dropped in a thread."""

    def __init__(self, server: ServerHandle, **params: Any) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(str(server.socket_path))
        self.send({"id": "a", "method": "client.attach", "params": {"cols": 80, **params}})
        first = b""
        while b"\n" not in first:
            first += self.sock.recv(65536)
        started = json.loads(first.split(b"\n", 1)[0])
        assert started["result"]["type"] == "attach_started", started
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self) -> None:
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def close(self) -> None:
        self.sock.close()
        self.reader.join(5)


def ok(reply: dict[str, Any]) -> dict[str, Any]:
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def finish(server: ServerHandle, pane: str) -> str:
    """An agent turn in ``pane`` (working, then idle); the status it ends with."""
    for state in ("working", "idle"):
        params = {"pane_id": pane, "source": "custom:t", "agent": "bot", "state": state}
        ok(server.request("pane.report_agent", params))
    record = ok(server.request("pane.get", {"pane_id": pane}))["pane"]
    return str(record["agent_status"])


@pytest.fixture
def layout(herdr_server: ServerHandle) -> tuple[str, str]:
    """w1 focused with a shown pane (tab 1) and a hidden one (tab 2)."""
    w1 = ok(herdr_server.request("workspace.create", {"cwd": "/tmp", "focus": True}))
    hidden = ok(herdr_server.request("tab.create", {"workspace_id": "w1"}))
    return w1["root_pane"]["pane_id"], hidden["root_pane"]["pane_id"]


def test_no_client_means_nobody_saw_it(herdr_server: ServerHandle, layout: tuple[str, str]) -> None:
    shown, hidden = layout
    assert finish(herdr_server, shown) == "done"
    assert finish(herdr_server, hidden) == "done"


def test_a_focused_client_sees_its_tab_only(
    herdr_server: ServerHandle, layout: tuple[str, str]
) -> None:
    shown, hidden = layout
    client = Client(herdr_server)
    try:
        assert finish(herdr_server, shown) == "idle"
        assert finish(herdr_server, hidden) == "done"
        # showing the other tab marks its panes seen, and from then on it is the one shown
        client.send({"t": "view", "workspace_id": "w1", "tab_id": "w1:t2", "focused": True})
        wait_until(lambda: finish(herdr_server, hidden) == "idle", message="tab 2 shown")
        assert finish(herdr_server, shown) == "done"
        # an unfocused client (its terminal window in the background) sees nothing
        client.send({"t": "view", "workspace_id": "w1", "tab_id": "w1:t2", "focused": False})
        wait_until(lambda: finish(herdr_server, hidden) == "done", message="unfocused")
    finally:
        client.close()


def test_a_pane_split_into_the_shown_tab_is_seen(
    herdr_server: ServerHandle, layout: tuple[str, str]
) -> None:
    shown, _hidden = layout
    client = Client(herdr_server)
    try:
        split_params = {"target_pane_id": shown, "direction": "right"}
        split = ok(herdr_server.request("pane.split", split_params))["pane"]["pane_id"]
        assert finish(herdr_server, split) == "idle"
        # moved to a new tab in the background, the pane is not shown any more
        move = {"pane_id": split, "destination": {"type": "new_tab", "workspace_id": "w1"}}
        moved = ok(herdr_server.request("pane.move", move))["move_result"]["pane"]
        assert finish(herdr_server, moved["pane_id"]) == "done"
    finally:
        client.close()


def test_a_client_that_left_sees_nothing(
    herdr_server: ServerHandle, layout: tuple[str, str]
) -> None:
    shown, _hidden = layout
    client = Client(herdr_server)
    assert finish(herdr_server, shown) == "idle"
    client.close()
    wait_until(lambda: finish(herdr_server, shown) == "done", message="client gone")
