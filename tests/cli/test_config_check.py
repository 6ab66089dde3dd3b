"""``herdr config check [--json]``: the real CLI on a config file in a private HOME/XDG tree."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from herdr.config import server_settings
from herdr.config.check import KNOWN, check
from herdr_testing import HerdrEnv

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "config-reference.json"


def _config(herdr_env: HerdrEnv) -> Path:
    path = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _run(herdr_env: HerdrEnv, text: str | bytes, *extra: str) -> tuple[int, dict[str, Any]]:
    path = _config(herdr_env)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    result = herdr_env.cli("config", "check", "--json", *extra)
    assert result.stderr == ""
    doc: dict[str, Any] = json.loads(result.stdout)
    return result.returncode, doc


# (config text, exit code, [(severity, key, line, a piece of the message, suggestion)])
CASES = [
    pytest.param("", 0, [], id="empty"),
    pytest.param("[server]\nheadless_cols = 100\n[ui]\nsidebar_width = 30\n", 0, [], id="clean"),
    pytest.param("[server]\nheadless_cols = \n", 1,
                 [("error", None, 2, "TOML syntax error", None)], id="syntax"),
    pytest.param("[ui]\nsidebar_width = 30\n[ui\n", 1,
                 [("error", None, 3, "TOML syntax error", None)], id="syntax-header"),
    pytest.param("[server]\nheadless_colz = 100\n", 0,
                 [("warning", "server.headless_colz", 2, "unknown key",
                   "server.headless_cols")], id="unknown-key"),
    pytest.param("[serverr]\nheadless_cols = 100\n", 0,
                 [("warning", "serverr", 1, "unknown key", "server")], id="unknown-table"),
    pytest.param("[server]\nheadless_cols = \"wide\"\n", 1,
                 [("error", "server.headless_cols", 2, "expected an integer, got a string",
                   None)], id="wrong-type"),
    pytest.param("[server]\nheadless_cols = 0\n", 1,
                 [("error", "server.headless_cols", 2, "expected an integer >= 1", None)],
                 id="not-positive"),
    pytest.param("[terminal]\nshell_mode = \"logn\"\n", 1,
                 [("error", "terminal.shell_mode", 2, "did you mean 'login'", None)],
                 id="enum-typo"),
    pytest.param("[ui]\nsidebar_width = 200\n", 1,
                 [("error", "ui.sidebar_width", 2, "<= 80", None)], id="ui-range"),
    pytest.param("[ui]\nmouse_capture = \"yes\"\n", 1,
                 [("error", "ui.mouse_capture", 2, "expected a boolean", None)], id="ui-bool"),
    pytest.param("server = 1\n", 1, [("error", "server", 1, "must be a table", None)],
                 id="table-as-scalar"),
    pytest.param("onboarding = \"no\"\n", 1,
                 [("error", "onboarding", 1, "expected a boolean", None)], id="top-level-key"),
    pytest.param("[keys]\nnew_workspce = \"prefix+n\"\n", 0,
                 [("warning", "keys.new_workspce", 2, "unknown action",
                   "keys.new_workspace")], id="unknown-binding"),
    pytest.param("[keys]\nsplit_vertical = \"prefix+ctrl+\"\n", 1,
                 [("error", "keys.split_vertical", 2, "missing key", None)], id="bad-binding"),
    pytest.param("[ui.sidebar.agents]\nrows_by_agent = { claude = [[\"agent\"]] }\n", 0, [],
                 id="free-table-of-agent-labels"),
    pytest.param("[ui.sidebar.agents]\nrows = [\"agent\"]\n", 1,
                 [("error", "ui.sidebar.agents.rows", 2, "arrays of strings", None)],
                 id="token-rows"),
    pytest.param("[server]\nheadless_colz = 1\nheadless_rows = -1\n", 1,
                 [("warning", "server.headless_colz", 2, "unknown key", "server.headless_cols"),
                  ("error", "server.headless_rows", 3, ">= 1", None)], id="several-in-order"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "code", "expected"), CASES)
def test_config_check_reports(
    herdr_env: HerdrEnv, text: str, code: int, expected: list[tuple[Any, ...]]
) -> None:
    returncode, doc = _run(herdr_env, text)
    assert returncode == code, doc
    got = doc["problems"]
    assert len(got) == len(expected), got
    for problem, (severity, key, line, piece, suggestion) in zip(got, expected, strict=True):
        assert problem["severity"] == severity, problem
        assert problem["key"] == key, problem
        assert problem["line"] == line, problem
        assert piece in problem["message"], problem
        assert problem["suggestion"] == suggestion, problem
    assert doc["ok"] is (code == 0)
    assert (doc["errors"], doc["warnings"]) == (
        sum(p["severity"] == "error" for p in got),
        sum(p["severity"] == "warning" for p in got),
    )


def test_syntax_error_has_a_column(herdr_env: HerdrEnv) -> None:
    _, doc = _run(herdr_env, "a = 1\nb = [1,,2]\n")
    (problem,) = doc["problems"]
    assert (problem["line"], problem["column"]) == (2, 8)


def test_text_output_names_file_line_and_suggestion(herdr_env: HerdrEnv) -> None:
    path = _config(herdr_env)
    path.write_text('[server]\nheadless_colz = 1\nheadless_rows = "x"\n', encoding="utf-8")
    result = herdr_env.cli("config", "check")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{path}:2:1: warning: unknown key server.headless_colz")
    assert "did you mean 'server.headless_cols'?" in lines[0]
    assert lines[1].startswith(f"{path}:3:1: error: server.headless_rows = 'x'")
    assert lines[-1] == f"{path}: 1 error, 1 warning"


def test_missing_file_is_fine(herdr_env: HerdrEnv) -> None:
    result = herdr_env.cli("config", "check")
    assert result.returncode == 0
    assert "no config file at" in result.stdout and "defaults apply" in result.stdout
    doc = json.loads(herdr_env.cli("config", "check", "--json").stdout)
    assert (doc["exists"], doc["ok"], doc["problems"]) == (False, True, [])


def test_default_config_checks_clean(herdr_env: HerdrEnv) -> None:
    """What ``herdr --default-config`` writes (every key that has a default, set to it)
    is a config ``config check`` accepts without a single warning."""
    rendered = herdr_env.cli("--default-config")
    assert rendered.returncode == 0
    returncode, doc = _run(herdr_env, rendered.stdout)
    assert (returncode, doc["problems"]) == (0, [])


def test_herdr_config_path_is_honoured(herdr_env: HerdrEnv) -> None:
    other = herdr_env.root / "other.toml"
    other.write_text("[server]\nheadless_cols = 0\n", encoding="utf-8")
    _config(herdr_env).write_text("", encoding="utf-8")
    result = herdr_env.cli("config", "check", "--json", env={"HERDR_CONFIG_PATH": str(other)})
    doc = json.loads(result.stdout)
    assert result.returncode == 1
    assert doc["path"] == str(other)
    assert [p["key"] for p in doc["problems"]] == ["server.headless_cols"]


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda p: p.mkdir(), id="a-directory"),
        pytest.param(lambda p: p.write_bytes(b'a = "\xff"\n'), id="not-utf8"),
    ],
)
def test_unreadable_file_is_an_error(herdr_env: HerdrEnv, make: Any) -> None:
    make(_config(herdr_env))
    result = herdr_env.cli("config", "check", "--json")
    assert result.returncode == 1
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["severity"] == "error"
    assert "cannot read the config file" in problem["message"]


def test_server_keys_flagged_are_the_ones_the_server_skips(herdr_env: HerdrEnv) -> None:
    """Agreement with the server's own reader: it falls back on exactly these keys."""
    text = (
        '[server]\nheadless_cols = 0\nheadless_rows = "x"\nmax_connections = 10\n'
        '[terminal]\nshell_mode = "zsh"\nnew_cwd = "home"\n'
        "[advanced]\nscrollback_limit_bytes = -5\n"
    )
    _config(herdr_env).write_text(text, encoding="utf-8")
    _, warnings = server_settings.read(herdr_env.env)
    skipped = sorted(key for key, _ in server_settings.KEYS if any(key in w for w in warnings))
    flagged = sorted(p.key or "" for p in check(text) if p.severity == "error")
    assert (
        flagged
        == skipped
        == [
            "advanced.scrollback_limit_bytes",
            "server.headless_cols",
            "server.headless_rows",
            "terminal.shell_mode",
        ]
    )


@pytest.mark.skipif(not REFERENCE.exists(), reason="the shared config reference is not here")
def test_every_key_of_herdrs_reference_is_known() -> None:
    """Suggestions and type checks cover every key of herdr's config reference."""
    doc = json.loads(REFERENCE.read_text(encoding="utf-8"))
    keys = {item["key"]: item["type"] for section in doc["sections"] for item in section["keys"]}
    assert {key: KNOWN[key].type for key in keys if key in KNOWN} == keys


def test_no_server_is_needed(herdr_env: HerdrEnv) -> None:
    _config(herdr_env).write_text("[server]\nheadless_cols = 80\n", encoding="utf-8")
    env = {"HERDR_SOCKET_PATH": os.path.join(str(herdr_env.root), "nowhere.sock")}
    result = herdr_env.cli("config", "check", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(": ok")
