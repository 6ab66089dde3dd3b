"""A ``[[keys.command]]`` of type ``plugin_action`` invokes the plugin action on a real
server, with the TUI's focused workspace/tab/pane as the invocation context."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from herdr.client import actions as a
from herdr.client.app import App
from herdr.client.settings import UiSettings
from herdr_testing import ServerHandle, wait_until
from herdr_testing.state_docs import one_pane_state

RECORDER = Path(__file__).resolve().parents[1] / "fixtures" / "plugins" / "recorder"


def _logs(server: ServerHandle) -> list[dict[str, Any]]:
    logs: list[dict[str, Any]] = server.request("plugin.log.list", {})["result"]["logs"]
    return logs


def test_plugin_action_key_command_invokes_with_the_focused_context(
    herdr_server: ServerHandle,
) -> None:
    server = herdr_server
    assert "result" in server.request("plugin.link", {"path": str(RECORDER)})
    assert "result" in server.request("workspace.create", {"cwd": "/tmp"})
    read_end, write_end = os.pipe()
    app = App(str(server.socket_path), settings=UiSettings(), fd_out=write_end)
    command = a.CustomCommand("plugin_action", "test.recorder.record")

    async def scenario() -> None:
        app.apply_state(one_pane_state())
        app.do(a.RunCommand(command))
        while app._tasks:
            await asyncio.gather(*list(app._tasks))

    try:
        asyncio.run(scenario())
    finally:
        os.close(read_end)
        os.close(write_end)
    assert app.message == ""  # no error notice
    runs = Path(server.env["XDG_STATE_HOME"]) / "herdr/plugins/test.recorder/runs.jsonl"

    def action_run() -> dict[str, Any] | None:
        if not runs.exists():
            return None
        found = [json.loads(x) for x in runs.read_text().splitlines()]
        return next((r for r in found if r["argv"][0] == "action"), None)

    run = wait_until(action_run, 20.0)
    assert run is not None
    context = json.loads(run["env"]["HERDR_PLUGIN_CONTEXT_JSON"])
    assert context["invocation_source"] == "keybinding"
    assert (context["workspace_id"], context["tab_id"], context["focused_pane_id"]) == (
        "w1",
        "w1:t1",
        "w1:p1",
    )
