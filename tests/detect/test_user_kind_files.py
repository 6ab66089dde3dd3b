"""User kind files: parsing, validation with file:line diagnostics, registration."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.detect.agents import (
    ALL_AGENTS,
    BUILTIN_NAMES,
    parse_agent_label,
    parse_canonical_agent_label,
    start_command,
    user_agents,
)
from herdr.detect.process import ForegroundProcess, normalized_process_name
from herdr.detect.user_kinds import UserKindError, parse_user_kind, parse_user_manifest
from herdr.detect.user_registry import UserKindRegistry

GOOD = """label = "crush"
name = "Crush"
process_names = ["crush"]
argv_patterns = ["*/crush/dist/cli.js"]
aliases = ["crush-cli"]
command = ["crush", "--fast"]
resume = ["crush", "--resume", "{session}"]
"""

MANIFEST = """id = "crush"
version = "2026.12.1"
min_engine_version = 3

[[rules]]
id = "crush_permission"
state = "blocked"
contains = ["Allow this action?"]
"""


def test_good_file_parses() -> None:
    spec = parse_user_kind(GOOD, "/x/crush.toml", BUILTIN_NAMES)
    assert spec.label == "crush" and spec.name == "Crush"
    assert spec.lookup_names == ("crush", "crush-cli")
    assert spec.command == ("crush", "--fast")
    assert spec.resume == ("crush", "--resume", "{session}")
    assert spec.argv_matches("/opt/crush/dist/cli.js")
    assert not spec.argv_matches("/opt/other/cli.js")


BAD = [
    ("toml-syntax", 'label = "crush"\nname = \n', 2, "Invalid"),
    ("unknown-key", GOOD + "colour = 1\n", 8, "unknown key 'colour'"),
    ("label-mismatch", GOOD.replace('"crush"\n', '"other"\n', 1), 1, "must equal the file name"),
    ("label-syntax", GOOD.replace('label = "crush"', 'label = "Crush!"'), 1, "label must match"),
    ("builtin-label", 'label = "claude"\nprocess_names = ["x"]\n', 1, "built-in agent"),
    ("builtin-alias", GOOD.replace('["crush-cli"]', '["codex"]'), 5, "'codex' already names"),
    ("names-not-list", GOOD.replace('["crush"]', '"crush"', 1), 3, "process_names must be"),
    ("empty-name", GOOD.replace('["crush"]', '[""]', 1), 3, "non-empty"),
    ("no-identity", 'label = "crush"\n', 1, "give process_names or argv_patterns"),
    ("resume-no-session", GOOD.replace("{session}", "x"), 7, "must contain {session}"),
    (
        "resume-twice",
        GOOD.replace('"{session}"]', '"{session}", "{session}"]'),
        7,
        "exactly once",
    ),
    (
        "resume-program",
        GOOD.replace('["crush", "--resume", "{session}"]', '["{session}", "-r"]'),
        7,
        "program",
    ),
    (
        "resume-shell-string",
        GOOD.replace('["crush", "--resume", "{session}"]', '"crush --resume {session}"'),
        7,
        "argv list",
    ),
    ("resume-empty", GOOD.replace('["crush", "--resume", "{session}"]', "[]"), 7, "empty"),
    ("name-multiline", GOOD.replace('"Crush"', '"a\\nb"'), 2, "one-line string"),
    ("too-many", GOOD.replace('["crush-cli"]', str([f"a{i}" for i in range(17)])), 5, "16"),
]


@pytest.mark.parametrize(
    ("text", "line", "fragment"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_bad_file_gives_one_file_line_diagnostic(text: str, line: int, fragment: str) -> None:
    path = "/x/crush.toml" if "claude" not in text else "/x/claude.toml"
    with pytest.raises(UserKindError) as info:
        parse_user_kind(text, path, BUILTIN_NAMES)
    assert info.value.line == line
    assert fragment in info.value.message
    assert str(info.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        (MANIFEST.replace('id = "crush"', 'id = "other"'), "must be 'crush'"),
        (MANIFEST.replace('state = "blocked"', 'state = "sleepy"'), "sleepy"),
        ('id = "crush"\nversion = "1"\nx = [', "manifest.toml:3: TOML parse error"),
    ],
    ids=["wrong-id", "bad-state", "bad-toml"],
)
def test_bad_manifest_is_reported_with_its_path(text: str, fragment: str) -> None:
    with pytest.raises(UserKindError) as info:
        parse_user_manifest(text, "/x/crush.manifest.toml", "crush")
    assert str(info.value).startswith("/x/crush.manifest.toml:")
    assert fragment in str(info.value)


def test_registry_registers_identifies_and_keeps_last_good(tmp_path: Path) -> None:
    (tmp_path / "crush.toml").write_text(GOOD, "utf-8")
    (tmp_path / "crush.manifest.toml").write_text(MANIFEST, "utf-8")
    registry = UserKindRegistry(str(tmp_path))
    try:
        registry.load()
        assert registry.errors == []
        agent = parse_agent_label("Crush-CLI")
        assert agent is not None and agent.label == "crush"
        assert parse_canonical_agent_label("crush") is agent
        assert agent not in ALL_AGENTS and not agent.is_builtin
        assert start_command(agent) == ("crush", "--fast")
        node = ForegroundProcess(1, "node", None, ("node", "/opt/crush/dist/cli.js"))
        assert normalized_process_name(node) == "crush"

        (tmp_path / "crush.toml").write_text(GOOD + "bogus = 1\n", "utf-8")
        registry.load()
        assert registry.errors == [f"{tmp_path / 'crush.toml'}:8: unknown key 'bogus'"]
        assert parse_agent_label("crush") is agent  # the running kind stays

        (tmp_path / "crush.toml").unlink()
        registry.load()
        assert parse_agent_label("crush") is None and user_agents() == ()
    finally:
        UserKindRegistry(str(tmp_path / "none")).load()
