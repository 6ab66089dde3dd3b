"""The installed hooks and plugins at runtime: stdin/events in, exact reports out.

Each hook is installed into a temporary HOME and run as the agent would run it (``bash
'<script>' session`` with the payload on stdin; Node for the JS/TS plugins). A local
capture socket records the exact request lines; the same hooks against a real server
change the pane's agent session and state. Outside herdr they exit 0 and send nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr.integrations import install as integrations
from herdr_testing import ServerHandle, wait_until
from herdr_testing.fake_env import new_workspace, ok, pane_record

NODE = shutil.which("node")


class Capture:
    """A Unix socket that answers ``ok`` to every line and remembers them."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / "cap.sock"
        self.lines: list[dict[str, Any]] = []
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(self.path))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                data = b""
                while not data.endswith(b"\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                for raw in data.splitlines():
                    request = json.loads(raw)
                    self.lines.append(request)
                    reply = {"id": request["id"], "result": {"type": "ok"}}
                    conn.sendall(json.dumps(reply).encode() + b"\n")

    def close(self) -> None:
        self._stop.set()
        self._sock.close()
        self._thread.join(5)


@pytest.fixture
def home() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="hk", dir="/tmp"))
    for sub in (
        ".claude",
        ".codex",
        ".pi/agent",
        ".config/opencode",
        ".copilot",
        ".config/devin",
        ".factory",
        ".qoder",
        ".qwen",
        ".cursor",
        ".grok",
        ".gemini/config",
        ".kimi-code",
    ):
        (root / sub).mkdir(parents=True)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def capture(home: Path) -> Iterator[Capture]:
    cap = Capture(home)
    yield cap
    cap.close()


def _hook_env(socket_path: Path | str, pane: str, **extra: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"}
    env.update(HERDR_ENV="1", HERDR_SOCKET_PATH=str(socket_path), HERDR_PANE_ID=pane, **extra)
    return env


def _run_hook(
    script: Path,
    payload: Any,
    env: dict[str, str],
    action: str = "session",
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        ["bash", str(script), action],
        input=stdin,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


SCRIPTS = {
    "claude": ".claude/hooks/herdr-agent-state.sh",
    "codex": ".codex/herdr-agent-state.sh",
    "copilot": ".copilot/hooks/herdr-agent-state.sh",
    "devin": ".config/devin/herdr-agent-state.sh",
    "droid": ".factory/hooks/herdr-agent-state.sh",
    "qodercli": ".qoder/hooks/herdr-agent-state.sh",
    "qwen": ".qwen/hooks/herdr-agent-session.sh",
    "cursor": ".cursor/herdr-agent-state.sh",
    "grok": ".grok/hooks/herdr-agent-state.sh",
    "antigravity_cli": ".gemini/config/hooks/herdr-agent-state.sh",
    "mastracode": ".mastracode/hooks/herdr-agent-state.sh",
    "kimi": ".kimi-code/hooks/herdr-agent-state.sh",
}
AGENT = {"antigravity_cli": "agy"}

# (target, stdin payload, extra env, the params sent (without seq) or None: nothing sent)
REPORTS = [
    pytest.param(
        "claude",
        {
            "session_id": "abc-1",
            "transcript_path": "/tmp/t.jsonl",
            "source": "startup",
            "hook_event_name": "SessionStart",
        },
        {},
        {
            "agent_session_id": "abc-1",
            "agent_session_path": "/tmp/t.jsonl",
            "session_start_source": "startup",
        },
        id="claude-session-start",
    ),
    pytest.param(
        "claude",
        {"session_id": "abc-1", "source": "weird", "hook_event_name": "SessionStart"},
        {},
        {"agent_session_id": "abc-1"},
        id="claude-unknown-start-source-dropped",
    ),
    pytest.param(
        "claude", {"session_id": "abc-1", "agent_id": "sub-7"}, {}, None, id="claude-subagent"
    ),
    pytest.param("claude", {"transcript_path": "/tmp/t"}, {}, None, id="claude-no-session-id"),
    pytest.param("claude", "not json", {}, None, id="claude-garbage-stdin"),
    pytest.param(
        "codex",
        {
            "session_id": "th-9",
            "transcript_path": "/tmp/r.jsonl",
            "source": "resume",
            "hook_event_name": "SessionStart",
        },
        {},
        {"agent_session_id": "th-9", "session_start_source": "resume"},
        id="codex-session-start",
    ),
    pytest.param(
        "codex", {"session_id": "th-9", "transcript_path": ""}, {}, None, id="codex-no-transcript"
    ),
    pytest.param(
        "codex",
        {"session_id": "th-9", "transcript_path": "/tmp/r.jsonl"},
        {"CODEX_THREAD_ID": "outer-1"},
        None,
        id="codex-nested-in-codex",
    ),
    pytest.param(
        "codex",
        {"session_id": "th-9", "transcript_path": "/tmp/r", "hook_event_name": "Stop"},
        {},
        None,
        id="codex-other-event",
    ),
    pytest.param(
        "copilot",
        {"sessionId": "cp-1", "hookEventName": "session_start"},
        {},
        {"agent_session_id": "cp-1"},
        id="copilot-session-start",
    ),
    pytest.param(
        "copilot", {"sessionId": "cp-1", "prompt": "hi"}, {}, None, id="copilot-prompt-payload"
    ),
    pytest.param(
        "devin", {"sessionId": "dv-1"}, {}, {"agent_session_id": "dv-1"}, id="devin-session"
    ),
    pytest.param(
        "droid", {"session_id": "dr-1"}, {}, {"agent_session_id": "dr-1"}, id="droid-session"
    ),
    pytest.param(
        "qodercli", {"session_id": "q-1"}, {}, {"agent_session_id": "q-1"}, id="qoder-session"
    ),
    pytest.param(
        "qwen",
        {"session_id": "qw-1", "source": "resume"},
        {},
        {"agent_session_id": "qw-1", "session_start_source": "resume"},
        id="qwen-session",
    ),
    pytest.param(
        "cursor",
        {"conversation_id": "cu-1", "hook_event_name": "sessionStart"},
        {},
        {"agent_session_id": "cu-1"},
        id="cursor-session",
    ),
    pytest.param(
        "cursor",
        {"conversation_id": "cu-1", "hook_event_name": "stop"},
        {},
        None,
        id="cursor-other-event",
    ),
    pytest.param(
        "grok",
        {"session_id": "from-stdin"},
        {"GROK_SESSION_ID": "from-env"},
        {"agent_session_id": "from-env"},
        id="grok-env-wins",
    ),
    pytest.param(
        "antigravity_cli",
        {"conversationId": "ag-1", "transcriptPath": "/tmp/ag.jsonl"},
        {},
        {"agent_session_id": "ag-1", "agent_session_path": "/tmp/ag.jsonl"},
        id="antigravity-session",
    ),
]


@pytest.mark.parametrize(("target", "payload", "extra", "sent"), REPORTS)
def test_hook_sends_exactly(
    capture: Capture,
    target: str,
    payload: Any,
    extra: dict[str, str],
    sent: dict[str, Any] | None,
) -> None:
    home = capture.path.parent
    integrations.install(target, {"HOME": str(home)})
    done = _run_hook(home / SCRIPTS[target], payload, _hook_env(capture.path, "w1:p1", **extra))
    stdout = "{}\n" if target == "antigravity_cli" else ""  # agy reads a JSON answer
    assert (done.returncode, done.stdout, done.stderr) == (0, stdout, "")
    if sent is None:
        assert capture.lines == []
        return
    wait_until(lambda: capture.lines, 10, message="no report arrived")
    [line] = capture.lines
    assert line["method"] == "pane.report_agent_session"
    assert line["id"].startswith(f"herdr:{target}:")
    params = dict(line["params"])
    assert isinstance(params.pop("seq"), int)
    base = {"pane_id": "w1:p1", "source": f"herdr:{target}", "agent": AGENT.get(target, target)}
    assert params == {**base, **sent}


STATE_HOOKS = [
    pytest.param(target, action, sent, id=f"{target}-{action}")
    for target in ("mastracode", "kimi")
    for action, sent in (
        (
            "session",
            (
                "pane.report_agent_session",
                {"agent_session_id": "s-1", "session_start_source": "startup"},
            ),
        ),
        ("working", ("pane.report_agent", {"state": "working", "agent_session_id": "s-1"})),
        ("blocked", ("pane.report_agent", {"state": "blocked", "agent_session_id": "s-1"})),
        ("idle", ("pane.report_agent", {"state": "idle", "agent_session_id": "s-1"})),
        ("release", None),
    )
]


@pytest.mark.parametrize(("target", "action", "sent"), STATE_HOOKS)
def test_state_hooks_report_their_action(
    capture: Capture, target: str, action: str, sent: tuple[str, dict[str, Any]] | None
) -> None:
    home = capture.path.parent
    integrations.install(target, {"HOME": str(home), "PATH": "/nonexistent"})
    env = _hook_env(capture.path, "w1:p1")
    done = _run_hook(home / SCRIPTS[target], {"session_id": "s-1"}, env, action)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    if sent is None:
        assert capture.lines == []
        return
    wait_until(lambda: capture.lines, 10, message="no report arrived")
    assert _params(capture) == [sent]


@pytest.mark.parametrize("target", sorted(SCRIPTS))
@pytest.mark.parametrize("gate", ["HERDR_ENV", "HERDR_PANE_ID", "HERDR_SOCKET_PATH"])
def test_hook_does_nothing_outside_herdr(
    home: Path, capture: Capture, target: str, gate: str
) -> None:
    integrations.install(target, {"HOME": str(home), "PATH": "/nonexistent"})
    env = _hook_env(capture.path, "w1:p1")
    del env[gate]
    payload = {"session_id": "s", "transcript_path": "/tmp/t", "conversationId": "c"}
    done = _run_hook(home / SCRIPTS[target], payload, env)
    stdout = "{}\n" if target == "antigravity_cli" else ""
    assert (done.returncode, done.stdout, done.stderr) == (0, stdout, "")
    assert capture.lines == []


def test_hook_exits_zero_when_the_server_is_gone(home: Path) -> None:
    integrations.install("claude", {"HOME": str(home)})
    env = _hook_env(home / "nobody-listens.sock", "w1:p1")
    done = _run_hook(home / SCRIPTS["claude"], {"session_id": "s"}, env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def _fresh_pane(server: ServerHandle) -> str:
    ws = new_workspace(server)
    tab = ok(server.request("tab.create", {"workspace_id": ws}))
    return str(tab["root_pane"]["pane_id"])


@pytest.mark.parametrize("target", ["claude", "codex"])
def test_hook_reports_to_a_real_server(herdr_server: ServerHandle, target: str) -> None:
    home = Path(herdr_server.env["HOME"])
    (home / SCRIPTS[target]).parent.mkdir(parents=True, exist_ok=True)
    integrations.install(target, herdr_server.env)
    pane = _fresh_pane(herdr_server)
    payload = {"session_id": f"{target}-sess-1", "transcript_path": "/tmp/t.jsonl"}
    done = _run_hook(home / SCRIPTS[target], payload, _hook_env(herdr_server.socket_path, pane))
    assert done.returncode == 0

    def reported() -> Any:
        return pane_record(herdr_server, pane).get("agent_session")

    session = wait_until(reported, 10, message="the session ref never arrived")
    assert session == {
        "source": f"herdr:{target}",
        "agent": target,
        "kind": "id",
        "value": f"{target}-sess-1",
        "resume_argv": RESUME_ARGV[target],
    }


RESUME_ARGV = {
    "claude": ["claude", "--resume=claude-sess-1"],
    "codex": ["codex", "resume", "--", "codex-sess-1"],
}


HERMES_DRIVER = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("herdr_hermes_plugin", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
hooks = {}
class Ctx:
    def register_hook(self, name, fn):
        hooks[name] = fn
mod.register(Ctx())
hooks["on_session_start"](session_id="h-1", platform="cli")
hooks["on_session_start"](session_id="h-2", platform="telegram")
hooks["on_session_reset"](session_id="h-3", platform="tui")
hooks["pre_llm_call"](session_id="h-4", platform="tui")
hooks["pre_llm_call"](session_id="h-5", platform="cli")
"""


@pytest.mark.parametrize("inside", [True, False], ids=["in-herdr", "outside"])
def test_hermes_plugin_reports_interactive_sessions(
    home: Path, capture: Capture, inside: bool
) -> None:
    (home / ".hermes").mkdir()
    integrations.install("hermes", {"HOME": str(home)})
    plugin = home / ".hermes/plugins/herdr-agent-state/__init__.py"
    env = _hook_env(capture.path, "w1:p1")
    if not inside:
        del env["HERDR_ENV"]
    done = subprocess.run(
        [sys.executable, "-c", HERMES_DRIVER, str(plugin)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    if not inside:
        assert capture.lines == []
        return
    wait_until(lambda: len(capture.lines) >= 3, 10)
    assert _params(capture) == [
        ("pane.report_agent_session", {"agent_session_id": s, "session_start_source": src})
        for s, src in (("h-1", "startup"), ("h-3", "new"), ("h-5", "resume"))
    ]


# --- the JS/TS plugins, driven by Node with the agent's API faked --------------------------

PI_DRIVER = """
const mod = await import(process.argv[2]);
const handlers = {};
const bus = {};
const pi = { on: (n, f) => { handlers[n] = f; }, events: { on: (n, f) => { bus[n] = f; } } };
mod.default(pi);
if (!handlers.session_start) { console.log("no-handlers"); process.exit(0); }
let idle = true;
const ctx = {
  mode: "tui",
  hasUI: true,
  isIdle: () => idle,
  sessionManager: { getSessionFile: () => "/tmp/pi-session.jsonl", getSessionId: () => "x" },
};
await handlers.session_start({ reason: "startup" }, ctx);
idle = false;
await handlers.agent_start({}, ctx);
if (process.argv[3] === "settle") { idle = true; await handlers.agent_settled({}, ctx); }
"""

OPENCODE_DRIVER = """
const mod = await import(process.argv[2]);
const hooks = await mod.HerdrAgentStatePlugin({});
if (!hooks.event) { console.log("no-hooks"); process.exit(0); }
const ev = (type, properties) => hooks.event({ event: { type, properties } });
await ev("session.created", { info: { id: "ses_root" } });
await ev("session.updated", { info: { id: "ses_root" } });
await ev("session.updated", { info: { id: "ses_root" } });
await ev("session.created", { info: { id: "ses_child", parentID: "ses_root" } });
await ev("tool.execute.before", { sessionID: "ses_child" });
await ev("permission.asked", { sessionID: "ses_child" });
await ev("session.status", { sessionID: "ses_root", status: { type: "busy" } });
if (process.argv[3] === "idle") await ev("session.idle", { sessionID: "ses_root" });
"""


def _node(driver: str, module: Path, env: dict[str, str], *args: str) -> str:
    assert NODE is not None
    script = module.parent / "driver.mjs"
    script.write_text(driver)
    copy = module.parent / (module.stem + ".mjs")  # the .ts extension is plain JS inside
    shutil.copyfile(module, copy)
    done = subprocess.run(
        [NODE, str(script), str(copy), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _params(capture: Capture) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for line in capture.lines:
        params = dict(line["params"])
        params.pop("seq", None)
        params.pop("pane_id")
        params.pop("source")
        params.pop("agent")
        out.append((line["method"], params))
    return out


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize(
    ("target", "module"),
    [
        ("pi", ".pi/agent/extensions/herdr-agent-state.ts"),
        ("omp", ".omp/agent/extensions/herdr-omp-agent-state.ts"),
    ],
)
def test_pi_extension_reports_session_then_state(
    home: Path, capture: Capture, target: str, module: str
) -> None:
    (home / module).parent.parent.mkdir(parents=True, exist_ok=True)
    integrations.install(target, {"HOME": str(home)})
    _node(PI_DRIVER, home / module, _hook_env(capture.path, "w1:p1"), "settle")
    ref = {"agent_session_path": "/tmp/pi-session.jsonl"}
    assert _params(capture) == [
        ("pane.report_agent_session", {**ref, "session_start_source": "startup"}),
        ("pane.report_agent", {**ref, "state": "idle"}),
        ("pane.report_agent_session", ref),
        ("pane.report_agent", {**ref, "state": "working"}),
        ("pane.report_agent", {**ref, "state": "idle"}),
    ]
    seqs = [line["params"]["seq"] for line in capture.lines]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert {line["params"]["source"] for line in capture.lines} == {f"herdr:{target}"}


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize(
    ("target", "module", "start"),
    [
        # opencode (unlike herdr's) claims its first root session as "startup", so the server
        # anchors it even when no TUI selection report comes (see test_plugin_state_reaches…)
        (
            "opencode",
            ".config/opencode/plugins/herdr-agent-state.js",
            {"session_start_source": "startup"},
        ),
        ("kilo", ".config/kilo/plugin/herdr-agent-state.js", {"session_start_source": "startup"}),
    ],
)
def test_opencode_plugin_maps_events(
    home: Path, capture: Capture, target: str, module: str, start: dict[str, str]
) -> None:
    (home / ".config/kilo").mkdir(exist_ok=True)
    integrations.install(target, {"HOME": str(home)})
    _node(OPENCODE_DRIVER, home / module, _hook_env(capture.path, "w1:p1"), "idle")
    root = {"agent_session_id": "ses_root"}
    assert {line["params"]["source"] for line in capture.lines} == {f"herdr:{target}"}
    assert _params(capture) == [
        ("pane.report_agent_session", {**root, **start}),  # once: not re-reported
        ("pane.report_agent", {"state": "blocked"}),  # a child's question, no session id
        ("pane.report_agent", {**root, "state": "working"}),
        ("pane.report_agent", {**root, "state": "idle"}),
    ]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize(
    ("target", "driver", "module", "nothing"),
    [
        ("pi", PI_DRIVER, ".pi/agent/extensions/herdr-agent-state.ts", "no-handlers"),
        ("opencode", OPENCODE_DRIVER, ".config/opencode/plugins/herdr-agent-state.js", "no-hooks"),
    ],
)
def test_plugins_stay_off_outside_herdr(
    capture: Capture, target: str, driver: str, module: str, nothing: str
) -> None:
    home = capture.path.parent
    integrations.install(target, {"HOME": str(home)})
    env = _hook_env(capture.path, "w1:p1")
    del env["HERDR_ENV"]
    assert _node(driver, home / module, env).strip() == nothing
    assert capture.lines == []


# opencode regression: a full-lifecycle reporter counts only once a session claim with a
# start source anchored it (§9.5/§9.6); herdr's opencode server plugin sends none (its TUI
# plugin's "select" anchors), so a process named opencode running only the server plugin
# had every report dropped. Ours claims its first root session as "startup".
@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize(
    ("target", "driver", "base", "module"),
    [
        ("pi", PI_DRIVER, "HOME", ".pi/agent/extensions/herdr-agent-state.ts"),
        # the server's env sets XDG_CONFIG_HOME, which opencode (and so our install) follows
        ("opencode", OPENCODE_DRIVER, "XDG_CONFIG_HOME", "opencode/plugins/herdr-agent-state.js"),
    ],
)
def test_plugin_state_reaches_a_real_server(
    herdr_server: ServerHandle, target: str, driver: str, base: str, module: str
) -> None:
    """The plugin runs inside a real pane (as a process named like the agent, so the
    server sees the agent it reports for) with the env the server gives every pane."""
    assert NODE is not None
    home = Path(herdr_server.env[base])
    (home / module).parent.parent.mkdir(parents=True, exist_ok=True)
    integrations.install(target, herdr_server.env)
    plugin = home / module
    script = plugin.parent / "driver.mjs"
    go = herdr_server.root / f"go-{target}"
    wait_for_go = (
        'import { existsSync } from "node:fs";\n'
        "while (!existsSync(process.env.GO_FILE)) await new Promise((r) => setTimeout(r, 20));\n"
    )
    hold = "\nawait new Promise((r) => setTimeout(r, 60000));\n"
    script.write_text(wait_for_go + driver + hold)
    copy = plugin.parent / (plugin.stem + ".mjs")
    shutil.copyfile(plugin, copy)
    bin_dir = herdr_server.root / "agent-bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / target).symlink_to(NODE)
    pane = _fresh_pane(herdr_server)
    command = f"GO_FILE={go} exec {bin_dir / target} {script} {copy}\n"
    ok(herdr_server.request("pane.send_text", {"pane_id": pane, "text": command}))
    # the server must see the agent's process before its reports count
    wait_until(lambda: pane_record(herdr_server, pane).get("agent") == target, 20)
    go.touch()

    def working() -> bool:
        record = pane_record(herdr_server, pane)
        return record.get("agent") == target and record["agent_status"] == "working"

    wait_until(working, 20, message=f"{target} state never reached the pane")


def test_the_command_in_settings_runs_the_hook_even_with_quotes_in_the_path(
    capture: Capture,
) -> None:
    """What the agent actually runs is the command string from its settings, through a shell."""
    home = capture.path.parent
    odd = home / 'it\'s a "dir" $HOME'
    odd.mkdir()
    integrations.install("claude", {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(odd)})
    settings = json.loads((odd / "settings.json").read_text())
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    done = subprocess.run(
        ["sh", "-c", command],
        input=json.dumps({"session_id": "q-1"}),
        env=_hook_env(capture.path, "w1:p1"),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    wait_until(lambda: capture.lines, 10, message="no report arrived")
    assert capture.lines[0]["params"]["agent_session_id"] == "q-1"


@pytest.mark.parametrize("target", sorted(SCRIPTS))
def test_hook_gives_up_on_a_server_that_never_answers(home: Path, target: str) -> None:
    """A socket that accepts but never replies: the hook's own timeout ends it, exit 0."""
    integrations.install(target, {"HOME": str(home), "PATH": "/nonexistent"})
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path = home / "mute.sock"
    mute.bind(str(path))
    mute.listen(16)
    try:
        payload = {"session_id": "s", "transcript_path": "/tmp/t", "conversationId": "c"}
        done = _run_hook(home / SCRIPTS[target], payload, _hook_env(path, "w1:p1"), "working")
        if target not in ("mastracode", "kimi"):  # the session-only hooks ignore "working"
            done = _run_hook(home / SCRIPTS[target], payload, _hook_env(path, "w1:p1"))
    finally:
        mute.close()
    assert done.returncode == 0 and done.stderr == ""


@pytest.mark.parametrize("target", ["claude", "mastracode"])
def test_hook_imports_nothing_from_the_agents_project(capture: Capture, target: str) -> None:
    """The agent runs hooks in its project directory; a json.py there (or on PYTHONPATH)
    must not be imported by the hook's python."""
    home = capture.path.parent
    integrations.install(target, {"HOME": str(home), "PATH": "/nonexistent"})
    project = home / "project"
    project.mkdir()
    planted = home / "planted"
    for name in ("json.py", "socket.py", "random.py"):
        (project / name).write_text(f"open({str(planted)!r}, 'w').write('{name}')\n")
    env = _hook_env(capture.path, "w1:p1", PYTHONPATH=str(project))
    done = _run_hook(home / SCRIPTS[target], {"session_id": "p-1"}, env, cwd=project)
    assert done.returncode == 0
    wait_until(lambda: capture.lines, 10, message="no report arrived")
    assert not planted.exists()
