"""The settings panel (``prefix+s``): the ``[ui]`` values, the simple ones editable.

up/down pick a row; enter/space toggle a boolean or cycle an enum; +/- (left/right)
step a number or an enum. A change is written to config.toml as a minimal textual edit
(:mod:`herdr.config.ui_edit`, comments and the rest kept byte for byte) with an atomic
write, then ``server.reload_config`` applies it; a refused value leaves the file as it
was and the panel shows why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from herdr.client import settings_edit as se
from herdr.client.settings import UiSettings
from herdr.client.view import Panel
from herdr.config.ui_edit import EditError, set_ui_value
from herdr.persist.errors import PersistWriteError
from herdr.persist.files import atomic_write

if TYPE_CHECKING:
    from herdr.client.app import App

EDIT_KEYS = frozenset({"enter", "space", "+", "-", "=", "left", "right", "h", "l"})
_STEPS: dict[str, se.Step] = {
    "enter": "toggle",
    "space": "toggle",
    "+": "more",
    "=": "more",
    "right": "more",
    "l": "more",
    "-": "less",
    "left": "less",
    "h": "less",
}


def rows(settings: UiSettings) -> list[tuple[str, str, bool]]:
    """(key as config.toml spells it, value, editable) in panel order."""
    out = [(key, _shown(getattr(settings, field)), True) for key, field in se.FIELDS.items()]
    out.append(("sidebar (shown now)", _shown(settings.sidebar_visible), False))
    out.append(("bell", _shown(settings.bell), False))
    out.append(("toast.herdr.position", settings.toast_position, False))
    return out


def _shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def open_panel(app: App) -> None:
    app.panel_kind = "settings"
    app.settings_choice = 0
    app.settings_note = ""
    for action in app.machine.set_mode("help"):
        app.do(action)
    app.machine.help_edit_keys = EDIT_KEYS


def panel(app: App) -> Panel:
    table = rows(app.settings)
    lines = [f"{key:<28} {value}{'' if edit else '  (read-only)'}" for key, value, edit in table]
    lines.append("")
    lines.append(f"config file: {app.config_file()}")
    if app.settings_note:
        lines.append(app.settings_note)
    choice = min(max(0, app.settings_choice), len(table) - 1)
    return Panel(
        "settings",
        tuple(lines),
        choice,
        "up/down · enter/space toggle · +/- change · any other key closes",
    )


def move(app: App, step: int) -> None:
    count = len(rows(app.settings))
    app.settings_choice = min(max(0, app.settings_choice + (1 if step > 0 else -1)), count - 1)
    app.schedule_draw()


def edit(app: App, key: str) -> None:
    """Change the selected row's value, write config.toml, then reload config."""
    table = rows(app.settings)
    name, _value, editable = table[min(max(0, app.settings_choice), len(table) - 1)]
    step = _STEPS.get(key, "toggle")
    try:
        if not editable:
            raise ValueError(f"{name} is read-only here; edit config.toml")
        value = se.stepped(app.settings, name, step)
        path = app.config_file()
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        atomic_write(path, set_ui_value(text, name, value).encode("utf-8"))
    except (ValueError, EditError, OSError, PersistWriteError) as exc:
        app.settings_note = f"refused: {exc}"[:200]
        app.schedule_draw()
        return
    # the panel shows (and the next key steps from) the written value at once; the
    # reload that follows re-reads the same file
    app.settings = msgspec.structs.replace(app.settings, **{se.FIELDS[name]: value})
    app.settings_note = f"set ui.{name} = {_shown(value)}"
    app.reload_config()
