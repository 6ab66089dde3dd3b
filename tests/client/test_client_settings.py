"""The TUI's ``[ui]`` settings: typed fields, read key by key, bad values keep defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.client.settings import UiSettings, load_ui_settings


def load(tmp_path: Path, text: str) -> UiSettings:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return load_ui_settings(path)


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        pytest.param("[ui]\nsidebar_width = 40\n", "sidebar_width", 40, id="width"),
        pytest.param("[ui]\nsidebar_width = 7\n", "sidebar_width", 26, id="width-too-small"),
        pytest.param("[ui]\nsidebar_width = 81\n", "sidebar_width", 26, id="width-too-big"),
        pytest.param("[ui]\nsidebar_width = true\n", "sidebar_width", 26, id="width-bool"),
        pytest.param("[ui]\nsidebar_start_collapsed = true\n", "sidebar_visible", False, id="sc"),
        pytest.param("[ui]\ntab_bar_position = 'bottom'\n", "tab_bar_position", "bottom", id="tb"),
        pytest.param("[ui]\ntab_bar_position = 'left'\n", "tab_bar_position", "top", id="tb-bad"),
        pytest.param("[ui]\nmouse_capture = false\n", "mouse", False, id="mouse"),
        pytest.param("[ui]\nmouse_capture = 0\n", "mouse", True, id="mouse-int"),
        pytest.param("[ui]\nmouse_scroll_lines = 5\n", "scroll_lines", 5, id="scroll"),
        pytest.param("[ui]\nmouse_scroll_lines = 0\n", "scroll_lines", 3, id="scroll-zero"),
        pytest.param("[ui.sound]\nenabled = false\n", "bell", False, id="sound"),
        pytest.param(
            "[ui]\nbell_on_attention = true\n[ui.sound]\nenabled = false\n",
            "bell",
            True,
            id="bell-on-attention-wins",
        ),
        pytest.param("[ui.toast]\ndelivery = 'terminal'\n", "osc9", True, id="osc9"),
        pytest.param("[keys]\nprefix = 'ctrl+a'\n", "keys", {"prefix": "ctrl+a"}, id="keys"),
    ],
)
def test_ui_keys(tmp_path: Path, text: str, field: str, expected: object) -> None:
    settings = load(tmp_path, text)
    assert getattr(settings, field) == expected
    assert settings.warnings == []


def test_missing_file_is_defaults(tmp_path: Path) -> None:
    assert load_ui_settings(tmp_path / "none.toml") == UiSettings()


def test_unreadable_file_warns_and_keeps_defaults(tmp_path: Path) -> None:
    settings = load(tmp_path, "[ui\n")
    assert len(settings.warnings) == 1 and settings.warnings[0].startswith("cannot read")
    assert settings.sidebar_width == UiSettings().sidebar_width
