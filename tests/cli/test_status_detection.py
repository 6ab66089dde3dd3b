"""``herdr status``'s ``detection:`` section: sources and versions, the last remote check
and every manifest / user-kind diagnostic; problems change the summary, not the exit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from herdr.cli.status_detection import detection_doc, detection_lines
from herdr.config.paths import manifest_status_file
from herdr_testing import HerdrEnv, ServerHandle

KIND = 'label = "zork"\nprocess_names = ["zork"]\n'
MANIFEST = (
    'id = "zork"\nversion = "2026.12.1"\nmin_engine_version = 3\n'
    '[[rules]]\nid = "p"\nstate = "idle"\ncontains = ["zork>"]\n'
)
OVERRIDE = 'id = "claude"\nversion = "9.9"\n[[rules]]\nid = "x"\nstate = "idle"\ncontains = ["z"]\n'
BAD_KIND = 'label = "crush"\nprocess_names = "crush"\n'

PURE = [
    (
        "all-bundled",
        {"manifests": [{"agent": "claude", "source_kind": "bundled", "warning": None}]},
        [
            "manifests: 1 manifests (1 bundled)",
            "last update check: never",
            "problems: none",
        ],
    ),
    (
        "mixed-with-problems",
        {
            "last_result": "offline",
            "last_check_unix": 0,
            "manifests": [
                {"agent": "codex", "source_kind": "bundled", "warning": None},
                {"agent": "zork", "source_kind": "user kind", "active_version": "1"},
                {
                    "agent": "claude",
                    "source_kind": "remote",
                    "active_version": "2",
                    "warning": "w",
                },
            ],
            "user_kind_errors": ["/a/crush.toml:2: bad"],
        },
        [
            "manifests: 3 manifests (1 bundled, 1 remote, 1 user kind); "
            "not bundled: zork 1 (user kind), claude 2 (remote)",
            "last update check: offline at 1970-01-01T00:00:00Z",
            "problems: 2",
            "  claude: w",
            "  /a/crush.toml:2: bad",
        ],
    ),
]


@pytest.mark.parametrize(("status", "lines"), [p[1:] for p in PURE], ids=[p[0] for p in PURE])
def test_section_lines(status: dict[str, Any], lines: list[str]) -> None:
    assert detection_lines(detection_doc(status, True), "") == lines


@pytest.fixture
def configured(herdr_env: HerdrEnv) -> HerdrEnv:
    config = Path(herdr_env.env["XDG_CONFIG_HOME"]) / "herdr"
    agents = config / "agents"
    agents.mkdir(parents=True)
    (agents / "zork.toml").write_text(KIND, "utf-8")
    (agents / "zork.manifest.toml").write_text(MANIFEST, "utf-8")
    (agents / "crush.toml").write_text(BAD_KIND, "utf-8")
    (config / "agent-detection").mkdir()
    (config / "agent-detection" / "claude.toml").write_text(OVERRIDE, "utf-8")
    status = Path(manifest_status_file(herdr_env.env))
    status.parent.mkdir(parents=True, exist_ok=True)
    status.write_text('last_check_unix = 86400\nlast_result = "checked"\n', "utf-8")
    herdr_env.env["HERDR_AGENT_MANIFEST_WATCH_S"] = "0"
    return herdr_env


def _section(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    start = lines.index("detection:") + 1
    return lines[start : lines.index("", start)]


def test_status_shows_what_the_server_uses(configured: HerdrEnv) -> None:
    server = ServerHandle(configured, configured.start_server())
    crush = Path(configured.env["XDG_CONFIG_HOME"]) / "herdr" / "agents" / "crush.toml"
    done = server.cli("status")
    assert done.returncode == 0, done.stderr  # as with config errors: exit code unchanged
    assert "agent detection files have problems" in done.stdout.splitlines()[0]
    section = _section(done.stdout)
    assert section[0].startswith("  manifests: ")
    assert "1 local override, 1 user kind)" in section[0]
    assert "not bundled: claude 9.9 (local override), zork 2026.12.1 (user kind)" in section[0]
    assert section[1] == "  last update check: checked at 1970-01-02T00:00:00Z"
    assert section[2] == "  problems: 1"
    assert section[3].startswith(f"    {crush}:2: process_names must be")
    assert "next: fix the files listed under detection:" in done.stdout

    doc = json.loads(server.cli("status", "--json").stdout)["detection"]
    assert doc["source"] == "server"
    assert doc["sources"]["local override"] == 1 and doc["sources"]["user kind"] == 1
    assert doc["last_check"] == {"result": "checked", "at": "1970-01-02T00:00:00Z"}
    assert [p.split(": ", 1)[0] for p in doc["problems"]] == [f"{crush}:2"]


def test_status_without_a_server_points_to_agent_kinds(configured: HerdrEnv) -> None:
    done = configured.cli("status")
    assert done.returncode == 0, done.stderr
    assert _section(done.stdout) == [
        "  manifests: server not running; `herdr agent kinds` checks the files offline",
        "  last update check: checked at 1970-01-02T00:00:00Z",
        "  problems: not checked (no server)",
    ]


def test_clean_setup_has_no_problems(herdr_server: ServerHandle) -> None:
    done = herdr_server.cli("status")
    section = _section(done.stdout)
    assert section[1:] == ["  last update check: never", "  problems: none"]
    assert "agent detection" not in done.stdout.splitlines()[0]
