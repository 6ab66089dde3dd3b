"""The few config keys the server needs to run panes, read leniently.

Missing file → defaults; an invalid value → its default plus a warning (herdr-spec §7).
The model is a msgspec struct, so a field's type is its validation rule. The defaults
here must equal the ones listed in :mod:`herdr.config.reference`; ``tests/config``
checks that they do.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from herdr.config.paths import config_file

PositiveInt = Annotated[int, msgspec.Meta(gt=0)]


class ServerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The server's typed slice of ``config.toml``; each field's type is its rule."""

    headless_cols: PositiveInt = 120
    headless_rows: PositiveInt = 40
    default_shell: str = ""
    shell_mode: Literal["auto", "login", "non_login"] = "auto"
    new_cwd: Literal["follow", "home", "current", "path"] = "follow"
    scrollback_limit_bytes: PositiveInt = 10_000_000
    resume_agents_on_restore: bool = True  # [session]: native agent resume after restart
    pane_history: bool = False  # [experimental]: save/restore pane screen history
    max_connections: PositiveInt = 512  # [server]: open connections beyond this are refused
    toast_delivery: Literal["off", "herdr", "terminal", "system"] = "off"  # notification.show
    worktree_directory: str = "~/.herdr/worktrees"  # [worktrees]: new checkouts go below
    manifest_check: bool = True  # [update]: background remote manifest updates
    # [web]: the web view started with the server (herdr.web; an extension of ours)
    web_enabled: bool = False
    web_port: Annotated[int, msgspec.Meta(ge=0, le=65535)] = 8375
    web_bind: str = "127.0.0.1"
    web_read_only: bool = False
    web_allow_typing: bool = False
    web_exposed: bool = False


# config.toml key → field. Read leniently, key by key: one bad value costs only itself.
KEYS: tuple[tuple[str, str], ...] = (
    ("server.headless_cols", "headless_cols"),
    ("server.headless_rows", "headless_rows"),
    ("server.max_connections", "max_connections"),
    ("terminal.default_shell", "default_shell"),
    ("terminal.shell_mode", "shell_mode"),
    ("terminal.new_cwd", "new_cwd"),
    ("advanced.scrollback_limit_bytes", "scrollback_limit_bytes"),
    ("session.resume_agents_on_restore", "resume_agents_on_restore"),
    ("experimental.pane_history", "pane_history"),
    ("ui.toast.delivery", "toast_delivery"),
    ("worktrees.directory", "worktree_directory"),
    ("update.manifest_check", "manifest_check"),
    ("web.enabled", "web_enabled"),
    ("web.port", "web_port"),
    ("web.bind", "web_bind"),
    ("web.read_only", "web_read_only"),
    ("web.allow_typing", "web_allow_typing"),
    ("web.i_know_this_is_exposed", "web_exposed"),
)
_TYPES = {field.name: field.type for field in msgspec.structs.fields(ServerSettings)}


def _lookup(doc: Mapping[str, Any], dotted: str) -> Any:
    node: Any = doc
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def load(env: Mapping[str, str]) -> tuple[ServerSettings, list[str]]:
    """Settings from ``config.toml`` (or ``$HERDR_CONFIG_PATH``) and warnings to log."""
    settings, warnings = read(env)
    if settings is None:
        return ServerSettings(), [f"{warnings[0]}; using defaults"]
    return settings, warnings


def read(env: Mapping[str, str]) -> tuple[ServerSettings | None, list[str]]:
    """Like :func:`load`, but ``None`` when the file exists and cannot be read or parsed
    (a reload then keeps what runs instead of falling back to defaults)."""
    path = Path(config_file(env))
    warnings: list[str] = []
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ServerSettings(), warnings
    except (OSError, ValueError) as exc:
        return None, [f"cannot read {path}: {exc}"]
    values: dict[str, Any] = {}
    for key, field in KEYS:
        value = _lookup(doc, key)
        if value is None:
            continue
        try:
            values[field] = msgspec.convert(value, _TYPES[field], strict=True)
        except msgspec.ValidationError:
            warnings.append(f"{path}: invalid {key} = {value!r}; using the default")
    return ServerSettings(**values), warnings


def shell_argv(settings: ServerSettings, env: Mapping[str, str]) -> list[str]:
    """``terminal.default_shell`` → ``$SHELL`` → ``/bin/sh``; login shells as ``-l``."""
    shell = settings.default_shell or env.get("SHELL") or "/bin/sh"
    if not os.access(shell, os.X_OK):
        shell = "/bin/sh"
    login = settings.shell_mode == "login" or (
        settings.shell_mode == "auto" and os.uname().sysname == "Darwin"
    )
    return [shell, "-l"] if login else [shell]
