"""``integration.install|uninstall|list`` on a live server, every result checked against
herdr's published protocol-22 schema; paths come from the server's own environment."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from herdr.integrations.targets import TARGETS
from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.fake_env import code, ok
from herdr_testing.schema22 import assert_valid_response


@pytest.fixture
def server(herdr_env: HerdrEnv) -> ServerHandle:
    home = Path(herdr_env.env["HOME"])
    (home / ".claude").mkdir()
    bin_dir = herdr_env.root / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    env = {
        "CODEX_HOME": str(herdr_env.root / "codex-home"),
        "PATH": f"{bin_dir}:{herdr_env.env['PATH']}",
    }
    (herdr_env.root / "codex-home").mkdir()
    return ServerHandle(herdr_env, herdr_env.start_server(env=env))


def _info(server: ServerHandle) -> dict[str, dict[str, object]]:
    resp = server.request("integration.list", {})
    assert_valid_response(resp)
    return {r["target"]: r for r in ok(resp)["integrations"]}


def test_list_covers_every_target(server: ServerHandle) -> None:
    info = _info(server)
    assert list(info) == [t.name for t in TARGETS]
    assert info["claude"] == {
        "target": "claude",
        "label": "claude",
        "command": "claude",
        "available": True,
        "state": "not_installed",
    }
    assert info["antigravity_cli"]["label"] == "antigravity-cli"
    assert info["antigravity_cli"]["command"] == "agy"
    assert info["codex"]["available"] is False


@pytest.mark.parametrize("target", ["claude", "codex"])
def test_install_then_uninstall(server: ServerHandle, target: str) -> None:
    resp = server.request("integration.install", {"target": target})
    assert_valid_response(resp)
    result = ok(resp)
    assert result["type"] == "integration_install" and result["target"] == target
    messages = result["details"]["messages"]
    assert messages[0].startswith(f"installed {target} integration hook to ")
    assert _info(server)[target]["state"] == "current"
    if target == "codex":  # the server's CODEX_HOME, not the test's
        assert str(server.root / "codex-home") in messages[0]
    resp = server.request("integration.uninstall", {"target": target})
    assert_valid_response(resp)
    result = ok(resp)
    assert result["type"] == "integration_uninstall" and result["target"] == target
    assert result["details"]["messages"][0].startswith(f"removed {target} hook at ")
    assert _info(server)[target]["state"] == "not_installed"


def test_install_failure_has_its_code_and_changes_nothing(server: ServerHandle) -> None:
    settings = Path(server.env["HOME"]) / ".claude" / "settings.json"
    settings.write_text('{"broken": ,}')
    resp = server.request("integration.install", {"target": "claude"})
    assert code(resp) == "integration_install_failed"
    assert str(settings) in resp["error"]["message"]
    assert settings.read_text() == '{"broken": ,}'
    assert not (settings.parent / "hooks").exists()
    resp = server.request("integration.uninstall", {"target": "claude"})
    assert code(resp) == "integration_uninstall_failed"
    assert server.request("ping", {})["result"]["type"] == "pong"


def test_missing_agent_dir_is_install_failed(server: ServerHandle) -> None:
    resp = server.request("integration.install", {"target": "pi"})
    assert code(resp) == "integration_install_failed"
    assert "install pi first" in resp["error"]["message"]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        pytest.param({"target": "vim"}, "invalid_request", id="unknown-target"),
        pytest.param({"target": "antigravity-cli"}, "invalid_request", id="cli-spelling"),
        pytest.param({}, "invalid_request", id="no-target"),
        pytest.param({"target": 3}, "invalid_request", id="not-a-string"),
    ],
)
def test_bad_params_get_one_answer(
    server: ServerHandle, params: dict[str, object], expected: str
) -> None:
    for method in ("integration.install", "integration.uninstall"):
        line = json.dumps({"id": "r1", "method": method, "params": params}).encode() + b"\n"
        replies = server.raw(line).splitlines()
        assert len(replies) == 1
        assert json.loads(replies[0])["error"]["code"] == expected
    assert not (Path(server.env["HOME"]) / ".claude" / "hooks").exists()


def test_other_requests_are_answered_while_an_install_waits(herdr_env: HerdrEnv) -> None:
    """File and process work runs off the event loop: a ping is answered while the kimi
    version probe of an install is still running."""
    home = Path(herdr_env.env["HOME"])
    (home / ".kimi-code").mkdir()
    bin_dir = herdr_env.root / "bin"
    bin_dir.mkdir()
    go = herdr_env.root / "go"
    started = herdr_env.root / "started"
    kimi = bin_dir / "kimi"
    kimi.write_text(
        f"#!/bin/sh\ntouch '{started}'\nwhile [ ! -e '{go}' ]; do sleep 0.05; done\necho 0.15.0\n"
    )
    kimi.chmod(0o755)
    server = herdr_env.start_server(env={"PATH": f"{bin_dir}:{herdr_env.env['PATH']}"})
    held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    held.settimeout(30)
    held.connect(str(server.socket_path))
    try:
        request = {"id": "i1", "method": "integration.install", "params": {"target": "kimi"}}
        held.sendall(json.dumps(request).encode() + b"\n")
        wait_until(started.exists, 20, message="the install never ran kimi --version")
        assert server.request("ping", {})["result"]["type"] == "pong"
        go.touch()
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = held.recv(65536)
            assert chunk, "the server closed the connection"
            reply += chunk
    finally:
        held.close()
    resp = json.loads(reply)
    assert_valid_response(resp)
    assert "requires kimi code 0.14.0 or newer" in resp["result"]["details"]["messages"]
