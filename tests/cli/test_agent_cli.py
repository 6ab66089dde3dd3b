"""herdr-spec §10 scenarios 25–27, 30 and 34, and the agent/report verbs, via the CLI."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from herdr.cli.agent import launch_state
from herdr_testing import HERDR, HerdrEnv, ServerHandle, tools_path, wait_until
from herdr_testing.fake_env import agent_server, launch, new_workspace, pane_record

pytestmark = pytest.mark.slow


def ok(server: ServerHandle, *args: str) -> dict[str, Any]:
    result = server.cli(*args)
    assert result.returncode == 0, f"{args}: {result.stderr}"
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc["result"]  # type: ignore[no-any-return]


def err(server: ServerHandle, *args: str) -> str:
    result = server.cli(*args)
    assert result.returncode == 1, f"{args}: rc={result.returncode} {result.stdout}"
    assert result.stdout == ""
    return str(json.loads(result.stderr)["error"]["code"])


def silent(server: ServerHandle, *args: str) -> None:
    result = server.cli(*args)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""


@pytest.fixture
def server(herdr_env: HerdrEnv) -> ServerHandle:
    return agent_server(herdr_env)


@pytest.fixture
def ws(server: ServerHandle) -> str:
    return new_workspace(server, focus=False)


REPORT = ("pane", "report-agent", "--source", "custom:t", "--agent", "bot")


def test_25_26_27_30_custom_reporter(server: ServerHandle, ws: str) -> None:
    pane = f"{ws}:p1"
    # 25: silent report; agent list shows it; wait --until working returns at once.
    silent(server, *REPORT[:2], pane, *REPORT[2:], "--state", "working")
    agents = ok(server, "agent", "list")["agents"]
    assert [(a["pane_id"], a["agent"], a["agent_status"]) for a in agents] == [
        (pane, "bot", "working")
    ]
    waited = ok(server, "agent", "wait", pane, "--until", "working")
    assert waited["agent"]["agent_status"] == "working"
    silent(server, *REPORT[:2], pane, *REPORT[2:], "--seq", "5", "--state", "working")
    silent(server, *REPORT[:2], pane, *REPORT[2:], "--seq", "3", "--state", "idle")
    assert pane_record(server, pane)["agent_status"] == "working"

    # 26: a background wait for blocked ends when blocked is reported; rollups follow.
    waiter = subprocess.Popen(
        [*HERDR, "agent", "wait", pane, "--until", "blocked", "--timeout", "10000"],
        env=server.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        silent(server, *REPORT[:2], pane, *REPORT[2:], "--seq", "6", "--state", "blocked")
        out, errs = waiter.communicate(timeout=20)
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()
    assert waiter.returncode == 0, errs
    assert json.loads(out)["result"]["agent"]["agent_status"] == "blocked"
    assert ok(server, "tab", "get", f"{ws}:t1")["tab"]["agent_status"] == "blocked"
    assert ok(server, "workspace", "get", ws)["workspace"]["agent_status"] == "blocked"

    # 27: prompting a blocked agent fails and types nothing.
    assert err(server, "agent", "prompt", pane, "hi") == "agent_blocked"
    visible = server.cli("pane", "read", pane, "--source", "visible").stdout
    assert "hi" not in visible

    # 30: a name goes away with the release.
    assert ok(server, "agent", "rename", pane, "reviewer")["agent"]["name"] == "reviewer"
    assert ok(server, "agent", "get", "reviewer")["agent"]["pane_id"] == pane
    release = ("pane", "release-agent", pane, "--source", "custom:t", "--agent", "bot")
    # This source has sequenced its reports, so an unsequenced release is stale (§9.5).
    silent(server, *release)
    assert ok(server, "agent", "get", "reviewer")["agent"]["pane_id"] == pane
    silent(server, *release, "--seq", "7")
    assert err(server, "agent", "get", "reviewer") == "agent_not_found"
    assert ok(server, "agent", "list")["agents"] == []


def test_wait_timeout_and_usage(server: ServerHandle, ws: str) -> None:
    pane = f"{ws}:p1"
    silent(server, *REPORT[:2], pane, *REPORT[2:], "--state", "working")
    assert err(server, "agent", "wait", pane, "--until", "idle", "--timeout", "200") == "timeout"
    usage = server.cli("agent", "prompt", pane, "hi", "--until", "idle")
    assert usage.returncode == 2
    usage = server.cli("agent", "wait", pane, pane)
    assert usage.returncode == 2


def test_34_agent_start_errors(server: ServerHandle, ws: str) -> None:
    pane = f"{ws}:p1"
    assert err(server, "agent", "start", "Bad", "--kind", "codex", "--pane", pane) == (
        "invalid_agent_name"
    )
    assert err(server, "agent", "start", "x", "--kind", "nosuch", "--pane", pane) == (
        "unsupported_agent_kind"
    )
    assert err(
        server, "agent", "start", "x", "--kind", "codex", "--pane", pane, "--timeout", "1000"
    ) == ("invalid_agent_timeout")
    silent(server, "pane", "run", pane, "sleep 100")
    wait_until(
        lambda: (
            err(server, "agent", "start", "x", "--kind", "codex", "--pane", pane)
            == "agent_pane_busy"
        ),
        timeout=10,
    )


@pytest.mark.parametrize(
    ("record", "state"),
    [
        ({"agent": "codex", "interactive_ready": True}, "ready"),
        ({"agent": "codex", "interactive_ready": True, "launch_pending": True}, "pending"),
        ({"agent": "codex", "agent_status": "blocked"}, "blocked"),
        ({"agent": "claude", "interactive_ready": True}, "pending"),
        ({"agent_status": "unknown"}, "pending"),
    ],
    ids=["ready", "still-pending", "blocked", "other-agent", "no-agent"],
)
def test_launch_state(record: dict[str, Any], state: str) -> None:
    assert launch_state(record, "codex") == state


def test_cli_start_waits_for_the_agent_and_times_out(server: ServerHandle, ws: str) -> None:
    """The server answers once the command is typed; the CLI waits for the agent (§3.3)."""
    pane = f"{ws}:p1"
    # The pane's shell gets a PATH holding only sh, whatever this machine has installed:
    # qodercli is then "not found" and never comes.
    only_sh = tools_path(server.root / "only-sh", "sh")
    ran = server.request(
        "pane.send_text",
        {"pane_id": pane, "text": f"export PATH={only_sh}; echo path-$((6 * 7))\r"},
    )
    assert "result" in ran, ran
    seen = server.request(
        "pane.wait_for_output",
        {
            "pane_id": pane,
            "source": "recent",
            "match": {"type": "substring", "value": "path-42"},
            "timeout_ms": 10_000,
        },
    )
    assert "result" in seen, seen
    start = ("agent", "start", "q", "--kind", "qodercli", "--pane", pane, "--timeout", "3500")
    assert err(server, *start) == "timeout"


def test_start_prompt_wait_read_through_the_cli(server: ServerHandle, ws: str) -> None:
    pane = f"{ws}:p1"
    started = ok(server, "agent", "start", "cc", "--kind", "claude", "--pane", pane, "--", "-v")
    assert started["argv"] == ["claude", "-v"]
    prompted = ok(server, "agent", "prompt", "cc", "please", "ask", "--wait", "--timeout", "20000")
    assert prompted["agent"]["agent_status"] == "blocked"
    assert prompted["delivery"] == ["typed", "submitted", "turn_started"]
    silent(server, "agent", "send-keys", "cc", "2")
    done = ok(server, "agent", "wait", "cc", "--until", "done", "--timeout", "20000")
    assert done["agent"]["agent_status"] == "done"
    text = server.cli("agent", "read", "cc", "--source", "recent").stdout
    assert "Cancelled" in text
    focused = ok(server, "agent", "focus", "cc")
    assert focused["agent"]["agent_status"] == "idle"
    explained = server.cli("agent", "explain", "cc")
    assert explained.returncode == 0
    assert "rule: live_prompt_box" in explained.stdout


def test_wait_any_names_the_match(server: ServerHandle, ws: str) -> None:
    p1 = f"{ws}:p1"
    p2 = ok(server, "pane", "split", p1, "--direction", "right")["pane"]["pane_id"]
    launch(server, p1, "codex")
    silent(server, *REPORT[:2], p2, *REPORT[2:], "--state", "blocked")
    first = ok(server, "agent", "wait", p1, p2, "--any", "--until", "blocked")
    assert first["matched_target"] == p2


def test_report_metadata_verbs(server: ServerHandle, ws: str) -> None:
    pane = f"{ws}:p1"
    silent(server, *REPORT[:2], pane, *REPORT[2:], "--state", "idle")
    silent(
        server,
        "pane",
        "report-metadata",
        pane,
        "--source",
        "ci",
        "--title",
        "Build",
        "--state-label",
        "idle=ready",
        "--token",
        "pr=42",
    )
    record = pane_record(server, pane)
    assert (record["title"], record["state_labels"], record["tokens"]) == (
        "Build",
        {"idle": "ready"},
        {"pr": "42"},
    )
    silent(server, "workspace", "report-metadata", ws, "--source", "ci", "--token", "env=prod")
    assert ok(server, "workspace", "get", ws)["workspace"]["tokens"] == {"env": "prod"}
    bad = ("pane", "report-metadata", pane, "--source", "ci", "--token", "bad key=v")
    assert err(server, *bad) == "invalid_metadata_token"
    session = (
        "pane",
        "report-agent-session",
        pane,
        "--source",
        "herdr:codex",
        "--agent",
        "codex",
        "--agent-session-id",
        "s1",
    )
    silent(server, *session)


def test_manifest_verbs(server: ServerHandle) -> None:
    status = ok(server, "server", "agent-manifests")
    assert status["type"] == "agent_manifest_status"
    assert {m["agent"] for m in status["manifests"]} >= {"claude", "codex", "pi"}
    reloaded = ok(server, "server", "reload-agent-manifests")
    assert reloaded["type"] == "agent_manifest_reload"
