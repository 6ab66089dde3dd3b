"""The TUI's own settings: the ``[ui]`` keys it honours and its ``[keys]`` table.

Read at start-up and on ``reload_config``; lenient, as the client must start even with
a broken config: a bad value keeps its default, an unreadable file gives a warning.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal


@dataclass
class UiSettings:
    """The ``[ui]`` keys the client honours (lenient: bad values keep defaults)."""

    sidebar_width: int = 26
    sidebar_visible: bool = True
    sidebar_collapsed_mode: Literal["compact", "hidden"] = "compact"
    tab_bar_position: Literal["top", "bottom"] = "top"
    hide_tab_bar_when_single_tab: bool = False
    status_indicators: Literal["dots", "symbols"] = "dots"
    agent_panel_sort: Literal["spaces", "priority"] = "spaces"
    mouse: bool = True
    scroll_lines: int = 3
    bell: bool = True
    osc9: bool = False
    keys: Mapping[str, object] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def load_ui_settings(path: Path) -> UiSettings:
    """The ``[ui]`` and ``[keys]`` tables of the config file (defaults when it is missing;
    a warning in ``warnings`` when it cannot be read)."""
    settings = UiSettings()
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return settings
    except (OSError, ValueError) as exc:
        settings.warnings.append(f"cannot read {path}: {exc}")
        return settings
    ui = doc.get("ui") if isinstance(doc.get("ui"), dict) else {}
    assert isinstance(ui, dict)
    width = ui.get("sidebar_width")
    if isinstance(width, int) and not isinstance(width, bool) and 8 <= width <= 80:
        settings.sidebar_width = width
    if ui.get("sidebar_start_collapsed") is True:
        settings.sidebar_visible = False
    if ui.get("sidebar_collapsed_mode") in ("compact", "hidden"):
        settings.sidebar_collapsed_mode = ui["sidebar_collapsed_mode"]
    if ui.get("tab_bar_position") in ("top", "bottom"):
        settings.tab_bar_position = ui["tab_bar_position"]
    if isinstance(ui.get("hide_tab_bar_when_single_tab"), bool):
        settings.hide_tab_bar_when_single_tab = ui["hide_tab_bar_when_single_tab"]
    if ui.get("status_indicators") in ("dots", "symbols"):
        settings.status_indicators = ui["status_indicators"]
    if ui.get("agent_panel_sort") in ("spaces", "priority"):
        settings.agent_panel_sort = ui["agent_panel_sort"]
    if isinstance(ui.get("mouse_capture"), bool):
        settings.mouse = ui["mouse_capture"]
    lines = ui.get("mouse_scroll_lines")
    if isinstance(lines, int) and not isinstance(lines, bool) and 1 <= lines <= 100:
        settings.scroll_lines = lines
    sound = ui.get("sound")
    if isinstance(sound, dict) and isinstance(sound.get("enabled"), bool):
        settings.bell = sound["enabled"]
    if isinstance(ui.get("bell_on_attention"), bool):
        settings.bell = ui["bell_on_attention"]
    toast = ui.get("toast")
    if isinstance(toast, dict) and toast.get("delivery") == "terminal":
        settings.osc9 = True
    keys = doc.get("keys")
    if isinstance(keys, dict):
        settings.keys = keys
    return settings
