"""The server's config slice: typed fields, read key by key (one bad value costs itself)."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.config import server_settings
from herdr.config.server_settings import ServerSettings


def load(tmp_path: Path, text: str) -> tuple[ServerSettings, list[str]]:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return server_settings.load({"HERDR_CONFIG_PATH": str(path), "HOME": str(tmp_path)})


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        pytest.param("[server]\nheadless_cols = 200\n", "headless_cols", 200, id="int"),
        pytest.param("[terminal]\nshell_mode = 'login'\n", "shell_mode", "login", id="enum"),
        pytest.param("[terminal]\nnew_cwd = 'home'\n", "new_cwd", "home", id="new-cwd"),
        pytest.param(
            "[session]\nresume_agents_on_restore = false\n",
            "resume_agents_on_restore",
            False,
            id="bool",
        ),
        pytest.param("[server]\nmax_connections = 9\n", "max_connections", 9, id="cap"),
    ],
)
def test_valid_values_are_taken(tmp_path: Path, text: str, field: str, expected: object) -> None:
    settings, warnings = load(tmp_path, text)
    assert getattr(settings, field) == expected
    assert warnings == []


@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param("[server]\nheadless_cols = 0\n", "server.headless_cols", id="zero"),
        pytest.param("[server]\nheadless_cols = true\n", "server.headless_cols", id="bool-int"),
        pytest.param("[server]\nheadless_rows = 'x'\n", "server.headless_rows", id="str-int"),
        pytest.param("[terminal]\nshell_mode = 'zsh'\n", "terminal.shell_mode", id="bad-enum"),
        pytest.param(
            "[experimental]\npane_history = 1\n", "experimental.pane_history", id="int-bool"
        ),
    ],
)
def test_a_bad_value_warns_and_keeps_its_default_only(tmp_path: Path, text: str, key: str) -> None:
    settings, warnings = load(tmp_path, text + "[advanced]\nscrollback_limit_bytes = 5\n")
    assert len(warnings) == 1 and f"invalid {key} = " in warnings[0]
    assert "using the default" in warnings[0]
    assert settings.scrollback_limit_bytes == 5  # the good key beside it still counts
    field = key.split(".")[1]
    assert getattr(settings, field) == getattr(ServerSettings(), field)


def test_unreadable_file_keeps_defaults_with_one_warning(tmp_path: Path) -> None:
    settings, warnings = load(tmp_path, "[server\n")
    assert settings == ServerSettings()
    assert len(warnings) == 1 and warnings[0].endswith("; using defaults")


def test_settings_are_immutable() -> None:
    with pytest.raises(AttributeError):
        ServerSettings().headless_cols = 3  # type: ignore[misc]
