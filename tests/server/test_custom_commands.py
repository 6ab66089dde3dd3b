"""``custom_command.run`` on a real server: a ``[[keys.command]]`` of type ``pane`` is a
temporary zoomed pane over the active one that gives the focus and zoom back when its
command ends; ``popup`` runs in the session's popup. Both run ``/bin/sh -c`` with the
``HERDR_ACTIVE_*`` variables naming the pane the key was pressed over. Bad requests get
one error each and change nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr.api import attach_messages as am
from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.attach_stream import Stream
from herdr_testing.schema22 import assert_valid_response


@pytest.fixture
def server(herdr_env: HerdrEnv, tmp_path: Path) -> ServerHandle:
    handle = ServerHandle(herdr_env, herdr_env.start_server())
    work = tmp_path / "work dir"
    work.mkdir()
    _ok(handle, "workspace.create", {"cwd": str(work)})
    return handle


@pytest.fixture
def stream(server: ServerHandle) -> Iterator[Stream]:
    attached = Stream(server.socket_path)
    yield attached
    attached.close()


def _ok(server: ServerHandle, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def _error(server: ServerHandle, params: dict[str, Any]) -> str:
    reply = server.request("custom_command.run", params)
    assert "error" in reply and "result" not in reply, reply
    assert_valid_response(reply)
    code: str = reply["error"]["code"]
    return code


def _layout(server: ServerHandle) -> tuple[list[str], str, bool]:
    panes = [p["pane_id"] for p in _ok(server, "pane.list", {})["panes"]]
    layout = _ok(server, "pane.layout", {"pane_id": "w1:p1"})["layout"]
    return panes, layout["focused_pane_id"], layout["zoomed"]


def _env_dump(out: Path) -> str:
    names = " ".join(
        f"{n}=${n}"
        for n in (
            "HERDR_ACTIVE_WORKSPACE_ID",
            "HERDR_ACTIVE_TAB_ID",
            "HERDR_ACTIVE_PANE_ID",
            "HERDR_ACTIVE_PANE_CWD",
            "HERDR_ACTIVE_MACHINE",
        )
    )
    return f'printf "%s\\n" "{names}" "pwd=$(pwd)" "socket=${{HERDR_SOCKET_PATH:+set}}" > "{out}"'


def test_a_pane_command_covers_the_active_pane_and_gives_it_back(
    server: ServerHandle, tmp_path: Path
) -> None:
    work = str(tmp_path / "work dir")
    wait_until(lambda: _ok(server, "pane.get", {"pane_id": "w1:p1"})["pane"].get("cwd") == work)
    before = _layout(server)
    out = tmp_path / "pane-env.txt"
    gate = tmp_path / "gate"
    command = f'{_env_dump(out)}; while [ ! -e "{gate}" ]; do sleep 0.05; done'
    reply = server.request("custom_command.run", {"type": "pane", "command": command})
    assert_valid_response(reply)
    pane = reply["result"]["pane"]
    assert reply["result"]["type"] == "pane_info"
    new_id = pane["pane_id"]
    panes, focused, zoomed = _layout(server)
    assert new_id in panes and focused == new_id and zoomed  # over the active pane
    wait_until(out.exists, 15.0)
    text = out.read_text()
    assert (
        f"HERDR_ACTIVE_WORKSPACE_ID=w1 HERDR_ACTIVE_TAB_ID=w1:t1 HERDR_ACTIVE_PANE_ID=w1:p1 "
        f"HERDR_ACTIVE_PANE_CWD={work} HERDR_ACTIVE_MACHINE=local"
    ) in text
    assert f"pwd={work}" in text and "socket=set" in text
    gate.touch()  # the command ends: its pane closes, focus and zoom come back
    wait_until(lambda: _layout(server) == before, 15.0)


def test_a_popup_command_runs_in_the_session_popup(
    server: ServerHandle, stream: Stream, tmp_path: Path
) -> None:
    before = _layout(server)
    out = tmp_path / "popup-env.txt"
    params = {
        "type": "popup",
        "command": f"{_env_dump(out)}; echo popup-$((6*7)); read line",
        "description": "Env popup",
        "width": "80%",
        "height": 10,
    }
    reply = server.request("custom_command.run", params)
    assert_valid_response(reply)
    assert reply["result"] == {"type": "ok"}
    stream.pump(lambda: bool(stream.of(am.PopupOpened)))
    popup = stream.of(am.PopupOpened)[-1]
    assert popup.title == "Env popup" and popup.rect[2:] == (80, 10)
    stream.pump(lambda: "popup-42" in stream.text(popup.popup_id))
    assert "HERDR_ACTIVE_PANE_ID=w1:p1" in out.read_text()
    assert _layout(server) == before  # a popup is in no layout
    assert _error(server, {"type": "popup", "command": "true"}) == "ui_busy"
    assert _error(server, {"type": "pane", "command": "true"}) == "ui_busy"
    stream.send({"t": "in", "pane_id": popup.popup_id, "data": "\r"})  # `read` returns
    stream.pump(lambda: bool(stream.of(am.PopupClosed)))
    assert _layout(server) == before


@pytest.mark.parametrize(
    ("params", "code"),
    [
        pytest.param({"type": "pane", "command": ""}, "invalid_params", id="empty"),
        pytest.param({"type": "pane", "command": "   "}, "invalid_params", id="blank"),
        pytest.param({"type": "pane", "command": "a\x00b"}, "invalid_params", id="nul"),
        pytest.param({"type": "pane", "command": "x" * 9000}, "invalid_params", id="too-long"),
        pytest.param({"type": "shell", "command": "true"}, "invalid_request", id="shell-type"),
        pytest.param({"command": "true"}, "invalid_request", id="no-type"),
        pytest.param({"type": "pane", "command": 7}, "invalid_request", id="not-text"),
        pytest.param(
            {"type": "pane", "command": "true", "pane_id": "w9:p9"}, "pane_not_found", id="pane"
        ),
        pytest.param(
            {"type": "popup", "command": "true", "width": "0%"}, "invalid_params", id="width"
        ),
    ],
)
def test_bad_requests_get_one_error_and_change_nothing(
    server: ServerHandle, params: dict[str, Any], code: str
) -> None:
    before = _layout(server)
    assert _error(server, params) == code
    time.sleep(0.1)
    assert _layout(server) == before
    reply = server.request("popup.close", {})
    assert reply["error"]["code"] == "popup_not_open"
