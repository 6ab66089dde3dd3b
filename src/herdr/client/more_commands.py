"""The help overlay's remaining commands: edit scrollback, new worktree, move tab,
the session navigator, the settings panel and the command prompt.

Each ends in a public request (errors come back as a notice with the server's text)
or opens one of the client's own panels (:mod:`herdr.client.navigator`,
:mod:`herdr.client.panels`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec
from msgspec.structs import replace

from herdr.api.attach_messages import Record
from herdr.client import navigator as nav
from herdr.client import palette_commands as palette
from herdr.client import sessions_probe, settings_view
from herdr.client.prompt import Prompt
from herdr.client.settings import UiSettings
from herdr.client.view import Panel

if TYPE_CHECKING:
    from herdr.client.app import App


def edit_scrollback(app: App) -> None:
    """``pane.edit_scrollback``: $EDITOR on a copy of the scrollback, in a new pane."""
    pane_id = app.focused_pane_id()
    if pane_id is None:
        app.notice("edit scrollback: no pane")
        return
    app.request("pane.edit_scrollback", {"pane_id": pane_id})


def new_worktree(app: App) -> None:
    """``worktree.create`` for the current workspace; the server picks the branch name
    and directory (``worktrees.directory``); a failure shows the server's message."""
    params: dict[str, object] = {"focus": True}
    if app.ws_id is not None:
        params["workspace_id"] = app.ws_id
    app.request("worktree.create", params, switch=True)


def move_tab(app: App, step: int) -> None:
    tabs = app.tab_ids()
    if app.tab_id not in tabs:
        app.notice("move tab: no tab")
        return
    index = tabs.index(app.tab_id)
    target = min(max(0, index + step), len(tabs) - 1)
    if target == index:
        app.notice("the tab is already at that end")
        return
    # herdr's insert_index counts in the order before the move: "before old index i",
    # so one place right is before the tab after the next
    insert = target + 1 if step > 0 else target
    app.request("tab.move", {"tab_id": app.tab_id, "insert_index": insert})
    # show the new order at once: a second move typed before the server's state arrives
    # then starts from where the tab now is (the next state document confirms it)
    if app.doc is not None:
        app.doc = msgspec.structs.replace(
            app.doc, tabs=moved_tab_order(app.doc.tabs, app.tab_id, target)
        )
        app.schedule_draw()


def moved_tab_order(tabs: list[Record], tab_id: str, target: int) -> list[Record]:
    """``tabs`` (every workspace's) with ``tab_id`` at ``target`` among its workspace's."""
    moving = next(t for t in tabs if t["tab_id"] == tab_id)
    ws_id = moving["workspace_id"]
    own = [t for t in tabs if t["workspace_id"] == ws_id and t is not moving]
    own.insert(target, moving)
    slots = iter(own)
    return [next(slots) if t["workspace_id"] == ws_id else t for t in tabs]


def command_prompt(app: App) -> None:
    """``prefix+:``: a prompt taking CLI verbs (``pane split --direction right``)."""
    for action in app.machine.open_prompt(Prompt("command", "")):
        app.do(action)


def goto(app: App) -> None:
    """``prefix+g``: the navigator, its selection on the focused pane; the other
    sessions are read in the background and join the tree when they answer."""
    app.other_sessions = []
    shown = nav.entries(app.doc, app.session_label)
    choice = nav.index_of(shown, "pane", app.focused_pane_id())
    for action in app.machine.open_prompt(Prompt("goto", "", choice=choice)):
        app.do(action)
    app.spawn(_probe_others(app))


async def _probe_others(app: App) -> None:
    others = await sessions_probe.probe_all(app.conn.socket_path)
    prompt = app.machine.prompt
    if prompt is not None and prompt.kind == "goto":
        app.other_sessions = others
        app.schedule_draw()


def _shown(app: App, prompt: Prompt) -> list[nav.Entry]:
    tree = nav.entries(app.doc, app.session_label, app.other_sessions)
    return nav.filtered(tree, prompt.text)


def goto_panel(app: App, prompt: Prompt) -> Panel:
    shown = _shown(app, prompt)
    choice = min(max(0, prompt.choice), max(0, len(shown) - 1))
    return Panel(
        "sessions",
        tuple(e.line for e in shown),
        choice if shown else None,
        "type to filter · up/down · enter go · esc close",
        empty="no match",
    )


def goto_changed(app: App, prompt: Prompt) -> None:
    """After typing the selection moves to the first match; keep it in range."""
    shown = _shown(app, prompt)
    choice = nav.first_match(shown, prompt.text) if prompt.choice < 0 else prompt.choice
    choice = min(choice, max(0, len(shown) - 1))
    if choice != prompt.choice:
        for action in app.machine.open_prompt(replace(prompt, choice=choice)):
            app.do(action)


def goto_submit(app: App, prompt: Prompt) -> None:
    shown = _shown(app, prompt)
    if not shown:
        return
    entry = shown[min(max(0, prompt.choice), len(shown) - 1)]
    if entry.session is not None:
        app.switch_session(entry.session, entry.kind, entry.target)
        return
    go_to(app, entry.kind, entry.target)


def go_to(app: App, kind: str, target: str) -> None:
    """Show a workspace, tab or pane of the attached session."""
    if kind == "workspace":
        app.switch_workspace(target)
    elif kind == "tab":
        rec = next((t for t in (app.doc.tabs if app.doc else []) if t["tab_id"] == target), None)
        if rec is not None:
            app.switch_workspace(str(rec["workspace_id"]))
            app.switch_tab(target)
    elif kind == "pane":
        app.focus_pane(target)


def settings(app: App) -> None:
    settings_view.open_panel(app)


def settings_panel(app: App) -> Panel:
    return settings_view.panel(app)


def setting_rows(settings: UiSettings) -> list[tuple[str, str]]:
    """The ``[ui]`` keys the client honours, as config.toml spells them."""
    return [(key, value) for key, value, _edit in settings_view.rows(settings)]


MORE_COMMANDS: dict[str, Callable[[App], None]] = {
    "edit_scrollback": edit_scrollback,
    "new_worktree": new_worktree,
    "move_tab_previous": lambda app: move_tab(app, -1),
    "move_tab_next": lambda app: move_tab(app, 1),
    "command_prompt": command_prompt,
    "goto": goto,
    "command_palette": palette.open_palette,
    "settings": settings,
}
