"""The interactive leading edge: a typed key's echo does not wait for the coalesced frame
that a streaming neighbour's output is due in."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

from herdr_testing import ServerHandle

NEIGHBOUR = "w1:p1"  # first in the layout: a coalesced frame carries its rows first
TYPING = "w1:p2"
KEYS = "abcdefghij"


class Lines:
    """The attach stream of one client, one decoded line at a time."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buf = b""
        request = {"id": "a1", "method": "client.attach", "params": {"cols": 120, "rows": 30}}
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        self.rows: dict[str, dict[int, str]] = {}

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def next(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        doc: dict[str, Any] = json.loads(line)
        if doc.get("t") == "rows":
            rows = self.rows.setdefault(doc["pane_id"], {})
            if doc["full"]:
                rows.clear()
            rows.update(dict(doc["rows"]))
        return doc

    def pump(self, until: Any, timeout: float = 20.0) -> None:
        """Read lines until ``until()`` holds (bounded)."""
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError("condition not met on the attach stream")
            self.next()

    def text(self, pane: str) -> str:
        return "\n".join(self.rows.get(pane, {}).values())

    def close(self) -> None:
        self.sock.close()


def _neighbour_frames_before_echo(stream: Lines, typed: str) -> int:
    """Rows lines of the neighbour that arrive after a key was sent, before its echo."""
    stream.send({"t": "in", "pane_id": TYPING, "data": typed[-1]})
    before = 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        doc = stream.next()
        if doc.get("t") != "rows":
            continue
        if doc["pane_id"] == NEIGHBOUR:
            before += 1
        elif typed in stream.text(TYPING):
            return before
    raise TimeoutError(f"no echo of {typed!r}")


def test_echo_is_pushed_ahead_of_the_neighbours_coalesced_frame(
    herdr_server: ServerHandle,
) -> None:
    """Every coalesced frame carries the flooding neighbour's rows before the typing
    pane's (layout order), so an echo that waited for a frame always came after at
    least one neighbour rows line. Pushed at once, echoes mostly come before any
    (a frame may still be built in the instant between key and echo, hence "some")."""
    herdr_server.request("workspace.create", {"cwd": "/tmp", "focus": True})
    split = herdr_server.request("pane.split", {"target_pane_id": NEIGHBOUR, "direction": "right"})
    assert split["result"]["pane"]["pane_id"] == TYPING
    stream = Lines(str(herdr_server.socket_path))
    try:
        stream.send({"t": "in", "pane_id": TYPING, "data": "echo rea''dy\r"})
        stream.pump(lambda: "ready" in stream.text(TYPING))
        herdr_server.request("pane.send_text", {"pane_id": NEIGHBOUR, "text": "yes\r"})
        stream.pump(lambda: "y\ny\ny" in stream.text(NEIGHBOUR))
        counts = [_neighbour_frames_before_echo(stream, KEYS[: i + 1]) for i in range(len(KEYS))]
        assert 0 in counts, counts
    finally:
        herdr_server.request("pane.send_input", {"pane_id": NEIGHBOUR, "keys": ["ctrl+c"]})
        stream.close()
