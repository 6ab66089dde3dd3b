"""A pane's OSC title in its record: raw, and stripped of the agent's activity glyph."""

from __future__ import annotations

from herdr_testing import ServerHandle, wait_until
from herdr_testing.fake_env import new_workspace, ok, pane_record


def test_stripped_title_drops_the_activity_glyph(shared_server: ServerHandle) -> None:
    ws = new_workspace(shared_server)
    pane = str(
        ok(shared_server.request("tab.create", {"workspace_id": ws}))["root_pane"]["pane_id"]
    )
    # printf's octal escapes spell "✳" so the shell's locale cannot mangle it.
    command = r"printf '\033]0;\342\234\263 Claude Code\007'"
    ok(
        shared_server.request(
            "pane.send_input", {"pane_id": pane, "text": command, "keys": ["Enter"]}
        )
    )
    wait_until(
        lambda: pane_record(shared_server, pane).get("terminal_title") == "✳ Claude Code",
        message="the OSC title never reached the pane record",
    )
    assert pane_record(shared_server, pane)["terminal_title_stripped"] == "Claude Code"
