"""Structured approvals against a real server and the fake Claude Code (issue 21 item 1).

The fake agent draws Claude's Bash permission dialog after an ``ask:CMD`` prompt and
records every input chunk it reads (``FAKE_AGENT_INPUT_LOG``), so each refusal is
checked to have typed nothing at all.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.fake_env import (
    agent_server,
    code,
    launch,
    new_workspace,
    ok,
    screen,
    wait_status,
)
from herdr_testing.held import HeldConnection

pytestmark = pytest.mark.slow


class Agent:
    """One fake agent (claude unless told) in its own pane, with the log of its input."""

    def __init__(self, server: ServerHandle, log: Path, kind: str = "claude") -> None:
        self.server = server
        self.log = log
        ws = new_workspace(server)
        panes = ok(server.request("pane.list", {"workspace_id": ws}))["panes"]
        self.pane: str = panes[0]["pane_id"]
        launch(server, self.pane, kind)

    def wait_typed(self, expected: list[str]) -> None:
        wait_until(lambda: self.typed() == expected, timeout=20, message=f"{self.typed()}")

    def typed(self) -> list[str]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text("utf-8").splitlines()]

    def ask(self, command: str) -> dict[str, Any]:
        """Prompt for a dialog about ``command``; its approval record once it is drawn."""
        ok(self.server.request("agent.prompt", {"target": self.pane, "text": f"ask:{command}"}))
        wait_status(self.server, self.pane, "blocked")

        def drawn() -> dict[str, Any] | None:
            record = self.approval()
            return record if record is not None and command in record["detail"] else None

        record = wait_until(drawn, timeout=20, interval=0.05, message="no approval record")
        assert record is not None
        return record

    def approval(self) -> dict[str, Any] | None:
        result = ok(self.server.request("agent.approval", {"target": self.pane}))
        assert result["type"] == "agent_approval"
        approval: dict[str, Any] | None = result["approval"]
        return approval

    def approve(self, option_id: str, fingerprint: str | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"target": self.pane, "option_id": option_id}
        if fingerprint is not None:
            params["fingerprint"] = fingerprint
        return self.server.request("agent.approve", params)


@pytest.fixture
def agent(herdr_env: HerdrEnv) -> Iterator[Agent]:
    log = herdr_env.root / "agent-input.jsonl"
    server = agent_server(herdr_env, FAKE_AGENT_INPUT_LOG=str(log))
    yield Agent(server, log)


def _subscribe(agent: Agent) -> HeldConnection:
    subs = [
        {"type": "agent.approval_requested"},
        {"type": "pane.agent_status_changed", "pane_id": agent.pane},
    ]
    stream = HeldConnection(agent.server.socket_path, "events.subscribe", {"subscriptions": subs})
    started = stream.next()
    assert started is not None and started["result"]["type"] == "subscription_started", started
    return stream


def _read_until_status(stream: HeldConnection, *wanted: str) -> list[dict[str, Any]]:
    """Every approval event read before the pane's status became one of ``wanted``."""
    approvals = []
    while True:
        line = stream.next()
        assert line is not None, "stream ended"
        data = line.get("data", {})
        if line.get("event") == "agent_approval_requested":
            approvals.append(data)
        elif data.get("agent_status") in wanted:
            return approvals


def test_idle_agent_has_no_approval_and_approve_types_nothing(agent: Agent) -> None:
    assert agent.approval() is None
    before = agent.typed()
    assert code(agent.approve("1")) == "no_approval"
    assert code(agent.approve("1", fingerprint="0123456789abcdef")) == "approval_changed"
    assert agent.typed() == before
    assert wait_status(agent.server, agent.pane, "idle", "done")


def test_the_record_names_the_question_options_and_keys(agent: Agent) -> None:
    record = agent.ask("rm -rf build")
    assert record["pane_id"] == agent.pane
    assert record["agent"] == "claude"
    assert record["rule"] == "bash_permission_prompt"
    assert record["question"] == "Do you want to proceed?"
    assert record["detail"] == "Bash command\nrm -rf build"
    assert record["options"] == [
        {"id": "1", "label": "Yes", "keys": ["1"]},
        {"id": "2", "label": "No", "keys": ["2"]},
    ]
    assert len(record["fingerprint"]) == 16
    assert agent.approval() == record  # stable while the dialog stays


def test_approve_sends_exactly_the_option_keys_and_unblocks(agent: Agent) -> None:
    stream = _subscribe(agent)
    try:
        record = agent.ask("rm -rf build")
        approvals = _read_until_status(stream, "blocked")
        before = agent.typed()
        answer = ok(agent.approve("1", record["fingerprint"]))
        assert answer == {
            "type": "agent_approved",
            "sent": True,
            "option": {"id": "1", "label": "Yes", "keys": ["1"]},
        }
        approvals += _read_until_status(stream, "working")
        agent.wait_typed([*before, "1"])
        # One event for the one dialog, carrying the record agent.approval returned.
        assert [
            {k: v for k, v in a.items() if k not in ("type", "workspace_id")} for a in approvals
        ] == [record]
    finally:
        stream.close()
    wait_status(agent.server, agent.pane, "idle", "done")
    assert agent.approval() is None


def test_a_stale_fingerprint_or_a_changed_dialog_types_nothing(agent: Agent) -> None:
    first = agent.ask("rm -rf a")
    ok(agent.server.request("pane.send_keys", {"pane_id": agent.pane, "keys": ["2"]}))
    wait_status(agent.server, agent.pane, "idle", "done")
    second = agent.ask("rm -rf b")
    assert second["fingerprint"] != first["fingerprint"]
    before = agent.typed()
    refused = agent.approve("1", first["fingerprint"])
    assert code(refused) == "approval_changed"
    assert second["fingerprint"] in refused["error"]["message"]
    assert code(agent.approve("9", second["fingerprint"])) == "approval_option_not_found"
    assert code(agent.approve("9")) == "approval_option_not_found"
    assert agent.typed() == before
    assert agent.approval() == second  # still blocked on the same dialog
    ok(agent.approve("2", second["fingerprint"]))
    wait_status(agent.server, agent.pane, "idle", "done")
    agent.wait_typed([*before, "2"])


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        pytest.param({"option_id": "1"}, "invalid_request", id="no-target"),
        pytest.param({"target": "P"}, "invalid_request", id="no-option"),
        pytest.param({"target": "P", "option_id": 1}, "invalid_request", id="option-not-string"),
        pytest.param(
            {"target": "P", "option_id": "1", "fingerprint": 7},
            "invalid_request",
            id="fingerprint-int",
        ),
        pytest.param({"target": "nobody", "option_id": "1"}, "agent_not_found", id="no-agent"),
        pytest.param({"target": "P", "option_id": ""}, "approval_option_not_found", id="empty"),
        pytest.param(
            {"target": "P", "option_id": "1", "fingerprint": ""}, "approval_changed", id="empty-fp"
        ),
    ],
)
def test_bad_params_get_one_answer_and_type_nothing(
    agent: Agent, params: dict[str, Any], expected: str
) -> None:
    record = agent.ask("rm -rf build")
    before = agent.typed()
    if params.get("target") == "P":
        params = {**params, "target": agent.pane}
    line = json.dumps({"id": "bad", "method": "agent.approve", "params": params}).encode()
    answer = agent.server.raw(line + b"\n", half_close=True).splitlines()
    assert len(answer) == 1, answer  # exactly one answer
    assert json.loads(answer[0])["error"]["code"] == expected, answer
    assert agent.typed() == before
    assert agent.approval() == record
    assert agent.server.server.alive()


def test_distinct_dialogs_are_announced_once_each(agent: Agent) -> None:
    stream = _subscribe(agent)
    try:
        first = agent.ask("rm -rf a")
        announced = _read_until_status(stream, "blocked")
        # A redraw of the same dialog (the pane shrinks) is not a new appearance.
        split = {"target_pane_id": agent.pane, "direction": "right", "focus": False}
        ok(agent.server.request("pane.split", split))
        wait_until(lambda: agent.approval() == first, timeout=20, message="dialog changed")
        ok(agent.approve("2", first["fingerprint"]))
        announced += _read_until_status(stream, "idle", "done")
        second = agent.ask("rm -rf b")
        announced += _read_until_status(stream, "blocked")
        ok(agent.approve("1", second["fingerprint"]))
        announced += _read_until_status(stream, "working")
    finally:
        stream.close()
    assert [a["fingerprint"] for a in announced] == [first["fingerprint"], second["fingerprint"]]


@pytest.mark.parametrize(
    ("option", "keys", "outcome", "status"),
    [
        pytest.param("1", ["Enter"], "● Approved.", "working", id="first-enter"),
        pytest.param("2", ["Down", "Enter"], "● Cancelled.", "idle", id="second-down-enter"),
    ],
)
def test_codex_arrow_options_reach_the_selected_choice(
    herdr_env: HerdrEnv, option: str, keys: list[str], outcome: str, status: str
) -> None:
    log = herdr_env.root / "codex-input.jsonl"
    codex = Agent(agent_server(herdr_env, FAKE_AGENT_INPUT_LOG=str(log)), log, "codex")
    record = codex.ask("rm -rf build")
    assert record["rule"] == "live_strong_blocker"
    assert record["question"] == "Allow command? rm -rf build"
    assert [o["keys"] for o in record["options"]] == [["Enter"], ["Down", "Enter"]]
    before = codex.typed()
    sent = ok(codex.approve(option, record["fingerprint"]))
    assert sent["option"]["keys"] == keys
    wait_until(lambda: outcome in screen(codex.server, codex.pane), timeout=20, message=outcome)
    typed = codex.typed()[len(before) :]
    assert "".join(typed) in ("\r", "\x1b[B\r", "\x1bOB\r"), typed
    if status == "idle":
        wait_status(codex.server, codex.pane, "idle", "done")
    assert codex.approval() is None


def test_cli_approval_and_approve(agent: Agent) -> None:
    record = agent.ask("rm -rf build")
    text = agent.server.cli("agent", "approval", agent.pane)
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[:5] == [
        f"{agent.pane} (claude): Do you want to proceed?",
        "    Bash command",
        "    rm -rf build",
        "  1. Yes  [1]",
        "  2. No  [2]",
    ]
    as_json = agent.server.cli("agent", "approval", agent.pane, "--json")
    assert json.loads(as_json.stdout)["result"]["approval"] == record
    before = agent.typed()
    stale = agent.server.cli("agent", "approve", agent.pane, "1", "--fingerprint", "f" * 16)
    assert stale.returncode == 1
    assert json.loads(stale.stderr)["error"]["code"] == "approval_changed"
    assert agent.typed() == before
    sent = agent.server.cli(
        "agent", "approve", agent.pane, "1", "--fingerprint", record["fingerprint"]
    )
    assert sent.returncode == 0, sent.stderr
    assert json.loads(sent.stdout)["result"]["sent"] is True
    agent.wait_typed([*before, "1"])


# A user override whose option pattern backtracks catastrophically on the dialog's lines.
HOSTILE_CLAUDE = """
id = "claude"
version = "2099.1.1"
[[rules]]
id = "hostile_dialog"
state = "blocked"
priority = 900
region = "bottom_non_empty_lines(14)"
visible_blocker = true
contains = ["do you want to proceed?"]
approval = { keys = "arrows", option_pattern = '(?P<label>(a|aa)+)+$' }
[[rules]]
id = "composer"
state = "idle"
priority = 100
region = "bottom_non_empty_lines(5)"
visible_idle = true
contains = ["? for shortcuts"]
"""


def test_a_catastrophic_override_pattern_reads_no_dialog_and_the_server_lives(
    herdr_env: HerdrEnv,
) -> None:
    override = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "agent-detection"
    override.mkdir(parents=True)
    (override / "claude.toml").write_text(HOSTILE_CLAUDE, "utf-8")
    log = herdr_env.root / "hostile-input.jsonl"
    claude = Agent(agent_server(herdr_env, FAKE_AGENT_INPUT_LOG=str(log)), log)
    ok(
        claude.server.request(
            "agent.prompt", {"target": claude.pane, "text": "ask:" + "a" * 60 + "b"}
        )
    )
    wait_status(claude.server, claude.pane, "blocked")
    explain = ok(claude.server.request("agent.explain", {"target": claude.pane}))["explain"]
    assert explain["matched_rule"]["id"] == "hostile_dialog"  # the override is in force
    assert claude.approval() is None  # the searches ran out of budget: no dialog, one answer
    before = claude.typed()
    assert code(claude.approve("1")) == "no_approval"
    assert ok(claude.server.request("ping", {}))["type"] == "pong"
    assert claude.typed() == before
    assert wait_status(claude.server, claude.pane, "blocked") == "blocked"
