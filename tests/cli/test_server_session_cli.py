"""``status``, ``session``, ``api schema`` and ``--default-config`` through the real CLI."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from herdr import PROTOCOL_VERSION, __version__
from herdr_testing import HerdrEnv, ServerHandle


def test_status_without_server(herdr_env: HerdrEnv) -> None:
    result = herdr_env.cli("status", "server", "--json")
    assert result.returncode == 0
    doc = json.loads(result.stdout)
    assert doc["running"] is False
    assert doc["status"] == "not_running"
    assert doc["socket"] == str(herdr_env.socket_path())
    text = herdr_env.cli("status")
    assert "server not running" in text.stdout


def test_status_with_server(herdr_server: ServerHandle) -> None:
    doc = json.loads(herdr_server.cli("status", "--json").stdout)
    assert doc["client"]["protocol"] == PROTOCOL_VERSION
    assert doc["server"]["running"] is True
    assert doc["server"]["version"] == __version__
    assert doc["server"]["compatible"] is True
    assert doc["update"]["restart_needed"] is False
    text = herdr_server.cli("status", "server").stdout
    assert "status: running" in text
    assert "client and server match" in text
    client = json.loads(herdr_server.cli("status", "client", "--json").stdout)
    assert client["version"] == __version__


def test_named_sessions_list_stop_delete(herdr_env: HerdrEnv) -> None:
    """Scenarios 35 and 36 (the workspace part of 35 is in the model tests)."""
    default = herdr_env.start_server()
    work = herdr_env.start_server(env={"HERDR_SESSION": "work"})
    assert (
        work.socket_path
        == Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr/sessions/work/herdr.sock"
    )
    assert work.alive() and default.alive()
    herdr_env.start_server("--session", "alpha")

    listing = json.loads(herdr_env.cli("session", "list", "--json").stdout)["sessions"]
    assert [s["name"] for s in listing] == ["default", "alpha", "work"]
    assert listing[0]["default"] is True
    assert all(s["running"] for s in listing)
    assert listing[2]["socket_path"] == str(work.socket_path)
    assert listing[2]["session_dir"] == str(work.socket_path.parent)

    stopped = herdr_env.cli("session", "stop", "work", "--json")
    assert stopped.returncode == 0, stopped.stderr
    doc = json.loads(stopped.stdout)
    assert doc["stopped"] is True
    assert doc["session"]["name"] == "work"
    assert doc["session"]["running"] is False
    assert work.proc.wait(10) == 0

    deleted = herdr_env.cli("session", "delete", "work", "--json")
    assert deleted.returncode == 0, deleted.stderr
    assert json.loads(deleted.stdout)["deleted"] is True
    assert not work.socket_path.parent.exists()

    refused = herdr_env.cli("session", "delete", "default")
    assert refused.returncode == 1
    assert json.loads(refused.stderr)["error"]["code"] == "session_delete_failed"

    running = herdr_env.cli("session", "delete", "alpha")
    assert running.returncode == 1
    assert "running" in json.loads(running.stderr)["error"]["message"]

    text = herdr_env.cli("session", "list").stdout
    assert "alpha" in text and "work" not in text


def test_session_stop_default_and_not_running(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server()
    assert herdr_env.cli("session", "stop", "default").stdout.strip() == "stopped session default"
    assert server.proc.wait(10) == 0
    again = herdr_env.cli("session", "stop", "default")
    assert again.returncode == 1
    assert json.loads(again.stderr)["error"]["code"] == "session_stop_failed"


def test_invalid_session_names(herdr_env: HerdrEnv) -> None:
    bad = herdr_env.cli("session", "stop", "../x")
    assert bad.returncode == 1
    assert json.loads(bad.stderr)["error"]["code"] == "invalid_session_name"
    usage = herdr_env.cli("--session", "a/b", "status")
    assert usage.returncode == 2


def test_session_flag_after_verb(herdr_env: HerdrEnv) -> None:
    server = herdr_env.start_server("--session", "w2")
    result = herdr_env.cli("server", "stop", "--session", "w2")
    assert result.returncode == 0, result.stderr
    assert server.proc.wait(10) == 0


def test_session_env_var_scopes_cli(herdr_env: HerdrEnv) -> None:
    herdr_env.start_server("--session", "s1")
    doc = json.loads(
        herdr_env.cli("status", "server", "--json", env={"HERDR_SESSION": "s1"}).stdout
    )
    assert doc["running"] is True
    assert doc["session"] == "s1"
    default = json.loads(herdr_env.cli("status", "server", "--json").stdout)
    assert default["running"] is False


def test_default_config_is_toml_with_prefix(herdr_env: HerdrEnv) -> None:
    result = herdr_env.cli("--default-config")
    assert result.returncode == 0
    assert 'prefix = "ctrl+b"' in result.stdout
    config = tomllib.loads(result.stdout)
    assert config["server"] == {"headless_cols": 120, "headless_rows": 40, "max_connections": 512}
    assert config["experimental"]["pane_history"] is False


def test_api_schema(herdr_env: HerdrEnv) -> None:
    doc = json.loads(herdr_env.cli("api", "schema", "--json").stdout)
    assert set(doc["schemas"]) == {
        "request",
        "success_response",
        "error_response",
        "event",
        "subscription_event",
    }
    assert doc["protocol"] == PROTOCOL_VERSION
    out = herdr_env.root / "schema.json"
    written = herdr_env.cli("api", "schema", "--json", "--output", str(out))
    assert written.returncode == 0 and written.stdout == ""
    assert json.loads(out.read_text()) == doc
    summary = herdr_env.cli("api", "schema").stdout
    assert "events.subscribe" in summary


def test_usage_errors_exit_2(herdr_env: HerdrEnv) -> None:
    assert herdr_env.cli("status", "bogus").returncode == 2
    assert herdr_env.cli("session").returncode == 2


def _config(server: ServerHandle) -> Path:
    path = Path(server.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _new_pane(server: ServerHandle) -> str:
    created = server.request("workspace.create", {"focus": False})["result"]
    workspace_id = created["workspace"]["workspace_id"]
    panes = server.request("pane.list", {"workspace_id": workspace_id})["result"]["panes"]
    return str(panes[0]["pane_id"])


def _shows(server: ServerHandle, pane: str, text: str) -> bool:
    waited = server.cli("pane", "wait-output", pane, "--match", text, "--timeout", "10000")
    return waited.returncode == 0


def test_reload_config_applies_keeps_and_reports(herdr_server: ServerHandle) -> None:
    """``server reload-config``: applied / partial (defaults for bad values) / failed
    (a broken file leaves the running settings alone), seen in the shell of new panes."""
    shell = herdr_server.root / "marked-shell"
    shell.write_text("#!/bin/sh\necho MARKED''-SHELL\nexec /bin/sh\n", encoding="utf-8")
    shell.chmod(0o755)
    config = _config(herdr_server)
    config.write_text(f'[terminal]\ndefault_shell = "{shell}"\n', encoding="utf-8")
    before = _new_pane(herdr_server)
    herdr_server.cli("pane", "send-text", before, "echo plain''-shell\n")
    assert _shows(herdr_server, before, "plain-shell")
    assert "MARKED-SHELL" not in herdr_server.cli("pane", "read", before).stdout

    out = json.loads(herdr_server.cli("server", "reload-config").stdout)
    assert out["result"] == {"type": "config_reload", "status": "applied", "diagnostics": []}
    assert _shows(herdr_server, _new_pane(herdr_server), "MARKED-SHELL")

    config.write_text(
        f'[terminal]\ndefault_shell = "{shell}"\n[server]\nheadless_cols = -3\n', "utf-8"
    )
    result = json.loads(herdr_server.cli("server", "reload-config").stdout)["result"]
    assert result["status"] == "partial"
    assert any("headless_cols" in line for line in result["diagnostics"])
    assert _shows(herdr_server, _new_pane(herdr_server), "MARKED-SHELL")

    config.write_text("[terminal\ndefault_shell = ", encoding="utf-8")
    result = json.loads(herdr_server.cli("server", "reload-config").stdout)["result"]
    assert result["status"] == "failed"
    assert "cannot read" in result["diagnostics"][0]
    assert _shows(herdr_server, _new_pane(herdr_server), "MARKED-SHELL")  # settings kept
