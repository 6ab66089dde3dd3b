"""Native agent resume after a restart (herdr-spec §4.2, ``[session]
resume_agents_on_restore``), with a fake ``claude`` on PATH that records its argv.

The fake (tests/fixtures/fake_resume_claude.py) appends ``{"argv", "cwd", "pane"}``
to ``$FAKE_RESUME_LOG`` and exits, leaving the user in the shell that ran it.
"""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from typing import Any

from herdr.persist import snapshot as snap
from herdr.runtime.agent_state import AgentSession, SessionRef
from herdr_testing import HerdrEnv, Server, tools_path, wait_until
from herdr_testing.records import replace

FAKE = Path(__file__).resolve().parent.parent / "fixtures" / "fake_resume_claude.py"


def data_dir(h: HerdrEnv) -> Path:
    return Path(h.env["XDG_CONFIG_HOME"]) / "herdr"


def fake_env(h: HerdrEnv) -> dict[str, str]:
    """PATH with a ``claude`` and a ``codex`` that run the fake, and where it logs."""
    bin_dir = h.root / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in ("claude", "codex"):
        prog = bin_dir / name
        prog.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
        prog.chmod(0o755)
    return {
        "PATH": f"{bin_dir}:{h.env.get('PATH', '/usr/bin:/bin')}",
        "FAKE_RESUME_LOG": str(h.root / "claude-runs.jsonl"),
    }


def runs(h: HerdrEnv) -> list[dict[str, Any]]:
    path = h.root / "claude-runs.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def ok(server: Server, method: str, params: dict[str, Any]) -> dict[str, Any]:
    reply = server.request(method, params)
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


def screen(server: Server, pane_id: str) -> str:
    read = ok(server, "pane.read", {"pane_id": pane_id, "source": "recent", "lines": 100})
    return str(read["read"]["text"])


def _shows(server: Server, pane_id: str, text: str) -> bool:
    return text in screen(server, pane_id)


def saved_sessions(h: HerdrEnv) -> dict[str, AgentSession | None]:
    doc = snap.decode((data_dir(h) / "session.json").read_bytes())
    out: dict[str, AgentSession | None] = {}
    for ws in doc.workspaces:
        for tab in ws.tabs:
            for key, pane in tab.panes.items():
                out[f"{ws.id}:p{ws.public_pane_numbers[key]}"] = pane.agent_session
    return out


def with_sessions(h: HerdrEnv, sessions: dict[str, AgentSession]) -> None:
    """Rewrite session.json as if these panes' agents had reported those sessions."""
    path = data_dir(h) / "session.json"
    doc = snap.decode(path.read_bytes())
    workspaces = []
    for ws in doc.workspaces:
        tabs = []
        for tab in ws.tabs:
            panes = {}
            for key, pane in tab.panes.items():
                pane_id = f"{ws.id}:p{ws.public_pane_numbers[key]}"
                if pane_id in sessions:
                    session = sessions[pane_id]
                    panes[key] = replace(
                        pane, agent_session=session, managed_agent_kind=session.agent
                    )
                else:
                    panes[key] = pane
            tabs.append(replace(tab, panes=panes))
        workspaces.append(replace(ws, tabs=tuple(tabs)))
    path.write_bytes(snap.encode(replace(doc, workspaces=tuple(workspaces))))


def claude_session(value: str, source: str = "herdr:claude") -> AgentSession:
    return AgentSession(source, "claude", SessionRef("id", value))


def two_panes(h: HerdrEnv, work: Path) -> tuple[str, str]:
    server = h.start_server()
    root = ok(server, "workspace.create", {"cwd": str(work)})["root_pane"]["pane_id"]
    other = ok(server, "pane.split", {"target_pane_id": root, "direction": "right"})
    assert h.cli("server", "stop").returncode == 0
    server.proc.wait(20)
    return root, str(other["pane"]["pane_id"])


def test_reported_session_is_resumed_with_claude_resume_id(herdr_env: HerdrEnv) -> None:
    """End to end: the integration reports a session (CLI verb), the server saves it,
    and after a restart the pane runs ``claude --resume=<id>`` in its saved cwd; when
    the agent exits the pane is a working shell."""
    h = herdr_env
    work = h.root / "proj"
    work.mkdir()
    env = {**fake_env(h), "HERDR_TEST_PERSIST_TIMING": "debounce=0.02,sample=0.1"}
    server = h.start_server(env=env)
    pane = ok(server, "workspace.create", {"cwd": str(work)})["root_pane"]["pane_id"]
    done = h.cli(
        "pane",
        "report-agent-session",
        pane,
        "--source",
        "herdr:claude",
        "--agent",
        "claude",
        "--agent-session-id",
        "sess-0042",
    )
    assert done.returncode == 0, done.stderr
    wait_until(lambda: saved_sessions(h).get(pane) is not None, message="session reference saved")
    assert saved_sessions(h)[pane] == claude_session("sess-0042")
    assert h.cli("server", "stop").returncode == 0
    server.proc.wait(20)

    again = h.start_server(env=env)
    wait_until(lambda: runs(h), message="fake claude never ran")
    assert runs(h) == [{"argv": ["--resume=sess-0042"], "cwd": str(work), "pane": pane}]
    wait_until(lambda: "fake-claude resumed --resume=sess-0042" in screen(again, pane))
    ok(again, "pane.send_text", {"pane_id": pane, "text": "echo SHELL_$((40+2))\r"})
    wait_until(lambda: "SHELL_42" in screen(again, pane), message="shell after the agent")
    # the reference survives the next save too (a later restart resumes it again)
    assert h.cli("server", "stop").returncode == 0
    again.proc.wait(20)
    assert saved_sessions(h)[pane] == claude_session("sess-0042")


def test_restore_resumes_first_duplicate_and_skips_bad_refs(herdr_env: HerdrEnv) -> None:
    """Only official, valid, unique references resume; the rest get a plain shell in
    the saved cwd (and the log names the reason)."""
    h = herdr_env
    work = h.root / "w"
    work.mkdir()
    p1, p2 = two_panes(h, work)
    server = h.start_server()
    ok(server, "pane.split", {"target_pane_id": p2, "direction": "down"})
    ok(server, "pane.split", {"target_pane_id": p2, "direction": "down"})
    panes = [p["pane_id"] for p in ok(server, "pane.list", {})["panes"]]
    assert h.cli("server", "stop").returncode == 0
    server.proc.wait(20)
    p3, p4 = [p for p in panes if p not in (p1, p2)]
    with_sessions(
        h,
        {
            p1: claude_session("dup"),
            p2: claude_session("dup"),  # duplicate: p1 already resumes it
            p3: claude_session("x", source="custom:mine"),  # unofficial source
            p4: claude_session("bad\x07id"),  # control character: invalid
        },
    )
    server = h.start_server(env=fake_env(h))
    wait_until(lambda: runs(h), message="fake claude never ran")
    for pane in (p2, p3, p4):
        ok(server, "pane.send_text", {"pane_id": pane, "text": "echo READY_$((1+1))\r"})
        shows_ready = functools.partial(_shows, server, pane, "READY_2")
        wait_until(shows_ready, message=f"{pane} has no shell")
    assert runs(h) == [{"argv": ["--resume=dup"], "cwd": str(work), "pane": p1}]
    log = (Path(h.env["XDG_STATE_HOME"]) / "herdr" / "server.log").read_text()
    for reason in ("duplicate_ref", "unofficial_source", "invalid_ref"):
        assert reason in log


def test_resume_disabled_by_config_gives_plain_shells(herdr_env: HerdrEnv) -> None:
    h = herdr_env
    work = h.root / "w"
    work.mkdir()
    p1, _ = two_panes(h, work)
    with_sessions(h, {p1: claude_session("off-1")})
    (data_dir(h) / "config.toml").write_text("[session]\nresume_agents_on_restore = false\n")
    server = h.start_server(env=fake_env(h))
    ok(server, "pane.send_text", {"pane_id": p1, "text": "echo PLAIN_$((3*3))\r"})
    wait_until(lambda: "PLAIN_9" in screen(server, p1))
    assert runs(h) == []


def test_missing_agent_executable_falls_back_to_shell(herdr_env: HerdrEnv) -> None:
    h = herdr_env
    work = h.root / "w"
    work.mkdir()
    p1, _ = two_panes(h, work)
    with_sessions(h, {p1: claude_session("nobin")})
    # a PATH of its own: the machine may have a real claude in /usr/bin
    path = tools_path(h.root, "sh")
    env = {"PATH": path, "FAKE_RESUME_LOG": str(h.root / "claude-runs.jsonl")}
    server = h.start_server(env=env)
    ok(server, "pane.send_text", {"pane_id": p1, "text": "echo NOBIN_$((2*2))\r"})
    wait_until(lambda: "NOBIN_4" in screen(server, p1))
    assert runs(h) == []
    log = (Path(h.env["XDG_STATE_HOME"]) / "herdr" / "server.log").read_text()
    assert "not_installed" in log


CODEX_FLAG = "--dangerously-bypass-approvals-and-sandbox"


def codex_session(value: str) -> AgentSession:
    return AgentSession("herdr:codex", "codex", SessionRef("id", value))


def test_flag_as_session_id_is_refused_by_the_report_verbs(herdr_env: HerdrEnv) -> None:
    """``pane report-agent-session`` / ``report-agent`` with a codex "session id" that is
    a flag: one invalid_params answer each, and nothing changes (no state, nothing saved
    for the pane); a real id right after is accepted and saved."""
    h = herdr_env
    env = {"HERDR_TEST_PERSIST_TIMING": "debounce=0.02,sample=0.1"}
    server = h.start_server(env=env)
    pane = ok(server, "workspace.create", {"cwd": str(h.root)})["root_pane"]["pane_id"]
    common = ("--source", "herdr:codex", "--agent", "codex")
    for verb, extra in (("report-agent-session", ()), ("report-agent", ("--state", "working"))):
        done = h.cli("pane", verb, pane, *common, *extra, f"--agent-session-id={CODEX_FLAG}")
        assert done.returncode == 1, done
        error = json.loads(done.stderr)["error"]
        assert error["code"] == "invalid_params"
        assert "must not start with '-'" in error["message"]
    record = ok(server, "pane.get", {"pane_id": pane})["pane"]
    assert record["agent_status"] == "unknown" and "agent" not in record
    spaced = h.cli("pane", "report-agent-session", pane, *common, "--agent-session-id", "a b")
    assert spaced.returncode == 1 and "whitespace" in spaced.stderr
    good = h.cli("pane", "report-agent-session", pane, *common, "--agent-session-id", "x-7")
    assert good.returncode == 0, good.stderr
    wait_until(lambda: saved_sessions(h).get(pane) is not None, message="good id saved")
    assert saved_sessions(h)[pane] == codex_session("x-7")


def test_planted_flag_session_id_is_never_passed_as_a_flag(herdr_env: HerdrEnv) -> None:
    """A session.json edited to hold a codex id that is a flag restores that pane as a
    plain shell (logged, reference dropped); a valid id full of shell syntax reaches
    codex as one positional item after ``--`` and runs nothing."""
    h = herdr_env
    work = h.root / "w"
    work.mkdir()
    p1, p2 = two_panes(h, work)
    meta = "x;touch${IFS}PWNED;$(touch${IFS}PWNED2)`touch${IFS}PWNED3`"
    with_sessions(h, {p1: codex_session(CODEX_FLAG), p2: codex_session(meta)})
    env = {**fake_env(h), "HERDR_TEST_PERSIST_TIMING": "debounce=0.02,sample=0.1"}
    server = h.start_server(env=env)
    wait_until(lambda: runs(h), message="fake codex never ran")
    assert runs(h) == [{"argv": ["resume", "--", meta], "cwd": str(work), "pane": p2}]
    ok(server, "pane.send_text", {"pane_id": p1, "text": "echo PLAIN_$((6*7))\r"})
    wait_until(functools.partial(_shows, server, p1, "PLAIN_42"), message="p1 has no shell")
    assert not list(work.glob("PWNED*"))
    log = (Path(h.env["XDG_STATE_HOME"]) / "herdr" / "server.log").read_text()
    assert "dropped its saved agent session reference" in log and CODEX_FLAG in log
    assert h.cli("server", "stop").returncode == 0
    server.proc.wait(20)
    assert saved_sessions(h)[p1] is None  # not written back
    assert runs(h) == [{"argv": ["resume", "--", meta], "cwd": str(work), "pane": p2}]
