"""The 0.9.x record fields: ``AgentInfo.completion_seq``, ``PaneInfo.restore_error`` and
``agent_session.resume_argv`` on a real server; every result validates against herdr's
protocol-22 schema (the fields are additive) and against our own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from herdr.api.schema import build_schema
from herdr.api.validate import Compiler
from herdr.persist import snapshot as snap
from herdr.persist.resume import resume_argv
from herdr.runtime.agent_state import AgentSession, SessionRef
from herdr_testing import HerdrEnv, ServerHandle, tools_path, wait_until
from herdr_testing.fake_env import new_workspace, ok
from herdr_testing.records import replace
from herdr_testing.schema22 import assert_valid_result

OURS = Compiler(build_schema()["schemas"]["success_response"]["$defs"])


def _checked(result: dict[str, Any]) -> dict[str, Any]:
    """Valid for herdr's protocol-22 schema, and each record for our own definitions."""
    assert_valid_result(result)
    records = [("AgentInfo", result.get("agent")), ("PaneInfo", result.get("pane"))]
    records += [("AgentInfo", a) for a in result.get("agents", [])]
    records += [("PaneInfo", p) for p in result.get("panes", [])]
    for name, record in records:
        if record is not None:
            assert OURS.ref(name)(record, name) is None, record
    return result


def _agent(server: ServerHandle, pane: str) -> dict[str, Any]:
    agent: dict[str, Any] = _checked(ok(server.request("agent.get", {"target": pane})))["agent"]
    return agent


def _report(server: ServerHandle, pane: str, state: str) -> None:
    params = {"pane_id": pane, "source": "custom:t", "agent": "bot", "state": state}
    ok(server.request("pane.report_agent", params))


def test_completion_seq_counts_finished_turns(herdr_server: ServerHandle) -> None:
    ws = new_workspace(herdr_server, focus=False)
    pane = f"{ws}:p1"
    _report(herdr_server, pane, "working")
    assert _agent(herdr_server, pane)["completion_seq"] == 0
    turns = [("idle", 1), ("working", 1), ("blocked", 1), ("working", 1), ("idle", 2)]
    for state, expected in turns:
        _report(herdr_server, pane, state)
        agent = _agent(herdr_server, pane)
        assert agent["completion_seq"] == expected, (state, agent)
    listed = _checked(ok(herdr_server.request("agent.list", {})))["agents"]
    assert [a["completion_seq"] for a in listed if a["pane_id"] == pane] == [2]


@pytest.mark.parametrize(
    ("source", "agent", "kind", "value", "argv"),
    [
        pytest.param(
            "herdr:claude", "claude", "id", "s-7", ["claude", "--resume=s-7"], id="claude"
        ),
        pytest.param("custom:mine", "claude", "id", "s-8", None, id="unofficial-source"),
        pytest.param("custom:x", "bot", "id", "b-1", None, id="no-resume-recipe"),
        pytest.param("herdr:claude", "claude", "id", "-rf", None, id="flag-like-id"),
    ],
)
def test_resume_argv_of_a_session(
    source: str, agent: str, kind: str, value: str, argv: list[str] | None
) -> None:
    session = AgentSession(source, agent, SessionRef(kind, value))  # type: ignore[arg-type]
    assert resume_argv(session) == argv


def test_agent_session_records_carry_their_resume_argv(herdr_server: ServerHandle) -> None:
    ws = new_workspace(herdr_server, focus=False)
    pane = f"{ws}:p1"
    params = {"pane_id": pane, "source": "herdr:claude", "agent": "claude"}
    ok(herdr_server.request("pane.report_agent_session", {**params, "agent_session_id": "s-9"}))
    record = _checked(ok(herdr_server.request("pane.get", {"pane_id": pane})))["pane"]
    assert record["agent_session"] == {
        "source": "herdr:claude",
        "agent": "claude",
        "kind": "id",
        "value": "s-9",
        "resume_argv": ["claude", "--resume=s-9"],
    }


def _data_dir(h: HerdrEnv) -> Path:
    return Path(h.env["XDG_CONFIG_HOME"]) / "herdr"


def _save_claude_session(h: HerdrEnv, pane_id: str, value: str) -> None:
    """Rewrite session.json as if ``pane_id``'s claude had reported session ``value``."""
    path = _data_dir(h) / "session.json"
    doc = snap.decode(path.read_bytes())
    session = AgentSession("herdr:claude", "claude", SessionRef("id", value))
    workspaces = []
    for ws in doc.workspaces:
        tabs = []
        for tab in ws.tabs:
            panes = {
                key: replace(pane, agent_session=session, managed_agent_kind="claude")
                if f"{ws.id}:p{ws.public_pane_numbers[key]}" == pane_id
                else pane
                for key, pane in tab.panes.items()
            }
            tabs.append(replace(tab, panes=panes))
        workspaces.append(replace(ws, tabs=tuple(tabs)))
    path.write_bytes(snap.encode(replace(doc, workspaces=tuple(workspaces))))


def test_a_pane_whose_agent_could_not_be_resumed_says_why(herdr_env: HerdrEnv) -> None:
    h = herdr_env
    first = ServerHandle(h, h.start_server())
    root = ok(first.request("workspace.create", {"cwd": str(h.root)}))["root_pane"]["pane_id"]
    split = {"target_pane_id": root, "direction": "right"}
    other = ok(first.request("pane.split", split))["pane"]["pane_id"]
    assert h.cli("server", "stop").returncode == 0
    first.server.proc.wait(20)
    _save_claude_session(h, root, "gone-1")

    # a PATH of its own without claude: the resume cannot run
    server = ServerHandle(h, h.start_server(env={"PATH": tools_path(h.root, "sh")}))
    wait_until(lambda: "result" in server.request("pane.get", {"pane_id": root}))
    failed = _checked(ok(server.request("pane.get", {"pane_id": root})))["pane"]
    assert failed["restore_error"] == "not_installed: claude is not on PATH"
    fine = _checked(ok(server.request("pane.get", {"pane_id": other})))["pane"]
    assert "restore_error" not in fine
    listed = _checked(ok(server.request("pane.list", {})))["panes"]
    assert {p["pane_id"]: p.get("restore_error") for p in listed} == {
        root: "not_installed: claude is not on PATH",
        other: None,
    }
