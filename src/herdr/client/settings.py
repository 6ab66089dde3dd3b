"""The TUI's own settings: the ``[ui]`` keys it honours and its ``[keys]`` table.

Read at start-up and on ``reload_config``; lenient, as the client must start even with
a broken config: a bad value keeps its default, an unreadable file gives a warning.
"""

from __future__ import annotations

import contextlib
import os
from typing import Annotated, Any, Literal

import msgspec


class UiSettings(msgspec.Struct, kw_only=True):
    """The ``[ui]`` keys the client honours; each field's type is its rule (a value that
    breaks it keeps the default)."""

    sidebar_width: Annotated[int, msgspec.Meta(ge=8, le=80)] = 26
    sidebar_min_width: Annotated[int, msgspec.Meta(ge=8, le=80)] = 18
    sidebar_max_width: Annotated[int, msgspec.Meta(ge=8, le=80)] = 36
    sidebar_visible: bool = True
    sidebar_collapsed_mode: Literal["compact", "hidden"] = "compact"
    tab_bar_position: Literal["top", "bottom"] = "top"
    hide_tab_bar_when_single_tab: bool = False
    status_indicators: Literal["dots", "symbols"] = "dots"
    agent_panel_sort: Literal["spaces", "priority"] = "spaces"
    mouse: bool = True
    scroll_lines: Annotated[int, msgspec.Meta(ge=1, le=100)] = 3
    bell: bool = True
    osc9: bool = False
    confirm_close: bool = True
    copy_on_select: bool = True
    toast_position: Literal["top-left", "top-right", "bottom-left", "bottom-right"] = "bottom-right"
    keys: dict[str, Any] = msgspec.field(default_factory=dict)
    warnings: list[str] = msgspec.field(default_factory=list)


# ``[ui]`` key → field, for the keys that map one to one (the rest are read below).
UI_KEYS: tuple[tuple[str, str], ...] = (
    ("sidebar_width", "sidebar_width"),
    ("sidebar_min_width", "sidebar_min_width"),
    ("sidebar_max_width", "sidebar_max_width"),
    ("sidebar_collapsed_mode", "sidebar_collapsed_mode"),
    ("tab_bar_position", "tab_bar_position"),
    ("hide_tab_bar_when_single_tab", "hide_tab_bar_when_single_tab"),
    ("status_indicators", "status_indicators"),
    ("agent_panel_sort", "agent_panel_sort"),
    ("mouse_capture", "mouse"),
    ("mouse_scroll_lines", "scroll_lines"),
    ("confirm_close", "confirm_close"),
    ("copy_on_select", "copy_on_select"),
)
_TYPES = {f.name: f.type for f in msgspec.structs.fields(UiSettings)}


def _take(values: dict[str, Any], field: str, value: Any) -> None:
    if value is None:
        return
    with contextlib.suppress(msgspec.ValidationError):  # lenient: the default stays
        values[field] = msgspec.convert(value, _TYPES[field], strict=True)


def load_ui_settings(path: str | os.PathLike[str]) -> UiSettings:
    """The ``[ui]`` and ``[keys]`` tables of the config file (defaults when it is missing;
    a warning in ``warnings`` when it cannot be read).

    Read before a reattach's first frame: no ``pathlib``, and ``tomllib`` only when
    there is a file to parse (together ~10 ms of the client's start on a slow core)."""
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        import tomllib

        doc = tomllib.loads(text)
    except FileNotFoundError:
        return UiSettings()
    except (OSError, ValueError) as exc:
        return UiSettings(warnings=[f"cannot read {path}: {exc}"])
    ui = doc.get("ui") if isinstance(doc.get("ui"), dict) else {}
    assert isinstance(ui, dict)
    values: dict[str, Any] = {}
    for key, field in UI_KEYS:
        _take(values, field, ui.get(key))
    if ui.get("sidebar_start_collapsed") is True:
        values["sidebar_visible"] = False
    sound = ui.get("sound")
    if isinstance(sound, dict):
        _take(values, "bell", sound.get("enabled"))
    _take(values, "bell", ui.get("bell_on_attention"))
    toast = ui.get("toast")
    if isinstance(toast, dict) and toast.get("delivery") == "terminal":
        values["osc9"] = True
    herdr_toast = toast.get("herdr") if isinstance(toast, dict) else None
    if isinstance(herdr_toast, dict):
        _take(values, "toast_position", herdr_toast.get("position"))
    keys = doc.get("keys")
    if isinstance(keys, dict):
        values["keys"] = keys
    return UiSettings(**values)
