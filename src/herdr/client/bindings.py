"""Key bindings: the spec's defaults (herdr-spec §7) overridden by ``[keys]`` (PURE).

A bad entry is reported with its path (``keys.zoom = 'prefix+ctlr+z': unknown
modifier 'ctlr' (did you mean 'ctrl'?)``) and skipped, keeping the default, so one typo
never leaves a user without keys. A user binding takes its key from whichever default
held it; two user bindings on one key is an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, cast

from msgspec import Struct

from herdr.api.command_catalog import ALIASES as CATALOG_ALIASES
from herdr.api.command_catalog import CATALOG
from herdr.client.actions import (
    Bound,
    Command,
    CommandName,
    CustomCommand,
    CyclePane,
    Direction,
    EnterNavigate,
    FocusAgent,
    FocusDir,
    LeaveNavigate,
    NavigateWorkspace,
    ResizeDir,
    RunCommand,
    SwapDir,
    SwitchTab,
    SwitchWorkspace,
)
from herdr.client.input import ALT, CTRL, HYPER, SUPER
from herdr.client.keynames import KeyNameError, KeySpec, format_key, parse_key, suggest

# --------------------------------------------------------------------------- actions table

Scope = Literal["global", "navigate"]


class _ActionDef(Struct, frozen=True):
    default: tuple[str, ...]
    make: Callable[[int], Bound]  # argument: the 1..9 index for ranged bindings
    description: str
    scope: Scope = "global"
    indexed: bool = False


def _const(action: Bound) -> Callable[[int], Bound]:
    return lambda _index: action


def _cmd(name: CommandName, default: str | None, description: str) -> _ActionDef:
    return _ActionDef((default,) if default else (), _const(Command(name)), description)


def _cat(action_id: str, *defaults: str | None) -> _ActionDef:
    """A catalog command (``api.command_catalog``): its TUI command and description."""
    entry = CATALOG[action_id]
    keys = tuple(key for key in defaults if key)
    return _ActionDef(keys, _const(Command(cast(CommandName, entry.command))), entry.description)


_ACTIONS: dict[str, _ActionDef] = {
    "help": _cat("help", "prefix+?"),
    "settings": _cat("settings", "prefix+s"),
    # tmux's keys where herdr leaves them free: d detaches, % and " split, , renames the
    # tab, : opens the command prompt (guessed: a tmux user reaches for them first)
    "detach": _cat("detach", "prefix+q", "prefix+d"),
    "reload_config": _cat("reload_config", "prefix+shift+r"),
    "new_workspace": _cat("new_workspace", "prefix+shift+n"),
    "rename_workspace": _cat("rename_workspace", "prefix+shift+w"),
    "close_workspace": _cat("close_workspace", "prefix+shift+d"),
    "workspace_picker": _ActionDef(("prefix+w",), _const(EnterNavigate()), "navigate mode"),
    "goto": _cat("goto", "prefix+g"),
    "new_worktree": _cat("new_worktree", "prefix+shift+g"),
    "open_worktree": _cat("open_worktree", None),
    "remove_worktree": _cat("remove_worktree", None),
    "open_notification_target": _cat("open_notification_target", "prefix+o"),
    "previous_workspace": _cat("previous_workspace", None),
    "next_workspace": _cat("next_workspace", None),
    "previous_agent": _cat("previous_agent", None),
    "next_agent": _cat("next_agent", None),
    "focus_agent": _ActionDef((), FocusAgent, "focus agent 1-9", indexed=True),
    "new_tab": _cat("new_tab", "prefix+c"),
    "rename_tab": _cat("rename_tab", "prefix+shift+t", "prefix+,"),
    "close_tab": _cat("close_tab", "prefix+shift+x"),
    "next_tab": _cat("next_tab", "prefix+n"),
    "previous_tab": _cat("previous_tab", "prefix+p"),
    "move_tab_previous": _cat("move_tab_previous", "prefix+<"),
    "move_tab_next": _cat("move_tab_next", "prefix+>"),
    "switch_tab": _ActionDef(("prefix+1..9",), SwitchTab, "switch to tab 1-9", indexed=True),
    "switch_workspace": _ActionDef((), SwitchWorkspace, "switch to workspace 1-9", indexed=True),
    "rename_pane": _cat("rename_pane", "prefix+shift+p"),
    "edit_scrollback": _cat("edit_scrollback", "prefix+e"),
    "copy_mode": _cat("copy_mode", "prefix+["),
    "split_vertical": _cat("split_vertical", "prefix+v", "prefix+%"),
    "split_horizontal": _cat("split_horizontal", "prefix+minus", 'prefix+"'),
    "command_prompt": _cat("command_prompt", "prefix+:"),
    "command_palette": _cat("command_palette", "prefix+space"),
    "close_pane": _cat("close_pane", "prefix+x"),
    "zoom": _cat("zoom", "prefix+z"),
    "resize_mode": _cat("resize_mode", "prefix+r"),
    "last_pane": _cat("last_pane", None),
    "toggle_sidebar": _cat("toggle_sidebar", "prefix+b"),
    # herdr binds ctrl+v only on remote clients; locally ctrl+v must reach the pane.
    "remote_image_paste": _cat("remote_image_paste", "ctrl+v"),  # bound on remote attaches only
    "cycle_machine": _cat("cycle_machine", "prefix+m"),
}
_DIRECTION_KEYS: tuple[tuple[Direction, str], ...] = (
    ("left", "h"),
    ("down", "j"),
    ("up", "k"),
    ("right", "l"),
)
for _dir, _k in _DIRECTION_KEYS:
    _d = str(_dir)
    _ACTIONS[f"focus_pane_{_d}"] = _ActionDef(
        (f"prefix+{_k}",), _const(FocusDir(_dir)), f"focus pane {_d}"
    )
    _ACTIONS[f"swap_pane_{_d}"] = _ActionDef(
        (f"prefix+shift+{_k}",), _const(SwapDir(_dir)), f"swap pane {_d}"
    )
    _ACTIONS[f"resize_pane_{_d}"] = _ActionDef((), _const(ResizeDir(_dir)), f"resize {_d}")
    _ACTIONS[f"navigate_pane_{_d}"] = _ActionDef(
        (_k,), _const(FocusDir(_dir)), f"navigate: focus pane {_d}", scope="navigate"
    )
_ACTIONS["cycle_pane_next"] = _ActionDef(("prefix+tab",), _const(CyclePane(1)), "next pane")
_ACTIONS["cycle_pane_previous"] = _ActionDef(
    ("prefix+shift+tab",), _const(CyclePane(-1)), "previous pane"
)
_ACTIONS["navigate_workspace_up"] = _ActionDef(
    ("up",), _const(NavigateWorkspace(-1)), "navigate: workspace above", scope="navigate"
)
_ACTIONS["navigate_workspace_down"] = _ActionDef(
    ("down",), _const(NavigateWorkspace(1)), "navigate: workspace below", scope="navigate"
)
_ALIASES = dict(CATALOG_ALIASES)
# Never rebindable in navigate mode: how you get out, and the arrows the spec always
# honours as aliases of navigate_pane_left/right.
NAVIGATE_FIXED: dict[KeySpec, Bound] = {
    KeySpec("esc"): LeaveNavigate(),
    KeySpec("q"): LeaveNavigate(),
    KeySpec("enter"): Command("navigate_select"),
    KeySpec("left"): FocusDir("left"),
    KeySpec("right"): FocusDir("right"),
}
ACTION_NAMES: tuple[str, ...] = tuple(_ACTIONS)
_INDEXED_GROUPS = {"tabs": "switch_tab", "workspaces": "switch_workspace", "agents": "focus_agent"}
_COMMAND_TYPES = ("popup", "pane", "shell", "plugin_action")
_PERCENT = re.compile(r"(100|[1-9][0-9]?)%")


# --------------------------------------------------------------------------- bindings


class Binding(Struct, frozen=True):
    """One parsed binding: ``prefix`` + key → action (``direct`` = no prefix)."""

    spec: KeySpec
    prefixed: bool
    action: Bound


class BindingError(Struct, frozen=True):
    """A bad ``[keys]`` entry; it was skipped (the default stays, if any)."""

    path: str
    value: object
    message: str

    def __str__(self) -> str:
        return f"{self.path} = {self.value!r}: {self.message}"


class KeyConfigError(ValueError):
    """Raised by ``load_bindings(..., strict=True)``; carries every error."""

    def __init__(self, errors: Iterable[BindingError]) -> None:
        self.errors = tuple(errors)
        super().__init__("; ".join(str(e) for e in self.errors))


@dataclass(frozen=True)
class Bindings:
    """Lookup tables for the mode machine plus help text."""

    prefix: KeySpec
    prefix_keys: Mapping[KeySpec, Bound]
    direct_keys: Mapping[KeySpec, Bound]
    navigate_keys: Mapping[KeySpec, Bound]
    help: tuple[tuple[str, str], ...] = field(default=())


_RANGE = re.compile(r"(.*?)([0-9])\.\.([0-9])\Z")


def parse_binding(text: str) -> list[tuple[KeySpec, bool, int]]:
    """``prefix+v`` / ``alt+1..9`` → [(spec, prefixed, index)] (index 0 if not ranged)."""
    body = text.strip()
    prefixed = False
    if body.lower().startswith("prefix+"):
        prefixed = True
        body = body[len("prefix+") :]
        if not body:
            raise KeyNameError(f"{text!r}: missing key after 'prefix+'")
        if body.lower().startswith("prefix+") or body.lower() == "prefix":
            raise KeyNameError(f"{text!r}: 'prefix' given twice")
    ranged = _RANGE.match(body)
    if ranged:
        head, lo, hi = ranged.group(1), int(ranged.group(2)), int(ranged.group(3))
        if lo < 1 or hi < lo:
            raise KeyNameError(f"{text!r}: a range must be like 1..9")
        return [(parse_key(f"{head}{n}"), prefixed, n) for n in range(lo, hi + 1)]
    return [(parse_key(body), prefixed, 0)]


def default_bindings() -> Bindings:
    """The spec's defaults (herdr-spec §7)."""
    return load_bindings({})[0]


def load_bindings(
    config: Mapping[str, object], *, strict: bool = False, remote: bool = False
) -> tuple[Bindings, tuple[BindingError, ...]]:
    """Defaults overridden by a ``[keys]`` mapping. Bad entries are reported (and
    skipped: the default stays); with ``strict`` they raise :class:`KeyConfigError`.
    ``remote_image_paste`` (``ctrl+v``) is bound only on a remote attach (``remote``):
    locally the key is the program's, which reads the clipboard itself.

    A user binding takes its key from whatever default held it; two user bindings on
    one key is an error (the first one, in table order, wins).
    """
    errors: list[BindingError] = []
    prefix = KeySpec("b", CTRL)
    user: dict[str, tuple[str, ...]] = {}
    commands: list[tuple[str, CustomCommand]] = []
    for raw_name, value in config.items():
        name = _ALIASES.get(raw_name, raw_name)
        path = f"keys.{raw_name}"
        if name == "prefix":
            if not isinstance(value, str):
                errors.append(BindingError(path, value, "must be a key name string"))
                continue
            try:
                spec = parse_key(value)
            except KeyNameError as exc:
                errors.append(BindingError(path, value, str(exc)))
                continue
            prefix = spec
        elif name == "indexed":
            _load_indexed(value, user, errors)
        elif name == "command":
            commands.extend(_load_commands(value, errors))
        elif name in _ACTIONS:
            strings = _strings(value)
            if strings is None:
                errors.append(BindingError(path, value, "must be a string or a list of strings"))
                continue
            user[name] = (*user.get(name, ()), *strings)  # indexed.* and aliases add up
        else:
            hint = suggest(raw_name, [*_ACTIONS, "prefix", "indexed", "command"])
            errors.append(BindingError(path, value, f"unknown action{hint}"))

    tables: dict[tuple[Scope, bool], dict[KeySpec, Bound]] = {
        ("global", True): {},
        ("global", False): {},
        ("navigate", False): {},
        ("navigate", True): {},
    }
    owner: dict[tuple[Scope, bool, KeySpec], tuple[str, bool]] = {}
    help_rows: list[tuple[str, str]] = []

    def bind(name: str, strings: tuple[str, ...], from_user: bool, make: _ActionDef) -> None:
        shown: list[str] = []
        for text in strings:
            path = f"keys.{name}"
            try:
                parsed = parse_binding(text)
            except KeyNameError as exc:
                errors.append(BindingError(path, text, str(exc)))
                continue
            if make.indexed and any(index == 0 for _, _, index in parsed):
                errors.append(BindingError(path, text, "needs a range such as prefix+1..9"))
                continue
            if not make.indexed and any(index for _, _, index in parsed):
                errors.append(BindingError(path, text, "this action takes a single key"))
                continue
            ok = True
            for spec, prefixed, index in parsed:
                if make.scope == "navigate" and prefixed:
                    errors.append(BindingError(path, text, "navigate keys take no prefix"))
                    ok = False
                    break
                if make.scope == "global" and not prefixed and spec == prefix:
                    errors.append(BindingError(path, text, "that key is the prefix"))
                    ok = False
                    break
                if make.scope == "global" and not prefixed and not _safe_direct(spec):
                    errors.append(
                        BindingError(
                            path,
                            text,
                            "a plain key without prefix would stop you typing it;"
                            " use prefix+… or a ctrl/alt combination",
                        )
                    )
                    ok = False
                    break
                if make.scope == "global" and prefixed and spec == prefix:
                    errors.append(BindingError(path, text, "prefix+prefix sends a literal prefix"))
                    ok = False
                    break
                slot = (make.scope, prefixed, spec)
                holder = owner.get(slot)
                if holder is not None and holder[1] and from_user:
                    errors.append(
                        BindingError(path, text, f"{text!r} is already bound to {holder[0]}")
                    )
                    ok = False
                    break
                owner[slot] = (name, from_user)
                tables[(make.scope, prefixed)][spec] = make.make(index)
            if ok:
                shown.append(text)
        if shown:
            help_rows.append((", ".join(_pretty(s, prefix) for s in shown), make.description))

    # User bindings first so they claim their keys; defaults then fill what is free.
    local_only_skip = () if remote else ("remote_image_paste",)
    for name, strings in user.items():
        if name not in local_only_skip:
            bind(name, strings, True, _ACTIONS[name])
    for name, definition in _ACTIONS.items():
        if name in user or name in local_only_skip:
            continue
        free = tuple(
            s for s in definition.default if not _taken(s, definition.scope, owner, prefix)
        )
        bind(name, free, False, definition)
    for key_text, command in commands:
        definition = _ActionDef(
            (key_text,), _const(RunCommand(command)), command.description or command.command
        )
        bind("command", (key_text,), True, definition)

    help_rows.sort(key=lambda row: _help_rank(row[1]))
    bindings = Bindings(
        prefix=prefix,
        prefix_keys=dict(tables[("global", True)]),
        direct_keys=dict(tables[("global", False)]),
        navigate_keys=dict(tables[("navigate", False)]),
        help=tuple(help_rows),
    )
    if strict and errors:
        raise KeyConfigError(errors)
    return bindings, tuple(errors)


def _safe_direct(spec: KeySpec) -> bool:
    """A key that may be bound without the prefix: it has a modifier, or types nothing."""
    if spec.mods & (CTRL | ALT | SUPER | HYPER):
        return True
    return re.fullmatch(r"f[0-9]+", spec.key) is not None


def _taken(
    text: str,
    scope: Scope,
    owner: Mapping[tuple[Scope, bool, KeySpec], tuple[str, bool]],
    prefix: KeySpec,
) -> bool:
    try:
        parsed = parse_binding(text)
    except KeyNameError:
        return False
    return any(
        (scope, prefixed, spec) in owner or (scope == "global" and spec == prefix)
        for spec, prefixed, _ in parsed
    )


def _strings(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(v for v in value if v.strip())
    return None


def _load_indexed(
    value: object, user: dict[str, tuple[str, ...]], errors: list[BindingError]
) -> None:
    if not isinstance(value, Mapping):
        errors.append(BindingError("keys.indexed", value, "must be a table"))
        return
    for group, combo in value.items():
        path = f"keys.indexed.{group}"
        action = _INDEXED_GROUPS.get(str(group))
        if action is None:
            hint = suggest(str(group), list(_INDEXED_GROUPS))
            errors.append(BindingError(path, combo, f"unknown group{hint}"))
            continue
        if not isinstance(combo, str) or not combo.strip():
            errors.append(BindingError(path, combo, "must be a modifier combo such as 'alt'"))
            continue
        text = f"{combo.strip().rstrip('+')}+1..9"
        try:
            parse_binding(text)
        except KeyNameError as exc:
            errors.append(BindingError(path, combo, str(exc)))
            continue
        user[action] = (*user.get(action, ()), text)


def _load_commands(value: object, errors: list[BindingError]) -> list[tuple[str, CustomCommand]]:
    items = value if isinstance(value, list) else [value]
    out: list[tuple[str, CustomCommand]] = []
    for index, item in enumerate(items):
        path = f"keys.command[{index}]"
        if not isinstance(item, Mapping):
            errors.append(BindingError(path, item, "must be a table"))
            continue
        key, kind, command = item.get("key"), item.get("type", "pane"), item.get("command")
        if not isinstance(key, str) or not key.strip():
            errors.append(BindingError(path + ".key", key, "missing key"))
            continue
        if kind not in _COMMAND_TYPES:
            errors.append(
                BindingError(path + ".type", kind, f"must be one of {', '.join(_COMMAND_TYPES)}")
            )
            continue
        if not isinstance(command, str) or not command.strip():
            errors.append(BindingError(path + ".command", command, "missing command"))
            continue
        description = item.get("description", "")
        width, height = item.get("width"), item.get("height")
        out.append(
            (
                key,
                CustomCommand(
                    kind,
                    command,
                    description if isinstance(description, str) else "",
                    _popup_size(width),
                    _popup_size(height),
                ),
            )
        )
    return out


def _popup_size(value: object) -> int | str | None:
    """A popup ``width``/``height``: cells (1-65535) or ``"NN%"`` (1%-100%); else None
    (the popup's default)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= 65535:
        return value
    if isinstance(value, str) and _PERCENT.fullmatch(value.strip()):
        return value.strip()
    return None


def _pretty(text: str, prefix: KeySpec) -> str:
    """``prefix+shift+r`` → ``ctrl+b shift+r`` for the help overlay."""
    body = text.strip()
    if body.lower().startswith("prefix+"):
        rest = body[len("prefix+") :]
        ranged = _RANGE.match(rest)
        shown = rest if ranged else format_key(parse_key(rest))
        return f"{format_key(prefix)} {shown}"
    ranged = _RANGE.match(body)
    return body if ranged else format_key(parse_key(body))


def _help_rank(description: str) -> int:
    """Help lists the everyday keys first, in the order the spec introduces them."""
    first = _HELP_FIRST.get(description)
    if first is not None:
        return first
    later = 1000 if description.startswith("navigate:") else 0
    return later + len(_HELP_FIRST) + _HELP_REST.get(description, len(_HELP_REST))


_HELP_FIRST = {
    _ACTIONS[name].description: rank
    for rank, name in enumerate(
        (
            "split_vertical",
            "split_horizontal",
            "new_tab",
            "next_tab",
            "previous_tab",
            "switch_tab",
            "focus_pane_left",
            "focus_pane_down",
            "focus_pane_up",
            "focus_pane_right",
            "close_pane",
            "zoom",
            "workspace_picker",
            "detach",
            "cycle_machine",
            "toggle_sidebar",
            "help",
        )
    )
}
_HELP_REST = {d.description: rank for rank, d in enumerate(_ACTIONS.values())}


def help_entries(bindings: Bindings) -> tuple[tuple[str, str], ...]:
    """(keys, description) rows for the help overlay, prefix bindings first."""
    prefix = format_key(bindings.prefix)
    rows = list(bindings.help)
    rows.append((f"{prefix} {prefix}", "send the prefix key to the pane"))
    rows.append(("navigate: enter", "go to the selected workspace"))
    rows.append(("navigate: esc, q", "leave navigate mode"))
    rows.append(("resize: h/j/k/l, arrows", "move the pane's border"))
    rows.append(("resize: shift+h/j/k/l", "move it by a bigger step"))
    rows.append(("resize: esc, q, enter", "leave resize mode"))
    rows.append(("rename: enter / esc", "save / cancel the new name"))
    rows.append(("copy: h/j/k/l w b 0 $ g G", "move the copy cursor"))
    rows.append(("copy: v / V, y or enter", "select / select lines, copy"))
    rows.append(("copy: / ? n N", "search down / up, next / previous"))
    rows.append(("copy: q, esc", "leave copy mode"))
    rows.append(("mouse: click", "focus a pane, tab or space"))
    rows.append(("mouse: drag a border", "resize the split"))
    rows.append(("mouse: drag in a pane", "select text (copied on release)"))
    rows.append(("mouse: double-click", "select a word"))
    rows.append(("mouse: wheel", "scroll (copy mode)"))
    rows.append(("help: j/k, pgup/pgdn", "scroll this list"))
    return tuple(rows)
