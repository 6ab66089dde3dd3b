"""What the TUI's actions and commands do: two tables of handlers over the app.

The mode machine turns keys into :data:`~herdr.client.actions.Action` values; the app
looks each up by type in :data:`ACTIONS` (``App.do``), and a parameterless
``Command(name)`` by name in :data:`COMMANDS` (``App.command``). A type or name that
is in neither table is "not available yet". Most handlers end in a public request
(``App.request``) or a change of the client's own view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from herdr.api.attach_messages import Input, Paste
from herdr.client import actions as a
from herdr.client import closing, image_paste, settings_view, worktrees
from herdr.client import custom_commands as cc
from herdr.client.build_view import SIDEBAR_COLLAPSE_COLS
from herdr.client.more_commands import MORE_COMMANDS
from herdr.client.targets import cycle_agent, notification_target

if TYPE_CHECKING:
    from herdr.client.app import App

PASTE_CHUNK = 128 * 1024  # a paste goes to the server in lines of at most this

# -- actions --------------------------------------------------------------------------------


def send_bytes(app: App, action: a.SendBytes) -> None:
    text = action.data.decode("latin-1")
    app.typed()
    app.conn.send(Input(pane_id=app.focused_pane_id(), data=text))


def send_paste(app: App, action: a.SendPaste) -> None:
    pane_id = app.focused_pane_id()
    app.typed()
    data = action.data
    for start in range(0, max(1, len(data)), PASTE_CHUNK):
        chunk = data[start : start + PASTE_CHUNK].decode("latin-1")
        app.conn.send(Paste(pane_id=pane_id, data=chunk))


def run_command(app: App, action: a.RunCommand) -> None:
    """A ``[[keys.command]]``: ``plugin_action`` invokes the plugin action it names (with
    the focused workspace/tab/pane as context); ``pane`` and ``popup`` open the command
    on the server over the focused pane; ``shell`` runs it detached here."""
    command = action.command
    pane_id = app.focused_pane_id()
    if command.type == "shell":
        panes = app.doc.panes if app.doc is not None else []
        pane = next((p for p in panes if p.get("pane_id") == pane_id), None)
        try:
            cc.run_binding(
                command.command, socket_path=app.conn.socket_path, pane=pane, machine=app.on_machine
            )
        except OSError as exc:
            app.notice(f"custom command failed: {exc}")
        return
    if command.type in ("pane", "popup"):
        params: dict[str, Any] = {"type": command.type, "command": command.command}
        if pane_id:
            params["pane_id"] = pane_id
        if command.description:
            params["description"] = command.description
        if command.type == "popup":
            for name, size in (("width", command.width), ("height", command.height)):
                if size is not None:
                    params[name] = size
        app.request("custom_command.run", params)
        return
    context: dict[str, Any] = {"invocation_source": "keybinding"}
    for key, value in (
        ("workspace_id", app.ws_id),
        ("tab_id", app.tab_id),
        ("focused_pane_id", pane_id),
    ):
        if value:
            context[key] = value
    params = {"action_id": command.command.strip(), "context": context}
    app.request("plugin.action.invoke", params)


def mode_changed(app: App, action: a.ModeChanged) -> None:
    if action.mode == "navigate":
        app.selected_ws = app.ws_id  # the selection starts where we are
    if action.mode != "help":
        app.panel_kind = None  # the settings panel lives in help mode
        app.machine.help_edit_keys = frozenset()
        app.help_offset = 0
    app.schedule_draw()


def host_focus(app: App, action: a.HostFocus) -> None:
    app.host_focused = action.focused
    app.sync_server()
    if action.focused:
        app.draw(force=True)


def focus_direction(app: App, action: a.FocusDir) -> None:
    params = {"pane_id": app.focused_pane_id(), "direction": action.direction}
    app.request("pane.focus_direction", params)


def swap_direction(app: App, action: a.SwapDir) -> None:
    params = {"source_pane_id": app.focused_pane_id(), "direction": action.direction}
    app.request("pane.swap", params)


def resize_direction(app: App, action: a.ResizeDir) -> None:
    params: dict[str, Any] = {"pane_id": app.focused_pane_id(), "direction": action.direction}
    if action.amount is not None:
        params["amount"] = action.amount
    app.request("pane.resize", params)


def switch_workspace_index(app: App, action: a.SwitchWorkspace) -> None:
    ids = app.workspace_ids()
    if 1 <= action.index <= len(ids):
        app.switch_workspace(ids[action.index - 1])


def focus_agent(app: App, action: a.FocusAgent) -> None:
    agents = app.build_view().agents
    if 1 <= action.index <= len(agents):
        app.focus_pane(agents[action.index - 1].pane_id)


def navigate_workspace(app: App, action: a.NavigateWorkspace) -> None:
    ids = app.workspace_ids()
    if ids:
        pos = ids.index(app.selected_ws) if app.selected_ws in ids else 0
        app.selected_ws = ids[(pos + action.step) % len(ids)]
        app.schedule_draw()


ACTIONS: dict[type[Any], Callable[[App, Any], None]] = {
    a.SendBytes: send_bytes,
    a.SendPaste: send_paste,
    a.ModeChanged: mode_changed,
    a.HostFocus: host_focus,
    a.MouseInput: lambda app, action: app.mouse(action.event),
    a.Command: lambda app, action: app.command(action.name),
    a.FocusDir: focus_direction,
    a.SwapDir: swap_direction,
    a.ResizeDir: resize_direction,
    a.PromptChanged: lambda app, action: app.prompt_changed(action.prompt),
    a.CancelPrompt: lambda app, action: app.cancel_prompt(action.prompt),
    a.CopyKey: lambda app, action: app.copy_key(action.spec),
    a.SubmitPrompt: lambda app, action: app.submit_prompt(action.prompt),
    a.CyclePane: lambda app, action: app.cycle_pane(action.step),
    a.HelpScroll: lambda app, action: app.scroll_help(action.step),
    a.HelpEdit: lambda app, action: settings_view.edit(app, action.key),
    a.SwitchTab: lambda app, action: app.switch_tab_index(action.index),
    a.SwitchWorkspace: switch_workspace_index,
    a.FocusAgent: focus_agent,
    a.NavigateWorkspace: navigate_workspace,
    a.RunCommand: run_command,
}
"""Action type → its handler."""

# -- commands -------------------------------------------------------------------------------


def split(app: App, direction: str) -> None:
    params: dict[str, Any] = {"direction": direction, "focus": True}
    pane_id = app.focused_pane_id()
    if pane_id is not None:
        params["target_pane_id"] = pane_id
    app.request("pane.split", params)


def step_tab(app: App, step: int) -> None:
    tabs = app.tab_ids()
    if tabs and app.tab_id in tabs:
        app.switch_tab(tabs[(tabs.index(app.tab_id) + step) % len(tabs)])


def on_focused_pane(app: App, name: str, method: str) -> None:
    """``method`` on the focused pane (close, zoom); without one, not available."""
    pane_id = app.focused_pane_id()
    if pane_id is None:
        app.unavailable(name)
    else:
        app.request(method, {"pane_id": pane_id})


def toggle_sidebar(app: App) -> None:
    if app.cols < SIDEBAR_COLLAPSE_COLS:
        app.sidebar_narrow = not app.sidebar_narrow  # narrow terminals keep their own
    else:
        app.sidebar_visible = not app.sidebar_visible
    app.sync_server()
    app.schedule_draw()


def close_tab(app: App) -> None:
    closing.close(app, "tab", app.tab_id)


def close_workspace(app: App) -> None:
    closing.close(app, "workspace", app.ws_id)


def step_workspace(app: App, step: int) -> None:
    ids = app.workspace_ids()
    if ids and app.ws_id in ids:
        app.switch_workspace(ids[(ids.index(app.ws_id) + step) % len(ids)])


def navigate_select(app: App) -> None:
    if app.selected_ws is not None:
        app.switch_workspace(app.selected_ws)


def open_notification_target(app: App) -> None:
    target = notification_target(app.doc, app.attention_order)
    if target is None:
        app.notice("no agent needs you")
    else:
        app.focus_pane(target)


def step_agent(app: App, step: int) -> None:
    pane_id = app.focused_pane_id()
    target = cycle_agent(app.doc, pane_id, step)
    if target is None:
        app.notice("no agents")
    elif target != pane_id:
        app.focus_pane(target)


def _with(handler: Callable[..., None], *args: Any) -> Callable[[App], None]:
    """``handler(app, *args)``: a table entry with fixed arguments."""
    return lambda app: handler(app, *args)


COMMANDS: dict[str, Callable[[App], None]] = {
    "detach": lambda app: app.finish("detached"),
    "cycle_machine": lambda app: app.cycle_machine(),
    "split_right": _with(split, "right"),
    "split_down": _with(split, "down"),
    "new_tab": lambda app: app.request(
        "tab.create", {"workspace_id": app.ws_id, "focus": True}, switch=True
    ),
    "next_tab": _with(step_tab, 1),
    "previous_tab": _with(step_tab, -1),
    "close_pane": lambda app: closing.close(app, "pane", app.focused_pane_id()),
    "zoom": _with(on_focused_pane, "zoom", "pane.zoom"),
    "toggle_sidebar": toggle_sidebar,
    "new_workspace": lambda app: app.request("workspace.create", {"focus": True}, switch=True),
    "close_tab": close_tab,
    "close_workspace": close_workspace,
    "next_workspace": _with(step_workspace, 1),
    "previous_workspace": _with(step_workspace, -1),
    "navigate_select": navigate_select,
    "last_pane": lambda app: app.cycle_pane(-1),
    "rename_workspace": lambda app: app.start_rename("workspace"),
    "rename_tab": lambda app: app.start_rename("tab"),
    "rename_pane": lambda app: app.start_rename("pane"),
    "open_notification_target": open_notification_target,
    "next_agent": _with(step_agent, 1),
    "previous_agent": _with(step_agent, -1),
    "reload_config": lambda app: app.reload_config(),
    "copy_mode": lambda app: app.start_copy(),
}
"""Command name → its handler; the other names of ``CommandName`` are not available yet."""
COMMANDS.update(MORE_COMMANDS)
COMMANDS["open_worktree"] = worktrees.open_picker
COMMANDS["remove_worktree"] = worktrees.remove
COMMANDS["remote_image_paste"] = image_paste.paste
