"""``[[keys.command]]`` of types ``shell``, ``pane`` and ``popup`` from the TUI: the
config is read with popup sizes, ``shell`` runs detached here with herdr's environment,
``pane`` and ``popup`` open on a real server over the focused pane."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from herdr.client import actions as a
from herdr.client import custom_commands as cc
from herdr.client.app import App
from herdr.client.bindings import load_bindings
from herdr.client.settings import UiSettings
from herdr_testing import ServerHandle, wait_until
from herdr_testing.state_docs import one_pane_state

PANE = {"pane_id": "w1:p2", "workspace_id": "w1", "tab_id": "w1:t1", "cwd": "/tmp"}


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        pytest.param({"width": 40, "height": 12}, (40, 12), id="cells"),
        pytest.param({"width": "80%", "height": "100%"}, ("80%", "100%"), id="percent"),
        pytest.param({"width": 0, "height": -3}, (None, None), id="not-positive"),
        pytest.param({"width": "0%", "height": "101%"}, (None, None), id="percent-range"),
        pytest.param({"width": True, "height": "12"}, (None, None), id="wrong-types"),
        pytest.param({}, (None, None), id="absent"),
    ],
)
def test_popup_sizes_are_read_from_the_config(
    entry: dict[str, Any], expected: tuple[Any, Any]
) -> None:
    keys = {"command": [{"key": "prefix+u", "type": "popup", "command": "htop", **entry}]}
    bindings, errors = load_bindings(keys)
    assert not errors
    (run,) = [b for b in bindings.prefix_keys.values() if isinstance(b, a.RunCommand)]
    assert (run.command.width, run.command.height) == expected


@pytest.mark.parametrize(
    ("base", "pane", "machine", "expected"),
    [
        pytest.param(
            {"PATH": "/bin", "HERDR_PANE_ID": "w9:p9", "HERDR_ACTIVE_TAB_ID": "old"},
            PANE,
            None,
            {
                "PATH": "/bin",
                "HERDR_SOCKET_PATH": "/s.sock",
                "HERDR_ACTIVE_MACHINE": "local",
                "HERDR_ACTIVE_WORKSPACE_ID": "w1",
                "HERDR_ACTIVE_TAB_ID": "w1:t1",
                "HERDR_ACTIVE_PANE_ID": "w1:p2",
                "HERDR_ACTIVE_PANE_CWD": "/tmp",
            },
            id="a-pane-replaces-stale-ids",
        ),
        pytest.param(
            {"HOME": "/h"},
            None,
            "build-box",
            {"HOME": "/h", "HERDR_SOCKET_PATH": "/s.sock", "HERDR_ACTIVE_MACHINE": "build-box"},
            id="no-pane-on-a-machine",
        ),
        pytest.param(
            {},
            {"pane_id": "w1:p1", "cwd": ""},
            None,
            {
                "HERDR_SOCKET_PATH": "/s.sock",
                "HERDR_ACTIVE_MACHINE": "local",
                "HERDR_ACTIVE_PANE_ID": "w1:p1",
            },
            id="no-cwd-known",
        ),
    ],
)
def test_shell_env(
    base: dict[str, str], pane: dict[str, Any] | None, machine: str | None, expected: dict[str, str]
) -> None:
    env = cc.shell_env(base, socket_path="/s.sock", pane=pane, machine=machine)
    assert env.pop("HERDR_BIN_PATH")
    assert env == expected


@pytest.mark.parametrize(
    ("pane", "expected"),
    [
        pytest.param({"cwd": "/tmp"}, "/tmp", id="a-directory"),
        pytest.param({"cwd": "/no/such/dir"}, None, id="gone"),
        pytest.param({"cwd": "relative"}, None, id="relative"),
        pytest.param(None, None, id="no-pane"),
    ],
)
def test_shell_cwd(pane: dict[str, Any] | None, expected: str | None) -> None:
    assert cc.shell_cwd(pane) == expected


def _dump(out: Path) -> str:
    return (
        f'printf "%s\\n" "pane=$HERDR_ACTIVE_PANE_ID" "cwd=$HERDR_ACTIVE_PANE_CWD" '
        f'"pwd=$(pwd)" "sid=$(ps -o sid= -p $$)" "in=$(readlink /proc/$$/fd/0)" > "{out}.tmp"'
        f' && mv "{out}.tmp" "{out}"'
    )


def _run(app: App, *actions: a.Action, cwd: str) -> None:
    async def scenario() -> None:
        app.apply_state(one_pane_state(cwd))
        for action in actions:
            app.do(action)
        while app._tasks:
            await asyncio.gather(*list(app._tasks))

    asyncio.run(scenario())


def test_a_shell_command_runs_detached_with_herdrs_environment(tmp_path: Path) -> None:
    out = tmp_path / "shell.txt"
    read_end, write_end = os.pipe()
    app = App(str(tmp_path / "none.sock"), settings=UiSettings(), fd_out=write_end)
    try:
        _run(app, a.RunCommand(a.CustomCommand("shell", _dump(out))), cwd=str(tmp_path))
    finally:
        os.close(read_end)
        os.close(write_end)
    wait_until(out.exists, 15.0)
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert lines["pane"] == "w1:p1" and lines["cwd"] == str(tmp_path)
    assert lines["pwd"] == str(tmp_path)
    assert int(lines["sid"]) != os.getsid(0)  # its own session: never the TUI's terminal
    assert lines["in"] == "/dev/null"
    assert app.message == ""


def test_a_shell_command_that_cannot_start_says_so(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    app = App(str(tmp_path / "none.sock"), settings=UiSettings(), fd_out=write_end)
    original = cc.SHELL
    cc.SHELL = str(tmp_path / "no-such-shell")
    try:
        _run(app, a.RunCommand(a.CustomCommand("shell", "true")), cwd=str(tmp_path))
    finally:
        cc.SHELL = original
        os.close(read_end)
        os.close(write_end)
    assert app.message.startswith("custom command failed:")


def test_pane_and_popup_commands_open_on_the_server(
    herdr_server: ServerHandle, tmp_path: Path
) -> None:
    server = herdr_server
    assert "result" in server.request("workspace.create", {"cwd": str(tmp_path)})
    gate = tmp_path / "gate"
    wait_cmd = f'while [ ! -e "{gate}" ]; do sleep 0.05; done'
    read_end, write_end = os.pipe()
    app = App(str(server.socket_path), settings=UiSettings(), fd_out=write_end)
    try:
        _run(app, a.RunCommand(a.CustomCommand("pane", wait_cmd, "Waiter")), cwd=str(tmp_path))
        panes = server.request("pane.list", {})["result"]["panes"]
        assert [p["label"] for p in panes if p["pane_id"] != "w1:p1"] == ["Waiter"]
        assert server.request("pane.layout", {"pane_id": "w1:p1"})["result"]["layout"]["zoomed"]
        _run(
            app,
            a.RunCommand(a.CustomCommand("popup", wait_cmd, "", 30, "50%")),
            cwd=str(tmp_path),
        )
        assert app.message == ""
        # the popup is open: a second one is busy, and popup.close closes it
        assert server.request("popup.close", {})["result"] == {"type": "ok"}
    finally:
        gate.touch()
        os.close(read_end)
        os.close(write_end)
    wait_until(lambda: len(server.request("pane.list", {})["result"]["panes"]) == 1, 15.0)
