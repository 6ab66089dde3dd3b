"""A user kind's ``resume`` argv template brings its conversation back after a real
server restart, only for a session reported on the trusted ``herdr:<label>`` channel
and only for an id of the strict form (docs/user-agents.md "Resume").

The ``zork`` on PATH here is the resume recorder (tests/fixtures/fake_resume_claude.py):
it appends its argv to ``$FAKE_RESUME_LOG`` and exits, leaving the pane's shell.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from herdr.persist import snapshot as snap
from herdr.runtime.agent_state import AgentSession, SessionRef
from herdr_testing import HerdrEnv, Server, wait_until
from herdr_testing.records import replace

RECORDER = Path(__file__).resolve().parents[1] / "fixtures" / "fake_resume_claude.py"
KIND = """label = "zork"
process_names = ["zork"]
resume = ["zork", "--resume", "{session}"]
"""
MANIFEST = 'id = "zork"\n[[rules]]\nid = "p"\nstate = "idle"\ncontains = ["zork>"]\n'
FAST_SAVES = {"HERDR_TEST_PERSIST_TIMING": "debounce=0.02,sample=0.1"}


def _setup(h: HerdrEnv) -> dict[str, str]:
    agents = Path(h.env["XDG_CONFIG_HOME"]) / "herdr" / "agents"
    agents.mkdir(parents=True)
    (agents / "zork.toml").write_text(KIND, "utf-8")
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    bin_dir = h.root / "bin"
    bin_dir.mkdir()
    prog = bin_dir / "zork"
    prog.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{RECORDER}" "$@"\n')
    prog.chmod(0o755)
    return {
        "PATH": f"{bin_dir}:{h.env.get('PATH', '/usr/bin:/bin')}",
        "FAKE_RESUME_LOG": str(h.root / "runs.jsonl"),
        **FAST_SAVES,
    }


def _runs(h: HerdrEnv) -> list[dict[str, Any]]:
    path = h.root / "runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _ok(server: Server, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def _session_file(h: HerdrEnv) -> Path:
    return Path(h.env["XDG_CONFIG_HOME"]) / "herdr" / "session.json"


def _saved(h: HerdrEnv, pane_id: str) -> AgentSession | None:
    path = _session_file(h)
    if not path.exists():
        return None
    doc = snap.decode(path.read_bytes())
    for ws in doc.workspaces:
        for tab in ws.tabs:
            for key, pane in tab.panes.items():
                if f"{ws.id}:p{ws.public_pane_numbers[key]}" == pane_id:
                    return pane.agent_session
    return None


def _plant(h: HerdrEnv, session: AgentSession) -> None:
    """Rewrite session.json as if the (only) pane had reported ``session``."""
    path = _session_file(h)
    doc = snap.decode(path.read_bytes())
    workspaces = []
    for ws in doc.workspaces:
        tabs = []
        for tab in ws.tabs:
            panes = {
                key: replace(p, agent_session=session, managed_agent_kind="zork")
                for key, p in tab.panes.items()
            }
            tabs.append(replace(tab, panes=panes))
        workspaces.append(replace(ws, tabs=tuple(tabs)))
    path.write_bytes(snap.encode(replace(doc, workspaces=tuple(workspaces))))


def _stop(h: HerdrEnv, server: Server) -> None:
    assert h.cli("server", "stop").returncode == 0
    server.proc.wait(20)


def _shell_works(server: Server, pane: str) -> None:
    _ok(server, "pane.send_text", {"pane_id": pane, "text": "echo READY_$((20+1))\r"})

    def shown() -> bool:
        read = _ok(server, "pane.read", {"pane_id": pane, "source": "recent", "lines": 100})
        return "READY_21" in str(read["read"]["text"])

    wait_until(shown, message=f"{pane} has no shell")


def test_user_kind_session_is_resumed_with_its_template(herdr_env: HerdrEnv) -> None:
    h = herdr_env
    env = _setup(h)
    work = h.root / "proj"
    work.mkdir()
    server = h.start_server(env=env)
    pane = _ok(server, "workspace.create", {"cwd": str(work)})["root_pane"]["pane_id"]
    done = h.cli(
        "pane",
        "report-agent-session",
        pane,
        "--source",
        "herdr:zork",
        "--agent",
        "zork",
        "--agent-session-id",
        "zs-0042.a:b",
    )
    assert done.returncode == 0, done.stderr
    wait_until(lambda: _saved(h, pane) is not None, message="session reference saved")
    assert _saved(h, pane) == AgentSession("herdr:zork", "zork", SessionRef("id", "zs-0042.a:b"))
    record = _ok(server, "pane.get", {"pane_id": pane})["pane"]
    assert record["agent_session"]["resume_argv"] == ["zork", "--resume", "zs-0042.a:b"]
    _stop(h, server)

    again = h.start_server(env=env)
    wait_until(lambda: _runs(h), message="zork was never resumed")
    assert _runs(h) == [{"argv": ["--resume", "zs-0042.a:b"], "cwd": str(work), "pane": pane}]
    _shell_works(again, pane)


ATTACKS = [
    ("semicolon", AgentSession("herdr:zork", "zork", SessionRef("id", "a;touch${IFS}PWNED"))),
    ("space", AgentSession("herdr:zork", "zork", SessionRef("id", "a b"))),
    ("leading-dash", AgentSession("herdr:zork", "zork", SessionRef("id", "--yolo"))),
    ("substitution", AgentSession("herdr:zork", "zork", SessionRef("id", "$(touch PWNED)"))),
    ("path-ref", AgentSession("herdr:zork", "zork", SessionRef("path", "/tmp/zork.jsonl"))),
    ("custom-source", AgentSession("custom:me", "zork", SessionRef("id", "zs-1"))),
]


@pytest.mark.parametrize("session", [a[1] for a in ATTACKS], ids=[a[0] for a in ATTACKS])
def test_untrusted_or_odd_session_is_refused_not_run(
    herdr_env: HerdrEnv, session: AgentSession
) -> None:
    h = herdr_env
    env = _setup(h)
    work = h.root / "proj"
    work.mkdir()
    server = h.start_server(env=env)
    pane = _ok(server, "workspace.create", {"cwd": str(work)})["root_pane"]["pane_id"]
    _stop(h, server)
    _plant(h, session)

    again = h.start_server(env=env)
    _shell_works(again, pane)
    assert _runs(h) == []
    assert not (work / "PWNED").exists() and not (h.root / "PWNED").exists()
    log = (Path(h.env["XDG_STATE_HOME"]) / "herdr" / "server.log").read_text()
    reason = "unofficial_source" if session.source != "herdr:zork" else "invalid_ref"
    assert reason in log


@pytest.mark.parametrize(
    "value", ["a;b", "x$(id)", "a/b", "{session}"], ids=["semicolon", "dollar", "slash", "brace"]
)
def test_report_of_an_odd_user_kind_id_is_refused(herdr_env: HerdrEnv, value: str) -> None:
    """On the trusted channel a user kind's id must have the strict form: one
    invalid_params answer, nothing saved; the same id from a built-in's channel is its
    own business (the generic rules allow ``;``)."""
    h = herdr_env
    env = _setup(h)
    server = h.start_server(env=env)
    pane = _ok(server, "workspace.create", {"cwd": str(h.root)})["root_pane"]["pane_id"]
    common = ("--source", "herdr:zork", "--agent", "zork", "--agent-session-id", value)
    done = h.cli("pane", "report-agent-session", pane, *common)
    assert done.returncode == 1, done
    error = json.loads(done.stderr)["error"]
    assert error["code"] == "invalid_params" and "user-defined agent" in error["message"]
    record = _ok(server, "pane.get", {"pane_id": pane})["pane"]
    assert "agent_session" not in record
    good = h.cli("pane", "report-agent-session", pane, *common[:-1], "zs-1")
    assert good.returncode == 0, good.stderr
    wait_until(lambda: _saved(h, pane) is not None, message="the good id was never saved")
