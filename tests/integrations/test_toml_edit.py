"""Line edits of TOML configs: codex's feature switch and kimi's managed block, round trips."""

from __future__ import annotations

import tomllib

import pytest

from herdr.integrations import toml_edit
from herdr.integrations.kimi import parse_kimi_version

CODEX = [
    pytest.param("", id="empty"),
    pytest.param('model = "o3"\n', id="no-features"),
    pytest.param('model = "o3"', id="no-trailing-newline"),
    pytest.param("[features]\nweb_search = true\n", id="features-without-hooks"),
    pytest.param("[features]\nhooks = false # off\n", id="hooks-off"),
    pytest.param("[profiles.w.features]\nhooks = false\n", id="profile-table-untouched"),
    pytest.param('a = 1\r\n\r\n[x]\r\nb = "2"\r\n', id="crlf"),
]


@pytest.mark.parametrize("text", CODEX)
def test_codex_hooks_feature_round_trip(text: str) -> None:
    on = toml_edit.enable_hooks(text)
    assert tomllib.loads(on)["features"]["hooks"] is True
    assert toml_edit.enable_hooks(on) == on
    assert toml_edit.disable_hooks(on) == text


def test_codex_hooks_already_on_is_left_alone() -> None:
    text = "[features]\nhooks = true\n"
    assert toml_edit.enable_hooks(text) == text
    assert toml_edit.disable_hooks(text) == text


KIMI = [
    pytest.param("", id="empty"),
    pytest.param('model = "k2"\n', id="user-keys"),
    pytest.param('[[hooks]]\nevent = "Stop"\ncommand = "echo me"\n', id="user-hooks"),
]


@pytest.mark.parametrize("text", KIMI)
def test_kimi_block_round_trip(text: str) -> None:
    commands = {a: f"bash '/k/h.sh' {a}" for a in ("session", "working", "blocked", "idle")}
    block = toml_edit.kimi_block(commands)
    on = toml_edit.set_kimi_block(text, block)
    hooks = tomllib.loads(on)["hooks"]
    ours = [h for h in hooks if h["command"].startswith("bash '/k/h.sh'")]
    assert len(ours) == 12 and len(hooks) == 12 + text.count("[[hooks]]")
    assert toml_edit.set_kimi_block(on, block) == on
    assert toml_edit.remove_kimi_block(on) == text


@pytest.mark.parametrize(
    ("output", "version"),
    [
        ("kimi, version 0.14.1-beta.2\n", (0, 14, 1)),
        ("v0.14\n", (0, 14, 0)),
        ("1.2.3", (1, 2, 3)),
        ("no version here", None),
    ],
)
def test_kimi_version_parsing(output: str, version: tuple[int, int, int] | None) -> None:
    assert parse_kimi_version(output) == version
