"""The whole agent loop against a real server and fake agents (issue 5 items 1, 3, 6).

Fake Claude Code / Codex / pi run in real panes under their agent names; the server
identifies them through /proc, reads their screens with the bundled manifests (or
takes pi's hook reports) and publishes states. Nothing here asserts a wall-clock
time: every step waits for an event, a response or a record.
"""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle, tools_path, wait_until
from herdr_testing.fake_env import (
    agent_server,
    code,
    launch,
    new_workspace,
    ok,
    pane_record,
    screen,
    status,
    wait_started,
    wait_status,
)

pytestmark = pytest.mark.slow


class Stream:
    """A raw subscription connection reading NDJSON lines."""

    def __init__(self, path: Path, subscriptions: list[dict[str, Any]]) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        self.sock.connect(str(path))
        line = {
            "id": "sub",
            "method": "events.subscribe",
            "params": {"subscriptions": subscriptions},
        }
        self.sock.sendall(json.dumps(line).encode() + b"\n")
        self.buf = b""
        started = self.next()
        assert started["result"]["type"] == "subscription_started", started

    def next(self) -> dict[str, Any]:
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            assert chunk, "stream ended"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        doc: dict[str, Any] = json.loads(line)
        return doc

    def until(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Read events until one of ``kind`` whose data has ``fields``; return its data."""
        while True:
            doc = self.next()
            data: dict[str, Any] = doc.get("data", {})
            if doc.get("event") == kind and all(data.get(k) == v for k, v in fields.items()):
                return data

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def agents(herdr_env: HerdrEnv) -> ServerHandle:
    return agent_server(herdr_env)


def _prompt(server: ServerHandle, target: str, text: str, **wait: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"target": target, "text": text}
    if wait:
        params["wait"] = wait
    return server.request("agent.prompt", params)


def test_claude_start_prompt_block_answer_idle(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    pane = f"{ws}:p1"
    stream = Stream(
        agents.socket_path,
        [
            {"type": "pane.agent_detected"},
            {"type": "pane.agent_status_changed", "pane_id": pane},
            {"type": "pane.updated"},
        ],
    )
    try:
        launch(agents, pane, "claude")
        detected = stream.until("pane_agent_detected", pane_id=pane)
        assert detected["agent"] == "claude"
        first_state = stream.until("pane.agent_status_changed")
        assert first_state["pane_id"] == pane

        prompted = ok(_prompt(agents, pane, "hello there", timeout_ms=20000))
        assert prompted["type"] == "agent_prompted"
        assert prompted["delivery"] == ["typed", "submitted", "turn_started"]
        assert prompted["agent"]["agent_status"] in ("idle", "done")
        assert "hello there" in screen(agents, pane)

        blocked = ok(_prompt(agents, pane, "please ask first", timeout_ms=20000))
        assert blocked["agent"]["agent_status"] == "blocked"
        stream.until("pane.agent_status_changed", agent_status="blocked")
        updated = stream.until("pane_updated")
        while updated["pane"]["agent_status"] != "blocked":
            updated = stream.until("pane_updated")
        assert updated["pane"]["pane_id"] == pane
        tab = ok(agents.request("tab.get", {"tab_id": f"{ws}:t1"}))["tab"]
        workspace = ok(agents.request("workspace.get", {"workspace_id": ws}))["workspace"]
        assert tab["agent_status"] == workspace["agent_status"] == "blocked"

        assert code(_prompt(agents, pane, "hi")) == "agent_blocked"
        assert "hi" not in screen(agents, pane).split("❯")[-1]

        ok(agents.request("agent.send_keys", {"target": pane, "keys": ["1"]}))
        settled = ok(
            agents.request(
                "agent.wait", {"target": pane, "until": ["idle", "done"], "timeout_ms": 20000}
            )
        )
        assert settled["agent"]["agent_status"] in ("idle", "done")
        wait_status(agents, pane, "idle", "done")
    finally:
        stream.close()


def test_done_in_background_until_the_tab_is_focused(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    pane = f"{ws}:p1"
    launch(agents, pane, "claude")
    ok(agents.request("tab.create", {"workspace_id": ws, "focus": True}))
    ok(_prompt(agents, pane, "finish in the background", timeout_ms=20000))
    assert status(agents, pane) == "done"
    tab = ok(agents.request("tab.get", {"tab_id": f"{ws}:t1"}))["tab"]
    assert tab["agent_status"] == "done"
    # Reads never mark seen; focusing the tab does.
    ok(agents.request("agent.get", {"target": pane}))
    assert status(agents, pane) == "done"
    ok(agents.request("tab.focus", {"tab_id": f"{ws}:t1"}))
    assert status(agents, pane) == "idle"


def test_agent_focus_marks_seen(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    pane = f"{ws}:p1"
    launch(agents, pane, "claude")
    ok(_prompt(agents, pane, "work", timeout_ms=20000))
    wait_status(agents, pane, "done")
    focused = ok(agents.request("agent.focus", {"target": pane}))
    assert focused["agent"]["agent_status"] == "idle"


def test_codex_blocker_cancel_and_transcript_viewer(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    pane = f"{ws}:p1"
    launch(agents, pane, "codex")
    blocked = ok(_prompt(agents, pane, "ask me", timeout_ms=20000))
    assert blocked["agent"]["agent_status"] == "blocked"
    explain = ok(agents.request("agent.explain", {"target": pane}))["explain"]
    assert explain["state"] == "blocked"
    assert explain["matched_rule"]["id"] == "live_strong_blocker"
    ok(agents.request("agent.send_keys", {"target": pane, "keys": ["esc"]}))
    wait_status(agents, pane, "idle", "done")
    before = pane_record(agents, pane)["agent_status"]
    ok(agents.request("agent.send_keys", {"target": pane, "keys": ["ctrl+o"]}))
    wait_until(lambda: "q to quit" in screen(agents, pane), timeout=10)
    explain = ok(agents.request("agent.explain", {"target": pane}))["explain"]
    assert explain["skip_state_update"] is True
    assert explain["skipped_update_reason"] == "matched_rule:transcript_viewer"
    assert status(agents, pane) == before


def test_pi_full_lifecycle_hooks(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    pane = f"{ws}:p1"
    started = ok(agents.request("agent.start", {"name": "pia", "kind": "pi", "pane_id": pane}))
    assert started["argv"] == ["pi"]
    assert started["agent"]["name"] == "pia"
    agent = wait_started(agents, pane, "pi")
    assert agent["name"] == "pia"
    assert agent["agent"] == "pi"
    assert agent["screen_detection_skipped"] is True
    assert agent["agent_session"]["source"] == "herdr:pi"
    explain = ok(agents.request("agent.explain", {"target": "pia"}))["explain"]
    assert explain["screen_detection_skipped"] is True
    assert explain["screen_detection_skip_reason"] == "full_lifecycle_hook_authority"
    assert explain["evaluated_rules"] == []

    blocked = ok(_prompt(agents, "pia", "ask please", timeout_ms=20000))
    assert blocked["agent"]["agent_status"] == "blocked"
    ok(agents.request("agent.send_keys", {"target": "pia", "keys": ["1"]}))
    done = ok(
        agents.request("agent.wait", {"target": "pia", "until": ["done"], "timeout_ms": 20000})
    )
    assert done["agent"]["agent_status"] == "done"


def test_agent_start_with_args_and_name_rules(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    p1 = f"{ws}:p1"
    p2 = str(
        ok(agents.request("pane.split", {"target_pane_id": p1, "direction": "right"}))["pane"][
            "pane_id"
        ]
    )
    started = ok(
        agents.request(
            "agent.start",
            {"name": "rev", "kind": "codex", "pane_id": p1, "args": ["--model", "x y"]},
        )
    )
    assert started["argv"] == ["codex", "--model", "x y"]
    assert wait_started(agents, p1, "codex")["interactive_ready"] is True
    taken = agents.request("agent.start", {"name": "rev", "kind": "claude", "pane_id": p2})
    assert code(taken) == "agent_name_taken"
    again = agents.request("agent.start", {"name": "other", "kind": "claude", "pane_id": p1})
    assert code(again) == "agent_pane_unavailable"
    missing = agents.request("agent.start", {"name": "other", "kind": "claude", "pane_id": "w9:p9"})
    assert code(missing) == "agent_pane_not_found"
    bad_arg = agents.request(
        "agent.start", {"name": "other", "kind": "claude", "pane_id": p2, "args": ["a\nb"]}
    )
    assert code(bad_arg) == "invalid_agent_argument"
    assert ok(agents.request("agent.get", {"target": "rev"}))["agent"]["pane_id"] == p1
    renamed = ok(agents.request("agent.rename", {"target": "rev", "name": "critic"}))
    assert renamed["agent"]["name"] == "critic"
    assert code(agents.request("agent.get", {"target": "rev"})) == "agent_not_found"
    assert code(agents.request("agent.rename", {"target": p1, "name": "Nope"})) == (
        "invalid_agent_name"
    )
    listed = ok(agents.request("agent.list", {}))["agents"]
    assert [a["name"] for a in listed] == ["critic"]


def test_wait_is_pinned_to_the_occupant(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    pane = f"{ws}:p1"
    launch(agents, pane, "claude")
    stream = Stream(agents.socket_path, [{"type": "pane.agent_detected"}])
    wait = {"target": pane, "until": ["working"]}
    line = json.dumps({"id": "w", "method": "agent.wait", "params": wait}).encode() + b"\n"
    # Sent (and so accepted by the server) before the agent is told to exit.
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(30)
        sock.connect(str(agents.socket_path))
        sock.sendall(line)
        ok(agents.request("pane.send_input", {"pane_id": pane, "text": "/exit", "keys": []}))
        ok(agents.request("pane.send_keys", {"pane_id": pane, "keys": ["Enter"]}))
        reply = json.loads(sock.makefile("rb").readline())
    assert code(reply) == "agent_not_running"
    try:
        released = stream.until("pane_agent_detected", pane_id=pane)
    finally:
        stream.close()
    assert released["released"] is True
    assert released["agent"] == "claude"
    assert released["final_status"] in ("idle", "done")
    # The shell is back: a new claude is a new occupant, reachable again.
    launch(agents, pane, "claude")
    assert ok(agents.request("agent.get", {"target": pane}))["agent"]["agent"] == "claude"


def test_wait_any_and_all(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    p1 = f"{ws}:p1"
    p2 = str(
        ok(agents.request("pane.split", {"target_pane_id": p1, "direction": "right"}))["pane"][
            "pane_id"
        ]
    )
    launch(agents, p1, "claude")
    launch(agents, p2, "codex")
    ok(_prompt(agents, p2, "ask now", timeout_ms=20000))
    first = ok(
        agents.request(
            "agent.wait",
            {"target": p1, "targets": [p1, p2], "mode": "any", "until": ["blocked"]},
        )
    )
    assert first["matched_target"] == p2
    assert first["agent"]["agent_status"] == "blocked"
    timed_out = agents.request(
        "agent.wait",
        {"target": p1, "targets": [p1, p2], "mode": "all", "until": ["blocked"], "timeout_ms": 300},
    )
    assert code(timed_out) == "timeout"
    both = ok(
        agents.request(
            "agent.wait",
            {
                "target": p1,
                "targets": [p1, p2],
                "mode": "all",
                "until": ["idle", "done", "blocked"],
            },
        )
    )
    assert [a["pane_id"] for a in both["agents"]] == [p1, p2]


def test_prompt_stalls_when_nothing_happens(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    pane = f"{ws}:p1"
    ok(
        agents.request(
            "pane.report_agent",
            {"pane_id": pane, "source": "custom:t", "agent": "bot", "state": "idle"},
        )
    )
    stalled = _prompt(agents, pane, "anyone there", timeout_ms=2000)
    assert code(stalled) == "timeout"
    stalled = _prompt(agents, pane, "anyone there", timeout_ms=60000)
    assert code(stalled) == "agent_prompt_stalled"


def test_read_and_manifest_methods(agents: ServerHandle) -> None:
    ws = new_workspace(agents)
    pane = f"{ws}:p1"
    launch(agents, pane, "claude")
    read = ok(agents.request("agent.read", {"target": pane, "source": "detection"}))["read"]
    assert "❯" in read["text"]
    manifests = ok(agents.request("server.agent_manifests", {}))
    assert manifests["type"] == "agent_manifest_status"
    claude = next(m for m in manifests["manifests"] if m["agent"] == "claude")
    assert claude["source_kind"] == "bundled"
    assert claude["active_version"]
    reloaded = ok(agents.request("server.reload_agent_manifests", {}))
    assert reloaded["type"] == "agent_manifest_reload"
    assert len(reloaded["manifests"]) == len(manifests["manifests"])
    # Detection starts over and finds the same agent again.
    wait_status(agents, pane, "idle", "done")
    assert pane_record(agents, pane)["agent"] == "claude"


def test_agent_start_answers_once_the_command_is_typed(herdr_env: HerdrEnv) -> None:
    """herdr 0.9: ``agent.start`` does not wait for the agent; the launch stays pending.

    ``qodercli`` is not on the test PATH: the shell types it and says "not found", so
    the agent never comes (waiting for it would time out).
    """
    herdr_env.env["PATH"] = tools_path(herdr_env.root, "sh")  # whatever this machine has
    server = agent_server(herdr_env)
    assert shutil.which("qodercli", path=server.env["PATH"]) is None
    ws = new_workspace(server)
    pane = f"{ws}:p1"
    p2 = ok(server.request("pane.split", {"target_pane_id": pane, "direction": "right"}))
    params = {"name": "gem", "kind": "qodercli", "pane_id": pane, "timeout_ms": 4000}
    started = ok(server.request("agent.start", params))
    assert started["type"] == "agent_started"
    assert started["argv"] == ["qodercli"]
    agent = started["agent"]
    assert (agent["pane_id"], agent["name"], agent["launch_pending"]) == (pane, "gem", True)
    assert agent["interactive_ready"] is False
    again = server.request("agent.start", {**params, "name": "gem2"})
    assert code(again) == "agent_launch_pending"
    taken = server.request("agent.start", {**params, "pane_id": p2["pane"]["pane_id"]})
    assert code(taken) == "agent_name_taken"

    # No qodercli ever owns the pane: once the timeout passed, the name is free again.
    other = {**params, "pane_id": p2["pane"]["pane_id"]}

    def restarted() -> dict[str, Any] | None:
        resp = server.request("agent.start", other)
        return ok(resp) if "result" in resp else None

    retried = wait_until(restarted, timeout=20, interval=0.2, message="name never released")
    assert retried is not None
    assert retried["agent"]["name"] == "gem"
    assert code(server.request("agent.get", {"target": pane})) == "agent_not_found"
