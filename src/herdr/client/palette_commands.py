"""The command palette's part of the app: open, draw, filter, run (``prefix+space``).

Catalog commands run through the TUI's own command path (the mode machine, then
``App.do``), exactly as their keys would; plugin actions go to ``plugin.action.invoke``
with the focused workspace/tab/pane as context. The plugin list is fetched when the
palette opens, so a plugin linked a moment ago is there and a slow server never holds
the palette up (its commands show at once, the actions when the answer comes).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, cast

from msgspec.structs import replace

from herdr.client import palette as pal
from herdr.client.actions import Command, CommandName
from herdr.client.prompt import Prompt
from herdr.client.view import Panel
from herdr.plugins.manifest import current_platform

if TYPE_CHECKING:
    from herdr.client.app import App

PLATFORM = current_platform(sys.platform)


def _contexts(app: App) -> tuple[str, ...]:
    """The plugin contexts present now: always global, then what is focused."""
    present = ["global"]
    if app.ws_id:
        present.append("workspace")
    if app.tab_id:
        present.append("tab")
    if app.focused_pane_id():
        present.append("pane")
    return tuple(present)


def items(app: App) -> list[pal.Item]:
    keys: dict[str, str] = {}
    for shown, description in app.help:
        keys.setdefault(description, shown)
    return [*pal.catalog_items(keys), *app.palette_plugins]


def open_palette(app: App) -> None:
    app.palette_plugins = ()
    for action in app.machine.open_prompt(Prompt("palette", "", choice=0)):
        app.do(action)
    app.spawn(_fetch_plugins(app))


async def _fetch_plugins(app: App) -> None:
    try:
        envelope = await app.conn.call("plugin.list", {})
    except (OSError, ValueError) as exc:
        app.notice(f"plugin.list: {exc}")
        return
    error = envelope.get("error")
    if isinstance(error, dict):
        app.notice(f"plugin actions: {error.get('message')}")
        return
    result = envelope.get("result")
    plugins = result.get("plugins") if isinstance(result, dict) else None
    if not isinstance(plugins, list):
        return
    found = pal.plugin_items([p for p in plugins if isinstance(p, dict)], _contexts(app), PLATFORM)
    app.palette_plugins = tuple(found)
    prompt = app.machine.prompt
    if prompt is not None and prompt.kind == "palette":
        changed(app, prompt)
        app.schedule_draw()


def panel(app: App, prompt: Prompt) -> Panel:
    shown = pal.filtered(items(app), prompt.text)
    choice = min(max(0, prompt.choice), max(0, len(shown) - 1))
    return Panel(
        "commands",
        tuple(item.line for item in shown),
        choice if shown else None,
        "type to filter · up/down · enter run · esc close",
        empty="no match",
    )


def changed(app: App, prompt: Prompt) -> None:
    """A new filter selects the first row; the selection stays in range."""
    shown = pal.filtered(items(app), prompt.text)
    choice = min(max(0, prompt.choice), max(0, len(shown) - 1))
    if choice != prompt.choice:
        for action in app.machine.open_prompt(replace(prompt, choice=choice)):
            app.do(action)


def submit(app: App, prompt: Prompt) -> None:
    shown = pal.filtered(items(app), prompt.text)
    if not shown:
        return
    item = shown[min(max(0, prompt.choice), len(shown) - 1)]
    if item.kind == "plugin":
        invoke_plugin_action(app, item.target, "command_palette")
        return
    # catalog entries name TUI commands (tests/client check every one is a CommandName)
    for action in app.machine.run(Command(cast(CommandName, item.target))):
        app.do(action)


def invoke_plugin_action(app: App, action_id: str, source: str) -> None:
    """``plugin.action.invoke`` with the focused workspace/tab/pane as its context."""
    context: dict[str, Any] = {"invocation_source": source}
    for key, value in (
        ("workspace_id", app.ws_id),
        ("tab_id", app.tab_id),
        ("focused_pane_id", app.focused_pane_id()),
    ):
        if value:
            context[key] = value
    app.request("plugin.action.invoke", {"action_id": action_id, "context": context})
