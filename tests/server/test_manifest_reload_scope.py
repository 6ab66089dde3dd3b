"""A manifest reload restarts only the panes of the agents whose rules changed
(detection-spec §7.6): a claude fix re-evaluates the claude pane and leaves a codex pane's
state, its change counter and its detection loop alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from herdr_testing import HerdrEnv, ServerHandle
from herdr_testing.fake_env import agent_server, launch, new_workspace, ok, wait_status
from herdr_testing.schema22 import assert_valid_result

CLAUDE_PROMPT_BLOCKED = """id = "claude"
version = "1"

[[rules]]
id = "override_marker"
state = "blocked"
priority = 1000
region = "bottom_non_empty_lines(12)"
line_regex = ['❯']
"""


def _agent(server: ServerHandle, pane: str) -> dict[str, Any]:
    agent: dict[str, Any] = ok(server.request("agent.get", {"target": pane}))["agent"]
    return agent


def _reload(server: ServerHandle) -> dict[str, Any]:
    result = ok(server.request("server.reload_agent_manifests", {}))
    assert_valid_result(result)
    return result


def test_claude_update_leaves_the_codex_pane_alone(herdr_env: HerdrEnv) -> None:
    server = agent_server(herdr_env, HERDR_AGENT_MANIFEST_WATCH_S="0")
    ws = new_workspace(server)
    claude = f"{ws}:p1"
    codex = str(
        ok(server.request("pane.split", {"target_pane_id": claude, "direction": "right"}))["pane"][
            "pane_id"
        ]
    )
    launch(server, claude, "claude")
    launch(server, codex, "codex")
    ok(server.request("pane.send_input", {"pane_id": codex, "text": "ask", "keys": ["Enter"]}))
    wait_status(server, codex, "blocked")
    before = _agent(server, codex)
    evidence_before = ok(server.request("agent.explain", {"target": codex}))["explain"]

    # nothing changed on disk: a reload changes and restarts nothing
    idle = _reload(server)
    assert idle["updated"] == [] and idle["restarted_pane_ids"] == []

    override = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "agent-detection"
    override.mkdir(parents=True)
    (override / "claude.toml").write_text(CLAUDE_PROMPT_BLOCKED, "utf-8")
    result = _reload(server)
    assert result["updated"] == [{"agent": "claude", "active_version": "1", "removed": False}]
    assert claude in result["restarted_pane_ids"]
    assert codex not in result["restarted_pane_ids"]
    wait_status(server, claude, "blocked")  # the claude pane re-evaluated with the fix

    after = _agent(server, codex)
    assert after["agent_status"] == "blocked"
    assert after["state_change_seq"] == before["state_change_seq"]
    explain = ok(server.request("agent.explain", {"target": codex}))["explain"]
    assert explain["manifest_source"] == "bundled"
    assert explain["matched_rule"] == evidence_before["matched_rule"]
    assert explain["state"] == evidence_before["state"] == "blocked"

    # editing the override again (no version bump) still counts as a change
    (override / "claude.toml").write_text(CLAUDE_PROMPT_BLOCKED + "\n# edited\n", "utf-8")
    again = _reload(server)
    assert [u["agent"] for u in again["updated"]] == ["claude"]
    assert codex not in again["restarted_pane_ids"]
