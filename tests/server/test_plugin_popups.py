"""Plugin popups and overlays on a real server (spec §9), seen through a real
``client.attach`` stream: a popup is one session-wide PTY outside every tab layout
(``ok``, no pane id, ``ui_busy`` while open, ``popup.close``, ends with its process);
an overlay is a temporary zoomed pane over the focused one that gives the focus and
zoom back when it closes."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr.api import attach_messages as am
from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.attach_stream import COLS, ROWS, Stream
from herdr_testing.schema22 import assert_valid_response

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "plugins"
POPPER = FIXTURES / "popper"


@pytest.fixture
def server(herdr_env: HerdrEnv) -> ServerHandle:
    handle = ServerHandle(herdr_env, herdr_env.start_server())
    _ok(handle, "plugin.link", {"path": str(POPPER)})
    _ok(handle, "workspace.create", {"cwd": "/tmp"})
    return handle


@pytest.fixture
def stream(server: ServerHandle) -> Iterator[Stream]:
    attached = Stream(server.socket_path)
    yield attached
    attached.close()


def _ok(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    assert_valid_response(reply)
    result: dict[str, Any] = reply["result"]
    return result


def _error(server: ServerHandle, method: str, params: dict[str, Any]) -> str:
    reply = server.request(method, params)
    assert "error" in reply and "result" not in reply, reply
    assert_valid_response(reply)
    code: str = reply["error"]["code"]
    return code


def _open(server: ServerHandle, entry: str = "box", **extra: Any) -> dict[str, Any]:
    params = {"plugin_id": "test.popper", "entrypoint": entry, **extra}
    return server.request("plugin.pane.open", params)


def _opened(stream: Stream) -> am.PopupOpened:
    stream.pump(lambda: bool(stream.of(am.PopupOpened)))
    popup: am.PopupOpened = stream.of(am.PopupOpened)[-1]
    return popup


def _layout(server: ServerHandle) -> tuple[list[str], str, bool]:
    panes = [p["pane_id"] for p in _ok(server, "pane.list", {})["panes"]]
    layout = _ok(server, "pane.layout", {"pane_id": "w1:p1"})["layout"]
    return panes, layout["focused_pane_id"], layout["zoomed"]


def test_a_popup_is_a_pty_outside_every_layout(server: ServerHandle, stream: Stream) -> None:
    before = _layout(server)
    reply = _open(server)
    assert reply["result"] == {"type": "ok"}  # spec §9: popup launch answers ok
    popup = _opened(stream)
    assert popup.title == "Popper box" and popup.entrypoint == "box"
    # half the pane area by default, centred
    assert popup.rect == (COLS // 4, ROWS // 4, COLS // 2, ROWS // 2)
    stream.pump(lambda: "ready" in stream.text(popup.popup_id))
    inner = f"size={COLS // 2 - 2}x{ROWS // 2 - 2}"
    assert f"ready {inner} pane=none entry=box" in stream.text(popup.popup_id)
    assert _layout(server) == before  # not in any pane list; the layout is untouched
    params = {"pane_id": popup.popup_id, "source": "visible"}
    assert _error(server, "pane.read", params) == "pane_not_found"
    # keys sent on the stream with the popup's id reach its program
    stream.send({"t": "in", "pane_id": popup.popup_id, "data": "hello\r"})
    stream.pump(lambda: "got:hello" in stream.text(popup.popup_id))
    assert _ok(server, "popup.close", {}) == {"type": "ok"}
    stream.pump(lambda: bool(stream.of(am.PopupClosed)))
    assert stream.of(am.PopupClosed)[-1].popup_id == popup.popup_id
    assert _error(server, "popup.close", {}) == "popup_not_open"
    assert _layout(server) == before


def test_a_second_popup_is_ui_busy_and_changes_nothing(
    server: ServerHandle, stream: Stream
) -> None:
    assert "result" in _open(server)
    popup = _opened(stream)
    second = _open(server, "sized")
    assert second["error"]["code"] == "ui_busy"
    time.sleep(0.2)  # a second popup_opened would have been pushed by now
    stream.pump(lambda: True)
    assert [p.popup_id for p in stream.of(am.PopupOpened)] == [popup.popup_id]
    assert _ok(server, "ping", {})["type"] == "pong"


def test_keys_for_a_closed_popup_never_reach_the_pane_under_it(
    server: ServerHandle, stream: Stream
) -> None:
    assert "result" in _open(server)
    popup = _opened(stream)
    _ok(server, "popup.close", {})
    stream.pump(lambda: bool(stream.of(am.PopupClosed)))
    stream.send({"t": "in", "pane_id": popup.popup_id, "data": "echo leaked-key\r"})
    stream.send({"t": "in", "pane_id": "w1:p1", "data": "echo after-$((6*7))\r"})
    wait_until(lambda: "after-42" in _read(server, "w1:p1"), 15.0)
    assert "leaked-key" not in _read(server, "w1:p1")


def test_a_popup_that_ignores_hangups_is_killed_and_never_blocks(
    server: ServerHandle, stream: Stream
) -> None:
    assert "result" in _open(server, "stubborn")
    _opened(stream)
    pid_file = Path(server.env["XDG_STATE_HOME"]) / "herdr/plugins/test.popper/stubborn.pid"
    wait_until(pid_file.exists, 15.0)
    pid = int(pid_file.read_text())
    assert _ok(server, "popup.close", {}) == {"type": "ok"}
    assert _ok(server, "ping", {})["type"] == "pong"  # answered while it is being killed
    assert "result" in _open(server)  # the slot is free at once
    wait_until(lambda: not _alive(pid), 15.0)


def test_stopping_the_server_ends_the_popup_program(server: ServerHandle, stream: Stream) -> None:
    assert "result" in _open(server, "stubborn")
    _opened(stream)
    pid_file = Path(server.env["XDG_STATE_HOME"]) / "herdr/plugins/test.popper/stubborn.pid"
    wait_until(pid_file.exists, 15.0)
    pid = int(pid_file.read_text())
    assert server.server.stop() == 0
    wait_until(lambda: not _alive(pid), 15.0)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie is gone too (reaped by its parent)
        return stat.read().split(") ", 1)[1][0] != "Z"


def test_every_attached_client_sees_the_popup(server: ServerHandle, stream: Stream) -> None:
    other = Stream(server.socket_path)
    try:
        assert "result" in _open(server)
        popup = _opened(stream)
        assert _opened(other).popup_id == popup.popup_id
        other.send({"t": "in", "pane_id": popup.popup_id, "data": "from-other\r"})
        stream.pump(lambda: "got:from-other" in stream.text(popup.popup_id))
        _ok(server, "popup.close", {})
        other.pump(lambda: bool(other.of(am.PopupClosed)))
    finally:
        other.close()


def test_the_popup_closes_when_its_process_exits(server: ServerHandle, stream: Stream) -> None:
    assert "result" in _open(server)
    popup = _opened(stream)
    stream.pump(lambda: "ready" in stream.text(popup.popup_id))
    stream.send({"t": "in", "pane_id": popup.popup_id, "data": "quit\r"})
    stream.pump(lambda: bool(stream.of(am.PopupClosed)))
    assert _error(server, "popup.close", {}) == "popup_not_open"
    assert "result" in _open(server)  # the slot is free again


@pytest.mark.parametrize(
    ("params", "rect"),
    [
        ({"entrypoint": "sized"}, (35, 7, 30, 15)),  # the manifest's 30 cells x 50%
        ({"entrypoint": "sized", "width": "80%", "height": 10}, (10, 10, 80, 10)),
        ({"width": 0, "height": 1}, (45, 13, 10, 4)),  # under the minimum: raised to it
        ({"width": 5000, "height": "100%"}, (0, 0, COLS, ROWS)),  # over the area: cut
    ],
    ids=["manifest-size", "request-overrides", "minimum", "whole-area"],
)
def test_popup_sizes_in_cells_and_percent(
    server: ServerHandle, stream: Stream, params: dict[str, Any], rect: tuple[int, ...]
) -> None:
    entry = params.pop("entrypoint", "box")
    assert _open(server, entry, **params)["result"] == {"type": "ok"}
    assert _opened(stream).rect == rect


@pytest.mark.parametrize(
    "extra",
    [
        {"width": "150%"},
        {"width": "0%"},
        {"height": "abc"},
        {"width": -1},
        {"height": 70000},
        {"width": 1.5},
        {"height": True},
        {"placement": "popup", "target_pane_id": "w1:p1"},
        {"placement": "popup", "workspace_id": "w1"},
        {"placement": "overlay", "width": 20},
    ],
    ids=[
        "over-100%",
        "zero-percent",
        "not-a-size",
        "negative",
        "too-many-cells",
        "float",
        "bool",
        "popup-target",
        "popup-workspace",
        "overlay-width",
    ],
)
def test_bad_popup_params_are_invalid_and_change_nothing(
    server: ServerHandle, extra: dict[str, Any]
) -> None:
    before = _layout(server)
    reply = _open(server, "box", **extra)
    assert reply["error"]["code"] == "invalid_params", reply
    assert _error(server, "popup.close", {}) == "popup_not_open"
    assert _layout(server) == before


@pytest.mark.parametrize("entry", ["box", "cover"], ids=["popup", "overlay"])
def test_without_a_workspace_there_is_nothing_to_open_over(herdr_env: HerdrEnv, entry: str) -> None:
    server = ServerHandle(herdr_env, herdr_env.start_server())
    _ok(server, "plugin.link", {"path": str(POPPER)})
    assert _open(server, entry)["error"]["code"] == "plugin_pane_open_failed"
    assert _error(server, "popup.close", {}) == "popup_not_open"
    assert _ok(server, "pane.list", {})["panes"] == []


@pytest.mark.parametrize("entry", ["ghost-popup", "ghost"], ids=["popup", "overlay"])
def test_a_program_that_cannot_start_opens_nothing_and_changes_nothing(
    server: ServerHandle, entry: str
) -> None:
    _ok(server, "pane.split", {"target_pane_id": "w1:p1", "direction": "right", "focus": False})
    _ok(server, "pane.zoom", {"pane_id": "w1:p1", "mode": "on"})
    before = _layout(server)
    assert _open(server, entry)["error"]["code"] == "plugin_pane_open_failed"
    assert _layout(server) == before
    assert _error(server, "popup.close", {}) == "popup_not_open"


def test_a_plugin_action_opens_the_popup(server: ServerHandle, stream: Stream) -> None:
    invoked = _ok(server, "plugin.action.invoke", {"action_id": "test.popper.pop"})
    assert invoked["type"] == "plugin_action_invoked"
    popup = _opened(stream)
    assert popup.plugin_id == "test.popper" and popup.entrypoint == "box"
    stream.pump(lambda: "ready" in stream.text(popup.popup_id))


def test_the_cli_opens_a_popup_and_a_second_one_is_ui_busy(
    server: ServerHandle, stream: Stream
) -> None:
    argv = ["plugin", "pane", "open", "--plugin", "test.popper", "--entrypoint", "box"]
    first = server.cli(*argv, "--placement", "popup", "--width", "40", "--height", "50%")
    assert first.returncode == 0 and json.loads(first.stdout)["result"] == {"type": "ok"}
    assert _opened(stream).rect == (30, 7, 40, 15)
    second = server.cli(*argv, "--placement", "popup")
    assert second.returncode == 1
    assert json.loads(second.stderr)["error"]["code"] == "ui_busy"


def test_the_popup_follows_the_client_area(server: ServerHandle, stream: Stream) -> None:
    assert "result" in _open(server)
    popup = _opened(stream)
    stream.send({"t": "resize", "cols": 60, "rows": 20})
    stream.pump(lambda: stream.of(am.PopupOpened)[-1].rect == (15, 5, 30, 10))
    assert stream.of(am.PopupOpened)[-1].popup_id == popup.popup_id


def test_an_overlay_covers_the_focused_pane_and_gives_focus_and_zoom_back(
    server: ServerHandle, stream: Stream
) -> None:
    _ok(server, "pane.split", {"target_pane_id": "w1:p1", "direction": "right", "focus": False})
    before = _layout(server)
    opened = _ok(server, "plugin.pane.open", {"plugin_id": "test.popper", "entrypoint": "cover"})
    assert opened["type"] == "plugin_pane_opened"
    pane_id = opened["plugin_pane"]["pane"]["pane_id"]
    layout = _ok(server, "pane.layout", {"pane_id": pane_id})["layout"]
    assert layout["zoomed"] is True and layout["focused_pane_id"] == pane_id
    wait_until(lambda: "ready" in _read(server, pane_id), 15.0)
    assert f"pane={pane_id} entry=cover" in _read(server, pane_id)  # a normal pane
    _ok(server, "pane.send_input", {"pane_id": pane_id, "text": "typed", "keys": ["Enter"]})
    wait_until(lambda: "got:typed" in _read(server, pane_id), 15.0)
    # its process exits: the overlay closes, the focus and zoom come back
    _ok(server, "pane.send_input", {"pane_id": pane_id, "text": "quit", "keys": ["Enter"]})
    wait_until(lambda: _layout(server) == before, 15.0)
    assert not stream.of(am.PopupOpened)


def test_closing_an_overlay_restores_a_zoomed_tab(server: ServerHandle) -> None:
    _ok(server, "pane.split", {"target_pane_id": "w1:p1", "direction": "right", "focus": False})
    _ok(server, "pane.zoom", {"pane_id": "w1:p1", "mode": "on"})
    before = _layout(server)
    opened = _ok(server, "plugin.pane.open", {"plugin_id": "test.popper", "entrypoint": "cover"})
    pane_id = opened["plugin_pane"]["pane"]["pane_id"]
    assert _layout(server)[1] == pane_id
    _ok(server, "plugin.pane.close", {"pane_id": pane_id})
    assert _layout(server) == before


def _read(server: ServerHandle, pane_id: str) -> str:
    read = _ok(server, "pane.read", {"pane_id": pane_id, "source": "visible"})["read"]
    return str(read["text"])
