"""``client.attach`` against a real server: state, rows, input, sizes, visibility."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from herdr.api.attach_messages import Input, encode_line
from herdr_testing import ServerHandle, wait_until


class Stream:
    """One attached client, read line by line."""

    def __init__(self, path: str, params: dict[str, Any], pipelined: bytes = b"") -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buf = b""
        self.state: dict[str, Any] = {}
        self.rows: dict[str, dict[int, str]] = {}
        self.sizes: dict[str, list[int]] = {}
        self.seen_rows_for: set[str] = set()
        self.scroll: dict[str, tuple[int, int]] = {}  # (offset, total)
        request = {"id": "a1", "method": "client.attach", "params": params}
        self.sock.sendall(json.dumps(request).encode() + b"\n" + pipelined)
        self.started = self.read()

    def send(self, msg: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(msg).encode() + b"\n")

    def read(self, timeout: float = 10.0) -> dict[str, Any]:
        self.sock.settimeout(timeout)
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        doc: dict[str, Any] = json.loads(line)
        if doc.get("t") == "state":
            self.state = doc["state"]
        elif doc.get("t") == "rows":
            pane = doc["pane_id"]
            self.seen_rows_for.add(pane)
            self.sizes[pane] = doc["size"]
            self.scroll[pane] = (doc["offset"], doc["total"])
            if doc["full"]:
                self.rows[pane] = {}
            for y, row in doc["rows"]:
                self.rows.setdefault(pane, {})[y] = row
        return doc

    def pump(self, until: Any, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("condition not met on the attach stream")
            try:
                self.read(timeout=min(left, 0.5))
            except TimeoutError:
                continue

    def text(self, pane: str) -> str:
        rows = self.rows.get(pane, {})
        return "\n".join(rows[y] for y in sorted(rows))

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def workspace(herdr_server: ServerHandle) -> ServerHandle:
    reply = herdr_server.request("workspace.create", {"cwd": "/tmp", "focus": True})
    assert "result" in reply, reply
    return herdr_server


def test_attach_snapshot_rows_and_input(workspace: ServerHandle) -> None:
    stream = Stream(str(workspace.socket_path), {"cols": 100, "rows": 30})
    try:
        assert stream.started["result"]["type"] == "attach_started"
        stream.pump(lambda: stream.state and "w1:p1" in stream.rows)
        assert [w["workspace_id"] for w in stream.state["workspaces"]] == ["w1"]
        assert stream.state["layouts"]["w1:t1"]["panes"][0][0] == "w1:p1"
        assert stream.state["area"] == [100, 30]
        assert stream.sizes["w1:p1"] == [100, 30]
        stream.send({"t": "in", "pane_id": "w1:p1", "data": "echo attach''ed\r"})
        stream.pump(lambda: "attached" in stream.text("w1:p1"))
    finally:
        stream.close()


def test_split_resize_and_hidden_tabs(workspace: ServerHandle) -> None:
    stream = Stream(str(workspace.socket_path), {"cols": 101, "rows": 30})
    try:
        stream.pump(lambda: "w1:p1" in stream.rows)
        reply = workspace.request("pane.split", {"target_pane_id": "w1:p1", "direction": "right"})
        assert "result" in reply, reply
        stream.pump(lambda: len(stream.state["layouts"]["w1:t1"]["panes"]) == 2)
        stream.pump(lambda: "w1:p2" in stream.rows)
        assert stream.sizes["w1:p1"][0] + stream.sizes["w1:p2"][0] + 1 == 101
        stream.send({"t": "resize", "cols": 81, "rows": 20})
        stream.pump(lambda: stream.state["area"] == [81, 20])
        stream.pump(lambda: stream.sizes["w1:p1"][1] == 20)
        # a tab this client does not show costs nothing: no rows for its pane
        reply = workspace.request("tab.create", {"workspace_id": "w1"})
        new_pane = reply["result"]["root_pane"]["pane_id"]
        workspace.request("pane.send_text", {"pane_id": new_pane, "text": "echo hidden\r"})
        stream.pump(lambda: any(p["pane_id"] == new_pane for p in stream.state["panes"]))
        with pytest.raises(TimeoutError):
            stream.pump(lambda: new_pane in stream.seen_rows_for, timeout=1.0)
        # once the client shows that tab, its rows arrive
        stream.send({"t": "view", "workspace_id": "w1", "tab_id": "w1:t2", "focused": True})
        stream.pump(lambda: "hidden" in stream.text(new_pane))
    finally:
        stream.close()


def test_zoom_decides_which_panes_stream(workspace: ServerHandle) -> None:
    """The displayed panes are kept between frames: a zoom, an unzoom and a split each
    change what the next frames carry."""
    stream = Stream(str(workspace.socket_path), {"cols": 81, "rows": 20})
    try:
        stream.pump(lambda: "w1:p1" in stream.rows)
        workspace.request("pane.split", {"target_pane_id": "w1:p1", "direction": "right"})
        stream.pump(lambda: "w1:p2" in stream.rows and stream.sizes["w1:p1"][0] == 40)
        workspace.request("pane.zoom", {"pane_id": "w1:p1", "mode": "on"})
        stream.pump(lambda: stream.sizes["w1:p1"] == [81, 20])
        stream.rows.pop("w1:p2", None)
        workspace.request("pane.send_text", {"pane_id": "w1:p2", "text": "echo hid''den\r"})
        wait_until(lambda: "hidden" in _pane_text(workspace, "w1:p2"))
        workspace.request("pane.send_text", {"pane_id": "w1:p1", "text": "echo af''ter\r"})
        stream.pump(lambda: "after" in stream.text("w1:p1"))
        assert "w1:p2" not in stream.rows  # zoomed away: nothing of it was sent
        workspace.request("pane.zoom", {"pane_id": "w1:p1", "mode": "off"})
        stream.pump(lambda: "hidden" in stream.text("w1:p2"))
        workspace.request("pane.split", {"target_pane_id": "w1:p2", "direction": "down"})
        stream.pump(lambda: "w1:p3" in stream.rows)
    finally:
        stream.close()


def _pane_text(server: ServerHandle, pane_id: str) -> str:
    reply = server.request("pane.read", {"pane_id": pane_id, "source": "visible"})
    return str(reply.get("result", {}).get("read", {}).get("text", ""))


def test_most_recently_active_client_sets_the_size(workspace: ServerHandle) -> None:
    first = Stream(str(workspace.socket_path), {"cols": 90, "rows": 25})
    try:
        first.pump(lambda: first.state.get("area") == [90, 25])
        second = Stream(str(workspace.socket_path), {"cols": 70, "rows": 20})
        try:
            second.pump(lambda: second.state.get("area") == [70, 20])
            first.send({"t": "in", "pane_id": "w1:p1", "data": "x"})
            second.pump(lambda: second.state.get("area") == [90, 25])
        finally:
            second.close()
        # the last client leaving keeps the size (herdr-spec §1.1); the server logs the
        # departure after it has dropped the client, so the size is final by then
        log = Path(workspace.env["XDG_STATE_HOME"]) / "herdr" / "server.log"
        wait_until(lambda: log.read_text().count('"client detached"') >= 1)
        snap = workspace.request("session.snapshot", {})["result"]["snapshot"]
        assert snap["layouts"][0]["area"]["width"] == 90
    finally:
        first.close()


def test_bad_attach_params_are_rejected(workspace: ServerHandle) -> None:
    reply = workspace.request("client.attach", {"cols": "wide"})
    assert reply["error"]["code"] == "invalid_request"  # does not deserialize


def test_remaining_client_keeps_streaming_after_another_leaves(workspace: ServerHandle) -> None:
    # the output of a visible pane keeps flowing at a bounded rate while another client
    # detaches: a gone client must not break the stream of the remaining one
    a = Stream(str(workspace.socket_path), {"cols": 80, "rows": 24})
    b = Stream(str(workspace.socket_path), {"cols": 80, "rows": 24})
    try:
        a.pump(lambda: "w1:p1" in a.rows)
        b.close()
        a.send({"t": "in", "pane_id": "w1:p1", "data": "echo still''here\r"})
        a.pump(lambda: "stillhere" in a.text("w1:p1"))
        wait_until(lambda: workspace.request("ping", {}).get("result"), 5)
    finally:
        a.close()


def test_wheel_scroll_shows_scrollback_and_input_returns(workspace: ServerHandle) -> None:
    stream = Stream(str(workspace.socket_path), {"cols": 80, "rows": 10})
    try:
        stream.pump(lambda: "w1:p1" in stream.rows)
        stream.send({"t": "in", "pane_id": "w1:p1", "data": "seq 1 60 | sed s/^/line/\r"})
        stream.pump(lambda: "line60" in stream.text("w1:p1"))
        assert "line30" not in stream.text("w1:p1")
        stream.send({"t": "scroll", "pane_id": "w1:p1", "delta": -30})
        stream.pump(lambda: "line30" in stream.text("w1:p1"))
        assert "line60" not in stream.text("w1:p1")
        stream.send({"t": "scroll", "pane_id": "w1:p1", "delta": 100})
        stream.pump(lambda: "line60" in stream.text("w1:p1"))
        stream.send({"t": "scroll", "pane_id": "w1:p1", "delta": -30})
        stream.pump(lambda: "line60" not in stream.text("w1:p1"))
        stream.send({"t": "in", "pane_id": "w1:p1", "data": "echo back''down\r"})
        stream.pump(lambda: "backdown" in stream.text("w1:p1"))
    finally:
        stream.close()


def test_rows_carry_scroll_offset_and_total(workspace: ServerHandle) -> None:
    stream = Stream(str(workspace.socket_path), {"cols": 80, "rows": 10})
    try:
        stream.pump(lambda: "w1:p1" in stream.rows)
        stream.send({"t": "in", "pane_id": "w1:p1", "data": "seq 1 60 | sed s/^/line/\r"})
        stream.pump(lambda: "line60" in stream.text("w1:p1"))
        stream.pump(lambda: stream.scroll["w1:p1"][1] >= 60)
        assert stream.scroll["w1:p1"][0] == 0
        stream.send({"t": "scroll", "pane_id": "w1:p1", "delta": -30})
        stream.pump(lambda: stream.scroll["w1:p1"][0] == 30)
        total = stream.scroll["w1:p1"][1]
        shown = stream.text("w1:p1")
        # output while scrolled: the view stays on its rows, the offset grows
        reply = workspace.request(
            "pane.send_text", {"pane_id": "w1:p1", "text": "seq 1 5 | sed s/^/more/\r"}
        )
        assert "result" in reply, reply
        stream.pump(lambda: stream.scroll["w1:p1"][1] > total)
        offset, grown = stream.scroll["w1:p1"]
        assert offset == 30 + grown - total
        assert stream.text("w1:p1") == shown
        stream.send({"t": "scroll", "pane_id": "w1:p1", "delta": 10_000})
        stream.pump(lambda: stream.scroll["w1:p1"][0] == 0 and "more5" in stream.text("w1:p1"))
    finally:
        stream.close()


@pytest.fixture(scope="module")
def shared_workspace(shared_server: ServerHandle) -> ServerHandle:
    reply = shared_server.request("workspace.create", {"cwd": "/tmp", "focus": True})
    assert "result" in reply, reply
    return shared_server


def test_input_sent_with_the_attach_request_is_not_lost(shared_workspace: ServerHandle) -> None:
    """Bytes that follow the request line in the same write reach the pane (the stream
    takes what the connection had already read)."""
    typed = {"t": "in", "pane_id": "w1:p1", "data": "echo pipe''lined\r"}
    stream = Stream(
        str(shared_workspace.socket_path),
        {"cols": 80, "rows": 24},
        pipelined=json.dumps(typed).encode() + b"\n",
    )
    try:
        assert stream.started["result"]["type"] == "attach_started"
        stream.pump(lambda: "pipelined" in stream.text("w1:p1"))
    finally:
        stream.close()


BAD_LINES = [
    pytest.param(b"not json", id="not-json"),
    pytest.param(b"[1, 2]", id="array"),
    pytest.param(b'"in"', id="string"),
    pytest.param(b"{}", id="no-tag"),
    pytest.param(b'{"t":"zzz","data":"x"}', id="unknown-tag"),
    pytest.param(b'{"t":7}', id="tag-not-string"),
    pytest.param(b'{"t":"in","pane_id":"w1:p1"}', id="in-without-data"),
    pytest.param(b'{"t":"in","pane_id":"w1:p1","data":["x"]}', id="in-data-not-string"),
    pytest.param(b'{"t":"paste","pane_id":"w9:p9","data":"x"}', id="paste-unknown-pane"),
    pytest.param(b'{"t":"scroll","pane_id":"w1:p1","delta":"up"}', id="scroll-delta-string"),
    pytest.param(b'{"t":"view","workspace_id":5,"tab_id":[],"focused":"x"}', id="view-types"),
    pytest.param(b'{"t":"in","data":"\xff\xfe"}', id="invalid-utf8"),
    pytest.param(b"", id="empty-line"),
]


@pytest.mark.parametrize("line", BAD_LINES)
def test_bad_stream_lines_are_ignored_and_the_stream_goes_on(
    shared_workspace: ServerHandle, line: bytes
) -> None:
    stream = Stream(str(shared_workspace.socket_path), {"cols": 80, "rows": 24})
    try:
        stream.pump(lambda: "w1:p1" in stream.rows)
        stream.sock.sendall(line + b"\n")
        stream.send({"t": "in", "pane_id": "w1:p1", "data": "echo after''bad\r"})
        stream.pump(lambda: "afterbad" in stream.text("w1:p1"))
        assert shared_workspace.request("ping", {})["result"]["type"] == "pong"
    finally:
        stream.close()


def test_a_line_past_the_bound_drops_only_that_client(shared_workspace: ServerHandle) -> None:
    stream = Stream(str(shared_workspace.socket_path), {"cols": 80, "rows": 24})
    try:
        stream.pump(lambda: "w1:p1" in stream.rows)
        with contextlib.suppress(OSError):  # the server may close while we still write
            stream.sock.sendall(b'{"t":"in","data":"' + b"x" * (4 * 1024 * 1024 + 16))
        with pytest.raises((EOFError, ConnectionResetError)):
            stream.pump(lambda: False, timeout=10.0)
        assert shared_workspace.request("ping", {})["result"]["type"] == "pong"
    finally:
        stream.close()


def test_keys_in_the_clients_compact_form_reach_the_pane(shared_workspace: ServerHandle) -> None:
    """The TUI writes one compact line per key (msgspec's encoding, no spaces); with
    the focused pane (null) and spaced lines between, every key lands, in order."""
    stream = Stream(str(shared_workspace.socket_path), {"cols": 80, "rows": 24})
    try:
        stream.pump(lambda: "w1:p1" in stream.rows)
        for key in "echo com":
            stream.sock.sendall(encode_line(Input(pane_id="w1:p1", data=key)))
        stream.sock.sendall(b'{"t":"in","pane_id":null,"data":"pa"}\n')  # the focused pane
        stream.send({"t": "in", "pane_id": "w1:p1", "data": "''ct"})  # the general path
        stream.sock.sendall(encode_line(Input(pane_id="w1:p1", data="-ok\r")))  # escaped CR
        stream.pump(lambda: "compact-ok" in stream.text("w1:p1").replace("echo compa''ct", ""))
    finally:
        stream.close()
