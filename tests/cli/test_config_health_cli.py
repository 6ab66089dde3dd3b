"""Config errors do not hide: ``server reload-config`` exit codes, ``herdr status``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from herdr_testing import ServerHandle


def _config(server: ServerHandle) -> Path:
    path = Path(server.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


RELOADS = [
    pytest.param("[server]\nheadless_cols = 100\n", "applied", 0, "", id="applied"),
    pytest.param(
        "[ui]\nsidebar_widht = 30\n", "applied", 0, "config.toml:2:1: warning", id="unknown-key"
    ),
    pytest.param("[server]\nheadless_cols = -3\n", "partial", 1, ":2:1: error", id="partial"),
    pytest.param("[server\nheadless_cols = ", "failed", 1, ":1:8: error: TOML", id="failed"),
]


@pytest.mark.parametrize(("text", "status", "code", "stderr"), RELOADS)
def test_reload_config_exit_code_and_problems(
    herdr_server: ServerHandle, text: str, status: str, code: int, stderr: str
) -> None:
    _config(herdr_server).write_text(text, encoding="utf-8")
    result = herdr_server.cli("server", "reload-config")
    assert result.returncode == code, result.stderr
    assert json.loads(result.stdout)["result"]["status"] == status
    if stderr:
        assert stderr in result.stderr
        if "unknown" in stderr or "warning" in stderr:
            assert "did you mean 'ui.sidebar_width'" in result.stderr
    else:
        assert result.stderr == ""


def test_status_reports_config_health(herdr_server: ServerHandle) -> None:
    config = _config(herdr_server)
    result = herdr_server.cli("status")
    assert "config:\n  status: missing" in result.stdout
    config.write_text("[ui\nsidebar_width = 30\n", encoding="utf-8")
    result = herdr_server.cli("status")
    assert result.returncode == 0
    assert "config.toml has errors" in result.stdout.splitlines()[0]
    assert f"{config}:1:4: error: TOML syntax error" in result.stdout
    assert "no action needed" not in result.stdout
    assert f"next: fix {config}" in result.stdout
    doc = json.loads(herdr_server.cli("status", "--json").stdout)
    assert doc["config"]["status"] == "error"
    assert doc["config"]["problems"][0].startswith(f"{config}:1:4: error:")
    config.write_text("[ui]\nsidebar_width = 30\n", encoding="utf-8")
    result = herdr_server.cli("status")
    assert "config:\n  status: ok" in result.stdout
    assert "next: no action needed" in result.stdout
