"""A user-defined agent kind under a real server: identified, detected, started, reloaded."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.fake_env import new_workspace, ok, pane_record, wait_started, wait_status
from herdr_testing.schema22 import assert_valid_result
from herdr_testing.zork_kind import FAKE_ZORK, MANIFEST

KIND = """label = "zork"
name = "Zork"
process_names = ["zork"]
"""


@pytest.fixture
def zork(herdr_env: HerdrEnv) -> ServerHandle:
    bin_dir = herdr_env.root / "zork-bin"
    bin_dir.mkdir()
    (bin_dir / "zork").symlink_to(FAKE_ZORK)
    agents = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "agents"
    agents.mkdir(parents=True)
    (agents / "zork.toml").write_text(KIND, "utf-8")
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    herdr_env.env["PATH"] = f"{bin_dir}{os.pathsep}{herdr_env.env.get('PATH', '')}"
    return ServerHandle(herdr_env, herdr_env.start_server())


def _agents_dir(server: ServerHandle) -> Path:
    return Path(server.env["XDG_CONFIG_HOME"]) / "herdr" / "agents"


def _explain(server: ServerHandle, target: str) -> dict[str, Any]:
    result = ok(server.request("agent.explain", {"target": target}))
    assert_valid_result(result)
    explain: dict[str, Any] = result["explain"]
    return explain


def test_user_kind_is_started_identified_and_detected(zork: ServerHandle) -> None:
    pane = f"{new_workspace(zork)}:p1"
    started = ok(zork.request("agent.start", {"name": "z", "kind": "zork", "pane_id": pane}))
    assert_valid_result(started)
    assert started["argv"] == ["zork"]
    wait_started(zork, pane, "zork")
    assert wait_status(zork, pane, "idle", "done") in ("idle", "done")

    ok(zork.request("pane.send_input", {"pane_id": pane, "text": "ask", "keys": ["Enter"]}))
    wait_status(zork, pane, "blocked")
    explain = _explain(zork, pane)
    assert explain["agent"] == "zork"
    assert explain["matched_rule"]["id"] == "zork_permission"
    assert explain["manifest_decided_by"]["source"] == "user kind"
    assert explain["manifest_decided_by"]["version"] == "2026.12.1"

    ok(zork.request("pane.send_input", {"pane_id": pane, "text": "y", "keys": ["Enter"]}))
    wait_status(zork, pane, "idle", "done")
    listed = ok(zork.request("agent.list", {}))
    assert_valid_result(listed)
    assert [(a["name"], a["agent"]) for a in listed["agents"]] == [("z", "zork")]


def test_edit_hot_reloads_and_invalid_edit_keeps_the_kind(zork: ServerHandle) -> None:
    pane = f"{new_workspace(zork)}:p1"
    ok(zork.request("agent.start", {"name": "z", "kind": "zork", "pane_id": pane}))
    wait_started(zork, pane, "zork")
    agents = _agents_dir(zork)

    # a new manifest version, applied by reload: "zork>" now reads as blocked
    edited = MANIFEST.replace('version = "2026.12.1"', 'version = "2026.12.2"').replace(
        'contains = ["Allow this action?"]', 'contains = ["zork>"]'
    )
    (agents / "zork.manifest.toml").write_text(edited, "utf-8")
    reloaded = ok(zork.request("server.reload_agent_manifests", {}))
    assert_valid_result(reloaded)
    zork_info = [m for m in reloaded["manifests"] if m["agent"] == "zork"]
    assert zork_info and zork_info[0]["active_version"] == "2026.12.2"
    wait_status(zork, pane, "blocked")

    # an invalid edit: one diagnostic, the running kind and manifest stay
    (agents / "zork.manifest.toml").write_text(edited + "\n[[rules]]\nid = 3\n", "utf-8")
    reloaded = ok(zork.request("server.reload_agent_manifests", {}))
    assert_valid_result(reloaded)
    zork_info = [m for m in reloaded["manifests"] if m["agent"] == "zork"]
    assert zork_info and zork_info[0]["active_version"] == "2026.12.2"
    warning = zork_info[0]["warning"]
    assert isinstance(warning, str) and "zork.manifest.toml:" in warning
    assert pane_record(zork, pane)["agent"] == "zork"
    assert _explain(zork, pane)["manifest_version"] == "2026.12.2"
    refused = zork.request("agent.start", {"name": "y", "kind": "nope", "pane_id": pane})
    assert refused["error"]["code"] == "unsupported_agent_kind"
    assert "zork" in refused["error"]["message"]
    wait_until(lambda: pane_record(zork, pane)["agent_status"] == "blocked", timeout=10)
