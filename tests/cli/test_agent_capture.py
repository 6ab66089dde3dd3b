"""``herdr agent capture`` → fixture → ``herdr agent explain --file`` replays it exactly.

Real server, real PTYs, the fake agents of herdr_testing.fake_env (found on PATH
by name, so process identification is the real one), the real CLI.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from herdr.detect.capture import CAPTURE_FORMAT
from herdr_testing import HerdrEnv, ServerHandle
from herdr_testing.captures import check_capture
from herdr_testing.fake_env import agent_server, launch, new_workspace, ok, wait_status

pytestmark = pytest.mark.slow


@pytest.fixture
def agents(herdr_env: HerdrEnv) -> ServerHandle:
    return agent_server(herdr_env)


def _capture(server: ServerHandle, target: str, out: Path) -> dict[str, Any]:
    done = server.cli("agent", "capture", target, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"wrote {out}: ")
    doc: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return doc


def _replay(server: ServerHandle, path: Path, *extra: str) -> dict[str, Any]:
    done = server.cli("agent", "explain", "--file", str(path), "--json", *extra)
    assert done.returncode == 0, done.stderr
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def _blocked_codex(server: ServerHandle) -> str:
    pane = f"{new_workspace(server)}:p1"
    launch(server, pane, "codex")
    blocked = ok(
        server.request(
            "agent.prompt", {"target": pane, "text": "ask me", "wait": {"timeout_ms": 20000}}
        )
    )
    assert blocked["agent"]["agent_status"] == "blocked"
    return pane


def test_capture_of_a_blocked_agent_replays_the_same_verdict(
    agents: ServerHandle, tmp_path: Path
) -> None:
    pane = _blocked_codex(agents)
    live = ok(agents.request("agent.explain", {"target": pane}))["explain"]
    out = tmp_path / "codex-blocked.json"
    doc = _capture(agents, pane, out)
    assert doc["format"] == CAPTURE_FORMAT
    assert (doc["agent"], doc["pane_id"]) == ("codex", pane)
    assert doc["osc_title"] == live["osc_title"] == "proj"
    assert doc["verdict"]["state"] == "blocked"
    assert doc["verdict"]["rule"] == live["matched_rule"]["id"]
    assert doc["expected"] == {"state": "blocked", "rule": doc["verdict"]["rule"]}
    assert doc["process"]["detected_agent"] == "codex"
    # The fake agent is a python script run through a ``codex`` symlink.
    argvs = [" ".join(proc["argv"]) for proc in doc["process"]["foreground_processes"]]
    assert any(argv.endswith("/codex") for argv in argvs), argvs
    assert doc["screen"].strip()
    replayed = _replay(agents, out)
    assert (replayed["state"], replayed["matched_rule"]["id"]) == (
        "blocked",
        doc["verdict"]["rule"],
    )
    assert replayed["osc_title"] == "proj"
    assert replayed["capture"]["recorded_state"] == "blocked"
    # The test helper agrees: this file, dropped in tests/detect/data/captures/, is a test.
    assert check_capture(out).state == "blocked"


def test_capture_to_stdout_and_text_replay(agents: ServerHandle, tmp_path: Path) -> None:
    pane = f"{new_workspace(agents)}:p1"
    launch(agents, pane, "claude")
    wait_status(agents, pane, "idle", "done")
    done = agents.cli("agent", "capture", pane)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["agent"] == "claude"
    path = tmp_path / "c.json"
    path.write_text(done.stdout, encoding="utf-8")
    text = agents.cli("agent", "explain", "--file", str(path))
    assert text.returncode == 0, text.stderr
    assert f"state: {doc['verdict']['state']}" in text.stdout
    assert "capture: recorded " in text.stdout


def test_command_line_osc_title_overrides_the_captured_one(
    agents: ServerHandle, tmp_path: Path
) -> None:
    pane = _blocked_codex(agents)
    out = tmp_path / "c.json"
    _capture(agents, pane, out)
    replayed = _replay(agents, out, "--osc-title", "proj Action Required")
    assert replayed["osc_title"] == "proj Action Required"
    assert replayed["matched_rule"]["id"] == "osc_title_blocked"


def test_live_explain_json_shows_the_osc_title(agents: ServerHandle) -> None:
    pane = _blocked_codex(agents)
    done = agents.cli("agent", "explain", pane, "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["osc_title"] == "proj"
    assert doc["osc_progress"] == ""
    assert "detection_input" not in doc  # only when asked for
    # why the deciding rule matched: the fake approval overlay's own lines
    assert any("Press enter to confirm" in line for line in doc["matched_lines"])
    text = agents.cli("agent", "explain", pane)
    assert "\nmatched: " in text.stdout


@pytest.mark.parametrize(
    ("params", "code"),
    [
        pytest.param({"target": "nope", "include_input": True}, "agent_not_found", id="no-agent"),
        pytest.param({"target": "x", "include_input": "yes"}, "invalid_request", id="not-bool"),
    ],
)
def test_bad_capture_requests_get_one_specific_error(
    agents: ServerHandle, params: dict[str, Any], code: str
) -> None:
    resp = agents.request("agent.explain", params)
    assert resp["error"]["code"] == code, resp
    assert ok(agents.request("ping", {}))["type"] == "pong"


def test_capture_errors_leave_no_file(agents: ServerHandle, tmp_path: Path) -> None:
    missing = agents.cli("agent", "capture", "nope", "--out", str(tmp_path / "x.json"))
    assert missing.returncode == 1
    assert not (tmp_path / "x.json").exists()
    pane = f"{new_workspace(agents)}:p1"
    launch(agents, pane, "pi")
    bad_dir = agents.cli("agent", "capture", pane, "--out", str(tmp_path / "no" / "x.json"))
    assert bad_dir.returncode == 1
    assert "cannot write capture" in bad_dir.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param('{"format": "%s", "agent": 1}', "'agent' must be a string", id="agent-type"),
        pytest.param(
            '{"format": "%s", "agent": "codex", "screen": "", "verdict": {"state": "odd"}}',
            "'verdict.state' must be one of",
            id="bad-state",
        ),
        pytest.param('{"format": "%s", ', "not valid JSON", id="truncated"),
    ],
)
def test_invalid_capture_files_are_one_clear_error(
    herdr_env: HerdrEnv, tmp_path: Path, body: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(body % CAPTURE_FORMAT, encoding="utf-8")
    done = herdr_env.cli("agent", "explain", "--file", str(path), "--json")
    assert done.returncode == 1
    assert message in done.stderr
    assert done.stdout == ""
