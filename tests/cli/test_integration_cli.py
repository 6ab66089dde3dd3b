"""``herdr integration …`` through the real CLI (``python -m herdr``), no server running."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from herdr.integrations.targets import TARGETS
from herdr_testing import HerdrEnv


@pytest.fixture
def home(herdr_env: HerdrEnv) -> Path:
    home = Path(herdr_env.env["HOME"])
    (home / ".claude").mkdir()
    return home


def test_install_status_uninstall(herdr_env: HerdrEnv, home: Path) -> None:
    done = herdr_env.cli("integration", "install", "claude")
    assert done.returncode == 0, done.stderr
    script = home / ".claude/hooks/herdr-agent-state.sh"
    assert done.stdout.splitlines() == [
        f"installed claude integration hook to {script}",
        f"ensured claude settings at {home / '.claude/settings.json'}",
    ]
    status = herdr_env.cli("integration", "status")
    assert status.returncode == 0
    lines = status.stdout.splitlines()
    assert [line.split(":", 1)[0] for line in lines] == [t.label for t in TARGETS]
    assert f"claude: current (v8) ({script})" in lines
    assert any(line.startswith("codex: not installed (") for line in lines)
    done = herdr_env.cli("integration", "uninstall", "claude")
    assert done.returncode == 0
    assert done.stdout.splitlines()[0] == f"removed claude hook at {script}"
    assert not script.exists()


def test_status_outdated_only_advises_on_stderr(herdr_env: HerdrEnv, home: Path) -> None:
    assert herdr_env.cli("integration", "install", "claude").returncode == 0
    quiet = herdr_env.cli("integration", "status", "--outdated-only")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    script = home / ".claude/hooks/herdr-agent-state.sh"
    script.write_text(script.read_text().replace("VERSION=8", "VERSION=3"))
    stale = herdr_env.cli("integration", "status", "--outdated-only")
    assert (stale.returncode, stale.stdout) == (0, "")
    assert stale.stderr == (
        "installed herdr integrations need updating; run herdr integration install claude.\n"
    )
    as_json = herdr_env.cli("integration", "status", "--outdated-only", "--json")
    assert json.loads(as_json.stdout) == {"outdated": ["claude"]}
    full = json.loads(herdr_env.cli("integration", "status", "--json").stdout)
    claude = next(r for r in full["integrations"] if r["target"] == "claude")
    assert (claude["state"], claude["installed_version"], claude["expected_version"]) == (
        "outdated",
        3,
        8,
    )


def test_list_shows_label_command_and_path_lookup(herdr_env: HerdrEnv, home: Path) -> None:
    bin_dir = herdr_env.root / "bin"
    bin_dir.mkdir()
    agy = bin_dir / "agy"
    agy.write_text("#!/bin/sh\n")
    agy.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    done = herdr_env.cli("integration", "list", "--json", env=env)
    records = {r["target"]: r for r in json.loads(done.stdout)["integrations"]}
    assert len(records) == len(TARGETS)
    assert records["antigravity_cli"] == {
        "target": "antigravity_cli",
        "label": "antigravity-cli",
        "command": "agy",
        "available": True,
        "state": "not_installed",
    }
    one = herdr_env.cli("integration", "list", "antigravity-cli", env=env)
    assert one.returncode == 0
    assert one.stdout.split() == ["antigravity-cli", "agy", "(on", "PATH)", "not", "installed"]


@pytest.mark.parametrize(
    ("args", "rc", "stderr"),
    [
        pytest.param(["install", "vim"], 2, "unknown integration target: vim", id="unknown"),
        pytest.param(["install"], 2, "required: <target>", id="missing-target"),
        pytest.param(["install", "claude", "codex"], 2, "unrecognized arguments", id="two"),
        pytest.param(["status", "--bogus"], 2, "unrecognized arguments", id="status-flag"),
        pytest.param(["install", "codex"], 1, "install codex first", id="no-agent-dir"),
        pytest.param(["list", "nope"], 2, "unknown integration target: nope", id="list-unknown"),
    ],
)
def test_errors(herdr_env: HerdrEnv, home: Path, args: list[str], rc: int, stderr: str) -> None:
    done = herdr_env.cli("integration", *args)
    assert done.returncode == rc
    assert stderr in done.stderr
    assert done.stdout == ""


def test_invalid_settings_exit_1_with_file_and_line(herdr_env: HerdrEnv, home: Path) -> None:
    settings = home / ".claude/settings.json"
    settings.write_text('{\n  "a": 1,\n}\n')
    done = herdr_env.cli("integration", "install", "claude")
    assert done.returncode == 1
    assert f"{settings}:3" in done.stderr
    assert settings.read_text() == '{\n  "a": 1,\n}\n'


def test_cli_honours_env_overrides(herdr_env: HerdrEnv, home: Path) -> None:
    custom = herdr_env.root / "my-claude"
    custom.mkdir()
    done = herdr_env.cli("integration", "install", "claude", env={"CLAUDE_CONFIG_DIR": str(custom)})
    assert done.returncode == 0, done.stderr
    assert (custom / "hooks/herdr-agent-state.sh").exists()
    assert not (home / ".claude/hooks").exists()
