"""The real agent CLIs (pinned, from npm) in real herdr panes, with our integration
installed the way a user does it (`herdr integration install …`) and the agent pointed at
our own fake model (tests/fixtures/fake_model.py), offline.

* opencode, pi (full lifecycle): their hook reports drive the pane: working → blocked
  (opencode's permission request; pi has no permission prompt) → working → done, the
  pane's authority is the hook (``agent.get`` session source, ``agent.explain`` skip
  reason) and no screen rule is evaluated while the hook reports.
* claude, codex (session only): a real run reports the native session id through our
  hook, and after a server restart the pane resumes exactly that session.

The CLIs come from ``scripts/agent-clis`` (cached under ~/.cache/herdr-test-agents);
the tests skip, saying why, only when the npm registry cannot be reached.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fixtures.fake_model import FakeModel, Script, Text, ToolCall
from herdr_testing import HerdrEnv, Server, ServerHandle, wait_until
from herdr_testing.fake_env import ok, pane_record

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
INSTALLER = REPO / "scripts" / "agent-clis"
BOOT = 120.0  # first start of a CLI (opencode fetches its provider package once)
TURN = 60.0


def _cache_dir() -> str:
    """The real user's cache: pytest runs with a private HOME, the CLIs are shared."""
    home = pwd.getpwuid(os.getuid()).pw_dir
    return os.environ.get("HERDR_TEST_AGENTS") or f"{home}/.cache/herdr-test-agents"


@pytest.fixture(scope="session")
def agent_cli() -> Callable[[str], Path]:
    """``agent_cli("opencode")`` → the pinned CLI's executable, installed once per cache."""
    found: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in found:
            done = subprocess.run(
                [str(INSTALLER), name],
                env={**os.environ, "HERDR_TEST_AGENTS": _cache_dir()},
                capture_output=True,
                text=True,
                timeout=1800,
                check=False,
            )
            if done.returncode == 3:
                pytest.skip(f"{name}: {done.stderr.strip()} (needed to install the real CLI)")
            assert done.returncode == 0, done.stderr
            agent, _, path = done.stdout.strip().splitlines()[-1].partition("\t")
            assert agent == name
            found[name] = Path(path)
        return found[name]

    return get


@pytest.fixture
def model() -> Iterator[FakeModel]:
    with FakeModel(Script()) as fake:
        yield fake


# --------------------------------------------------------------------------- helpers


def screen(server: ServerHandle | Server, pane: str) -> str:
    read = server.request("pane.read", {"pane_id": pane, "source": "recent", "lines": 200})
    return str(ok(read)["read"]["text"])


def wait_screen(server: ServerHandle | Server, pane: str, text: str, timeout: float = 60) -> None:
    def shown() -> bool:
        return text in screen(server, pane)

    try:
        wait_until(shown, timeout, interval=0.1)
    except TimeoutError:
        raise AssertionError(f"{text!r} never shown:\n{screen(server, pane)[-2000:]}") from None


def explain(server: ServerHandle, pane: str) -> dict[str, Any]:
    return dict(ok(server.request("agent.explain", {"target": pane}))["explain"])


def agent_info(server: ServerHandle, pane: str) -> dict[str, Any]:
    return dict(ok(server.request("agent.get", {"target": pane}))["agent"])


def type_line(server: ServerHandle | Server, pane: str, text: str) -> None:
    ok(server.request("pane.send_text", {"pane_id": pane, "text": text}))
    ok(server.request("pane.send_keys", {"pane_id": pane, "keys": ["Enter"]}))


def type_prompt(server: ServerHandle | Server, pane: str, text: str) -> None:
    """Type a prompt into an agent's editor and submit it once it shows. An agent that
    drew its banner may not read keys yet (it flushes what came early): type again
    when nothing showed for a while, never twice what did show."""
    for _attempt in range(4):
        ok(server.request("pane.send_text", {"pane_id": pane, "text": text}))
        try:
            wait_until(lambda: text in screen(server, pane), 10, interval=0.1)
            break
        except TimeoutError:
            continue
    ok(server.request("pane.send_keys", {"pane_id": pane, "keys": ["Enter"]}))


def install(server: ServerHandle, target: str) -> None:
    done = server.cli("integration", "install", target)
    assert done.returncode == 0, done.stderr


@dataclass
class Observed:
    """What the pane showed while it was in a state: the proof of single authority."""

    status: str
    explain: dict[str, Any]
    agent: dict[str, Any]


def hook_state(server: ServerHandle, pane: str, status: str, source: str) -> Observed:
    """Wait until the pane's status is ``status`` *from the hook* and return the evidence."""

    def reached() -> Observed | None:
        info = agent_info(server, pane)
        if info.get("agent_status") != status or not info.get("screen_detection_skipped"):
            return None
        if (info.get("agent_session") or {}).get("source") != source:
            return None
        return Observed(status, explain(server, pane), info)

    seen = wait_until(
        reached,
        TURN,
        interval=0.05,
        message=f"pane never reached {status} from {source}:\n{screen(server, pane)[-2000:]}",
    )
    assert seen is not None
    return seen


def assert_hook_authority(seen: Observed, agent: str, source: str) -> None:
    assert seen.agent["agent"] == agent
    assert seen.agent["agent_session"]["source"] == source
    assert seen.explain["screen_detection_skip_reason"] == "full_lifecycle_hook_authority"
    assert seen.explain["evaluated_rules"] == []  # screen rules stand down
    assert seen.explain["matched_rule"] is None


def launch(server: ServerHandle, command: str) -> str:
    ws = ok(server.request("workspace.create", {"cwd": str(server.root)}))
    pane = str(ws["root_pane"]["pane_id"])
    type_line(server, pane, command)
    return pane


# --------------------------------------------------------------------------- full lifecycle


def _opencode_config(config_home: Path, fake: FakeModel) -> None:
    config = config_home / "opencode"
    config.mkdir(parents=True)
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Fake",
        "options": {"baseURL": f"{fake.url}/v1", "apiKey": "x"},
        "models": {"fake-model": {"name": "Fake"}},
    }
    doc = {
        "autoupdate": False,
        "share": "disabled",
        "model": "fake/fake-model",
        "permission": {"bash": "ask"},
        "provider": {"fake": provider},
    }
    (config / "opencode.json").write_text(json.dumps(doc))


def _pi_config(home: Path, fake: FakeModel) -> None:
    agent = home / ".pi" / "agent"
    agent.mkdir(parents=True)
    provider = {
        "baseUrl": f"{fake.url}/v1",
        "api": "openai-completions",
        "apiKey": "x",
        "models": [{"id": "fake-model"}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))


def test_opencode_hooks_drive_working_blocked_working_done(
    herdr_server: ServerHandle, agent_cli: Callable[[str], Path], model: FakeModel
) -> None:
    opencode = agent_cli("opencode")
    first, second = threading.Event(), threading.Event()
    model.script.first = ToolCall("touch fake-approval.txt")
    model.script.after_tool = Text("Done: the file was created.")
    model.script.holds = [first, second]
    # the test tree's XDG_CONFIG_HOME is not ~/.config: opencode reads it, and so must we
    _opencode_config(Path(herdr_server.env["XDG_CONFIG_HOME"]), model)
    install(herdr_server, "opencode")
    pane = launch(herdr_server, f"exec {opencode}")
    wait_screen(herdr_server, pane, "Ask anything", BOOT)
    type_prompt(herdr_server, pane, "please create the file")

    source = "herdr:opencode"
    working = hook_state(herdr_server, pane, "working", source)  # the turn is held
    first.set()
    blocked = hook_state(herdr_server, pane, "blocked", source)  # its permission dialog
    wait_screen(herdr_server, pane, "Allow once")  # the hook may report before it is drawn
    assert not (herdr_server.root / "fake-approval.txt").exists()
    ok(herdr_server.request("pane.send_keys", {"pane_id": pane, "keys": ["Enter"]}))  # allow
    again = hook_state(herdr_server, pane, "working", source)
    assert (herdr_server.root / "fake-approval.txt").exists()
    second.set()
    done = hook_state(herdr_server, pane, "done", source)
    wait_screen(herdr_server, pane, "Done: the file was created.")
    for seen in (working, blocked, again, done):
        assert_hook_authority(seen, "opencode", source)
    session = done.agent["agent_session"]
    assert session["kind"] == "id" and session["value"].startswith("ses_")


def test_pi_hooks_drive_working_then_done(
    herdr_server: ServerHandle, agent_cli: Callable[[str], Path], model: FakeModel
) -> None:
    """Pi has no permission prompt (it runs its tools), so there is no blocked step."""
    pi = agent_cli("pi")
    home = Path(herdr_server.env["HOME"])
    first, second = threading.Event(), threading.Event()
    model.script.holds = [first, second]
    _pi_config(home, model)
    install(herdr_server, "pi")
    pane = launch(herdr_server, f"exec {pi} --provider fake --model fake-model")
    wait_screen(herdr_server, pane, "escape interrupt", BOOT)
    type_prompt(herdr_server, pane, "please create the file")

    source = "herdr:pi"
    working = hook_state(herdr_server, pane, "working", source)
    first.set()
    wait_until((herdr_server.root / "fake-approval.txt").exists, TURN)
    still = hook_state(herdr_server, pane, "working", source)  # answer after the tool held
    second.set()
    done = hook_state(herdr_server, pane, "done", source)
    wait_screen(herdr_server, pane, "Done: the file was created.")
    for seen in (working, still, done):
        assert_hook_authority(seen, "pi", source)
    session = done.agent["agent_session"]
    assert session["kind"] == "path" and session["value"].endswith(".jsonl")


# --------------------------------------------------------------------------- session + resume


def _claude_setup(home: Path, work: Path, fake: FakeModel, key: str) -> dict[str, str]:
    """Skip onboarding, the trust-folder and the API-key dialogs (already answered)."""
    doc = {
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "autoUpdates": False,
        "customApiKeyResponses": {"approved": [key[-20:]], "rejected": []},
        "projects": {str(work): {"hasTrustDialogAccepted": True, "allowedTools": []}},
    }
    (home / ".claude.json").write_text(json.dumps(doc))
    (home / ".claude").mkdir(exist_ok=True)
    return {
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": key,
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }


def _codex_setup(home: Path, work: Path, fake: FakeModel) -> dict[str, str]:
    codex_home = home / ".codex"
    codex_home.mkdir(exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model_provider = "fake"\n'
        'model = "fake-model"\n'
        "check_for_update_on_startup = false\n"
        f'[projects."{work}"]\n'
        'trust_level = "trusted"\n'
        "[model_providers.fake]\n"
        'name = "fake"\n'
        f'base_url = "{fake.url}/v1"\n'
        'env_key = "FAKE_KEY"\n'
        'wire_api = "responses"\n'
    )
    return {"FAKE_KEY": "x"}


RESUME_ARGS: dict[str, Callable[[str], list[str]]] = {
    "claude": lambda sid: [f"--resume={sid}"],  # joined: persist/resume.py says why
    "codex": lambda sid: ["resume", "--", sid],
}
SESSION_ONLY = {
    # target: (ready text, what the resumed session shows, how its id looks)
    "claude": ("shift+tab to cycle", "please create the file", r"[0-9a-f-]{36}"),
    "codex": ("Ask Codex to do anything", "please create the file", r"[0-9a-f-]{36}"),
}


@pytest.fixture
def reap_daemons(herdr_env: HerdrEnv) -> Iterator[None]:
    """codex leaves `codex app-server` daemons (run from its HOME) behind: end them by pid."""
    yield
    home = herdr_env.env["HOME"]
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            exe = (entry / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        if exe.startswith(home + "/"):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(entry.name), signal.SIGTERM)


@pytest.mark.parametrize("target", sorted(SESSION_ONLY))
@pytest.mark.usefixtures("reap_daemons")
def test_session_only_agent_reports_its_session_and_resumes_after_restart(
    herdr_env: HerdrEnv,
    agent_cli: Callable[[str], Path],
    model: FakeModel,
    target: str,
) -> None:
    cli = agent_cli(target)
    ready, shown, id_pattern = SESSION_ONLY[target]
    h = herdr_env
    work = h.root / "proj"
    work.mkdir()
    home = Path(h.env["HOME"])
    model.script.first = Text("Hello from the fake model.")
    if target == "claude":
        extra = _claude_setup(home, work, model, "sk-ant-api03-" + "f" * 40)
    else:
        extra = _codex_setup(home, work, model)
    bin_dir = h.root / "agent-bin"
    bin_dir.mkdir()
    (bin_dir / target).symlink_to(cli)  # on PATH: the resume runs `claude --resume …`
    env = {
        **extra,
        "PATH": f"{bin_dir}:{h.env['PATH']}",
        "HERDR_TEST_PERSIST_TIMING": "debounce=0.02,sample=0.1",
    }
    h.env.update(env)
    server = h.start_server()
    handle = ServerHandle(h, server)
    install(handle, target)
    ws = ok(server.request("workspace.create", {"cwd": str(work)}))
    pane = str(ws["root_pane"]["pane_id"])
    type_line(server, pane, target)
    if target == "codex":
        # codex asks once to trust new hooks (ours): it reads as blocked, and the
        # structured approval answers it (option 2, "Trust all and continue")
        wait_screen(server, pane, "Trust all and continue", BOOT)

        def dialog() -> dict[str, Any] | None:
            found = ok(server.request("agent.approval", {"target": pane}))["approval"]
            return found if found and found["rule"] == "hooks_review_dialog" else None

        record = wait_until(dialog, BOOT, interval=0.2, message="no hooks-review approval")
        assert record is not None
        assert [o["label"] for o in record["options"]][1] == "Trust all and continue"
        wait_until(
            lambda: agent_info(handle, pane)["agent_status"] == "blocked",
            BOOT,
            message="the hooks-review screen does not read blocked",
        )

        def trusted() -> bool:  # the menu may not take keys the moment it is drawn:
            if "Trust all and continue" not in screen(server, pane):
                return True  # keys are recomputed from the selection on every try
            server.request("agent.approve", {"target": pane, "option_id": "2"})
            return False

        wait_until(trusted, BOOT, interval=2.0, message="codex's trust choice")
    wait_screen(server, pane, ready, BOOT)
    type_prompt(server, pane, "please create the file")

    def reported() -> dict[str, Any] | None:
        session = pane_record(handle, pane).get("agent_session")
        return session if session and session["source"] == f"herdr:{target}" else None

    session = wait_until(reported, TURN, interval=0.1, message="no session id reported")
    assert session is not None
    assert (session["agent"], session["kind"]) == (target, "id")
    assert re.fullmatch(id_pattern, session["value"]), session
    wait_until(lambda: "Hello from the fake model." in screen(server, pane), TURN)

    assert h.cli("server", "stop").returncode == 0
    server.proc.wait(20)
    again = h.start_server()

    def resumed() -> bool:
        return shown in screen(again, pane)

    wait_until(
        resumed,
        BOOT,
        interval=0.2,
        message=f"{target} did not resume:\n{screen(again, pane)[-2000:]}",
    )
    argv = wait_until(lambda: _pane_argv(pane, session["value"]), TURN)
    assert argv is not None
    assert RESUME_ARGS[target](session["value"]) == argv[-len(RESUME_ARGS[target]("x")) :]


def _pane_argv(pane: str, session_id: str) -> list[str] | None:
    """The argv of the process in ``pane`` (by its HERDR_PANE_ID) that names the session."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in args if a]
        if f"HERDR_PANE_ID={pane}".encode() in environ and any(session_id in w for w in words):
            return words
    return None
