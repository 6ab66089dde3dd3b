"""The TUI's command catalog: one id per command, what it runs, what it needs (PURE).

Both ends read this table, so a command id cannot mean one thing to the key bindings
and another to ``command.invoke``: the TUI's ``[keys]`` names (``client.bindings``)
take their TUI command and description from here, and the server's ``command.invoke``
(``server.methods_commands``) takes the public method a command runs and how its
params come from the target (workspace, tab, pane).

A command whose ``method`` is None lives only in a TUI (a prompt, a mode, the client's
own view): invoked through the API it is refused with ``command_failed`` naming the
method that does the same with explicit input (``hint``), never guessed at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

from msgspec import Struct

from herdr.vocab import ErrorCode

Needs = Literal["none", "workspace", "tab", "pane"]

# herdr's command.invoke error codes (herdr 0.9).
COMMAND_NOT_FOUND: Final = ErrorCode.COMMAND_NOT_FOUND.value
COMMAND_FAILED: Final = ErrorCode.COMMAND_FAILED.value
COMMAND_TARGET_MISMATCH: Final = ErrorCode.COMMAND_TARGET_MISMATCH.value


class Target(Struct, frozen=True):
    """Where a command runs, resolved by the server; ids are public ids."""

    workspace_id: str | None
    tab_id: str | None
    pane_id: str | None
    workspace_ids: tuple[str, ...] = ()  # the session's workspaces, in order
    tab_ids: tuple[str, ...] = ()  # the target workspace's tabs, in order


Params = Callable[[Target], dict[str, Any]]


class CommandDef(Struct, frozen=True):
    """One catalog entry: ``id`` is the ``[keys]`` name and the ``command_id``."""

    id: str
    command: str  # the TUI's command name (``client.actions.CommandName``)
    description: str
    needs: Needs = "none"
    method: str | None = None  # the public method ``command.invoke`` runs; None: TUI only
    params: Params | None = None
    hint: str = ""  # for TUI-only commands: what to call instead


def _step(ids: tuple[str, ...], current: str | None, step: int) -> str | None:
    """The neighbour ``step`` away (wrapping), as the TUI's next/previous keys do."""
    if current is None or current not in ids:
        return None
    return ids[(ids.index(current) + step) % len(ids)]


def _tab_step(step: int) -> Params:
    return lambda t: {"tab_id": _step(t.tab_ids, t.tab_id, step)}


def _workspace_step(step: int) -> Params:
    return lambda t: {"workspace_id": _step(t.workspace_ids, t.workspace_id, step)}


def _tab_move(step: int) -> Params:
    def params(t: Target) -> dict[str, Any]:
        index = t.tab_ids.index(t.tab_id) if t.tab_id in t.tab_ids else 0
        # tab.move's insert_index counts in the old order: after the next one is +2.
        wanted = index + 2 if step > 0 else index - 1
        return {"tab_id": t.tab_id, "insert_index": min(max(0, wanted), len(t.tab_ids))}

    return params


def _split(direction: str) -> Params:
    return lambda t: {"target_pane_id": t.pane_id, "direction": direction, "focus": True}


def _ui(command: str, description: str, hint: str = "", needs: Needs = "none") -> CommandDef:
    """A TUI-only command (its id is its TUI command name)."""
    return CommandDef(command, command, description, needs, hint=hint or "only in the TUI")


def _api(
    command_id: str, description: str, needs: Needs, method: str, params: Params, *, tui: str = ""
) -> CommandDef:
    """A command the server runs as ``method``; ``tui``: its TUI name when not the id."""
    return CommandDef(command_id, tui or command_id, description, needs, method, params)


def _on(key: str) -> Params:
    """Params naming the target's workspace, tab or pane (``key`` is the param)."""
    return lambda t: {key: getattr(t, key)}


_NAME_HINT = "needs a name: use {} {{{}, label}}"

_ENTRIES: tuple[CommandDef, ...] = (
    _ui("help", "show key bindings"),
    _ui("settings", "settings"),
    _ui("detach", "detach (panes keep running)"),
    _ui("command_prompt", "command prompt (CLI verbs)", "runs CLI verbs: call them directly"),
    _ui(
        "command_palette",
        "command palette (commands and plugin actions)",
        "lists commands: use plugin.action.list",
    ),
    _api("reload_config", "reload config.toml", "none", "server.reload_config", lambda t: {}),
    _api("new_workspace", "new workspace", "none", "workspace.create", lambda t: {"focus": True}),
    _ui(
        "rename_workspace",
        "rename workspace",
        _NAME_HINT.format("workspace.rename", "workspace_id"),
        "workspace",
    ),
    _api("close_workspace", "close workspace", "workspace", "workspace.close", _on("workspace_id")),
    _ui("goto", "session navigator"),
    _api("new_worktree", "new git worktree", "workspace", "worktree.create", _on("workspace_id")),
    _ui("open_worktree", "open git worktree", "needs a choice: use worktree.open"),
    _ui("remove_worktree", "remove git worktree", "needs a choice: use worktree.remove"),
    _ui("open_notification_target", "go to the agent that needs you"),
    _api(
        "previous_workspace",
        "previous workspace",
        "workspace",
        "workspace.focus",
        _workspace_step(-1),
    ),
    _api("next_workspace", "next workspace", "workspace", "workspace.focus", _workspace_step(1)),
    _ui("previous_agent", "previous agent (all workspaces)"),
    _ui("next_agent", "next agent (all workspaces)"),
    _api(
        "new_tab",
        "new tab",
        "workspace",
        "tab.create",
        lambda t: {"workspace_id": t.workspace_id, "focus": True},
    ),
    _ui("rename_tab", "rename tab", _NAME_HINT.format("tab.rename", "tab_id"), "tab"),
    _api("close_tab", "close tab", "tab", "tab.close", _on("tab_id")),
    _api("next_tab", "next tab", "tab", "tab.focus", _tab_step(1)),
    _api("previous_tab", "previous tab", "tab", "tab.focus", _tab_step(-1)),
    _api("move_tab_previous", "move tab left", "tab", "tab.move", _tab_move(-1)),
    _api("move_tab_next", "move tab right", "tab", "tab.move", _tab_move(1)),
    _ui("rename_pane", "rename pane", _NAME_HINT.format("pane.rename", "pane_id"), "pane"),
    _api(
        "edit_scrollback",
        "edit scrollback in $EDITOR",
        "pane",
        "pane.edit_scrollback",
        _on("pane_id"),
    ),
    _ui("copy_mode", "copy mode"),
    _api("split_vertical", "split right", "pane", "pane.split", _split("right"), tui="split_right"),
    _api("split_horizontal", "split down", "pane", "pane.split", _split("down"), tui="split_down"),
    _api("close_pane", "close pane", "pane", "pane.close", _on("pane_id")),
    _api("zoom", "zoom pane", "pane", "pane.zoom", _on("pane_id")),
    _ui("resize_mode", "resize mode"),
    _ui("last_pane", "last pane"),
    _ui("toggle_sidebar", "toggle sidebar"),
    _ui("remote_image_paste", "paste image (remote sessions)"),
    _ui("cycle_machine", "next machine (saved machines, then local)"),
)

CATALOG: Final[Mapping[str, CommandDef]] = {entry.id: entry for entry in _ENTRIES}
"""Command id → its definition, in the TUI's help order."""

ALIASES: Final[Mapping[str, str]] = {"fullscreen": "zoom"}
"""Old ``[keys]`` names still accepted (herdr's), → the catalog id."""


def lookup(command_id: str) -> CommandDef | None:
    """The entry for ``command_id`` (an alias counts), or None."""
    return CATALOG.get(ALIASES.get(command_id, command_id))
