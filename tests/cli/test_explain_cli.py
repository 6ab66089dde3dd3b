"""``herdr agent explain --file`` through the real CLI process, with no server running."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLAUDE_IDLE = "──────────\n❯ \n──────────\n  ? for shortcuts\n"
CLAUDE_BLOCKED = (
    "do you want to proceed?\nbash command: rm -rf build/test\n❯ 1. Yes\n   2. No\n\n"
    "Esc to cancel · Tab to amend · ctrl+e to explain\n"
)
EXPLAIN_KEYS = {
    "agent",
    "cached_remote_version",
    "evaluated_rules",
    "fallback_reason",
    "local_override_shadowing_remote",
    "manifest_source",
    "manifest_version",
    "matched_rule",
    "remote_update_error",
    "remote_update_status",
    "screen_detection_skipped",
    "skip_state_update",
    "skipped_update_reason",
    "state",
    "visible_blocker",
    "visible_idle",
    "visible_working",
    "warning",
    # our extensions: the OSC strings the verdict was computed from, and the
    # region lines the deciding rule's matchers hit
    "matched_lines",
    # which layer decided (source/version/path) and why the others lost (issue 17)
    "manifest_decided_by",
    "manifest_not_used",
    "osc_progress",
    "osc_title",
}


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERDR_", "XDG_"))}
    env["HOME"] = str(tmp_path / "home")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    return env


def herdr(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "herdr", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def screen(tmp_path: Path, text: str | bytes, name: str = "s.txt") -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, "utf-8")
    return str(path)


def test_json_is_the_spec_explain_document(tmp_path: Path, home: dict[str, str]) -> None:
    out = herdr(
        home,
        "agent",
        "explain",
        "--file",
        screen(tmp_path, CLAUDE_BLOCKED),
        "--agent",
        "claude",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    line = out.stdout.strip()
    assert "\n" not in line
    doc = json.loads(line)
    assert set(doc) == EXPLAIN_KEYS
    assert list(doc) == sorted(doc)
    assert doc["agent"] == "claude"
    assert doc["state"] == "blocked"
    assert doc["manifest_source"] == "bundled"
    assert doc["matched_rule"]["id"] == "bash_permission_prompt"
    assert doc["visible_blocker"] is True
    assert doc["screen_detection_skipped"] is False
    rules = doc["evaluated_rules"]
    assert rules and all(
        set(r) == {"evidence", "id", "matched", "priority", "region", "state"} for r in rules
    )
    assert any(r["matched"] for r in rules)


def test_text_mode_and_verbose(tmp_path: Path, home: dict[str, str]) -> None:
    path = screen(tmp_path, CLAUDE_IDLE)
    out = herdr(home, "agent", "explain", "--file", path, "--agent", "Claude-Code")
    assert out.returncode == 0, out.stderr
    assert "agent: claude" in out.stdout
    assert "state: idle" in out.stdout
    assert "rule: live_prompt_box" in out.stdout
    verbose = herdr(home, "agent", "explain", "--file", path, "--agent", "claude", "--verbose")
    assert verbose.returncode == 0, verbose.stderr
    assert "✓" in verbose.stdout and "✗" in verbose.stdout


def test_osc_flags_reach_the_engine(tmp_path: Path, home: dict[str, str]) -> None:
    path = screen(tmp_path, "")
    out = herdr(
        home,
        "agent",
        "explain",
        "--file",
        path,
        "--agent",
        "codex",
        "--osc-title",
        "⠋ llm-proxy",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert (doc["state"], doc["matched_rule"]["id"]) == ("working", "osc_title_working")
    out = herdr(
        home,
        "agent",
        "explain",
        "--file",
        path,
        "--agent",
        "claude",
        "--osc-progress",
        "4;0;",
        "--json",
    )
    assert json.loads(out.stdout)["matched_rule"]["id"] == "osc_progress_idle"


def test_agent_without_manifest_falls_back(tmp_path: Path, home: dict[str, str]) -> None:
    out = herdr(
        home,
        "agent",
        "explain",
        "--file",
        screen(tmp_path, "Working...\n"),
        "--agent",
        "omp",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["state"] == "idle"
    assert doc["fallback_reason"] == "default_known_agent_idle_fallback"
    assert doc["manifest_source"] is None
    assert doc["evaluated_rules"] == []


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_unknown_agent_is_one_line_error(
    tmp_path: Path, home: dict[str, str], as_json: bool
) -> None:
    args = ["agent", "explain", "--file", screen(tmp_path, "x"), "--agent", "vim"]
    out = herdr(home, *args, *(["--json"] if as_json else []))
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1 and "unknown agent 'vim'" in out.stderr
    if as_json:
        doc = json.loads(out.stdout)
        assert (doc["agent"], doc["state"], doc["fallback_reason"]) == (
            "vim",
            "unknown",
            "unknown_agent",
        )
    else:
        assert out.stdout == ""


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_unreadable_file_is_one_line_error(tmp_path: Path, home: dict[str, str], kind: str) -> None:
    path = tmp_path / "nope.txt" if kind == "missing" else tmp_path
    out = herdr(home, "agent", "explain", "--file", str(path), "--agent", "claude")
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1
    assert str(path) in out.stderr
    assert "Traceback" not in out.stderr


def test_invalid_override_is_reported(tmp_path: Path, home: dict[str, str]) -> None:
    override = Path(home["XDG_CONFIG_HOME"]) / "herdr" / "agent-detection" / "claude.toml"
    override.parent.mkdir(parents=True)
    override.write_text('id = "claude"\n[[rules]]\nid = "x"\nregex = ["(unclosed"]\n', "utf-8")
    out = herdr(
        home, "agent", "explain", "--file", screen(tmp_path, CLAUDE_IDLE), "--agent", "claude"
    )
    assert out.returncode == 1
    assert out.stderr.count("\n") == 1
    assert "invalid override manifest" in out.stderr and str(override) in out.stderr


def test_valid_override_is_used(tmp_path: Path, home: dict[str, str]) -> None:
    override = Path(home["XDG_CONFIG_HOME"]) / "herdr" / "agent-detection" / "claude.toml"
    override.parent.mkdir(parents=True)
    override.write_text(
        'id = "claude"\n[[rules]]\nid = "mine"\nstate = "blocked"\ncontains = ["PLEASE"]\n',
        "utf-8",
    )
    out = herdr(
        home,
        "agent",
        "explain",
        "--file",
        screen(tmp_path, "please help\n"),
        "--agent",
        "claude",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["manifest_source"] == str(override)
    assert (doc["state"], doc["matched_rule"]["id"]) == ("blocked", "mine")


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--file", "x"], id="file-without-agent"),
        pytest.param(["--agent", "claude"], id="agent-without-file"),
        pytest.param([], id="nothing"),
        pytest.param(
            ["--json", "--verbose", "--file", "x", "--agent", "claude"], id="json-verbose"
        ),
    ],
)
def test_usage_errors_exit_2(home: dict[str, str], args: list[str]) -> None:
    out = herdr(home, "agent", "explain", *args)
    assert out.returncode == 2


def test_hostile_screens_do_not_break_explain(tmp_path: Path, home: dict[str, str]) -> None:
    junk = b"\xff\xfe\x00\x1b[31m\x07" * 1000 + b"\n"
    big = ("x" * 199 + "\n") * 26_000  # ~5 MB
    for name, data in (("junk.txt", junk), ("big.txt", big.encode())):
        out = herdr(
            home,
            "agent",
            "explain",
            "--file",
            screen(tmp_path, data, name),
            "--agent",
            "claude",
            "--json",
        )
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["state"] in {"idle", "working", "blocked", "unknown"}


def test_version_and_help(home: dict[str, str]) -> None:
    out = herdr(home, "--version")
    assert out.returncode == 0 and out.stdout.startswith("herdr ")
    out = herdr(home, "--help")
    assert out.returncode == 0 and "agent" in out.stdout


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["--help"], id="help"),
        pytest.param(["--version"], id="version"),
    ],
)
def test_cli_start_imports_stay_light(home: dict[str, str], args: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "herdr", *args],
        env=home,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    heavy = {m for m in imported if m.split(".")[0] in {"asyncio", "orjson", "regex", "pyghostty"}}
    assert heavy == set()


def test_offline_explain_imports_no_server_machinery(tmp_path: Path, home: dict[str, str]) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-m",
            "herdr",
            "agent",
            "explain",
            "--file",
            screen(tmp_path, CLAUDE_IDLE),
            "--agent",
            "claude",
        ],
        env=home,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0
    imported = {line.split("|")[-1].strip() for line in out.stderr.splitlines() if "|" in line}
    heavy = {m for m in imported if m.split(".")[0] in {"asyncio", "orjson", "pyghostty"}}
    assert heavy == set()
