"""The few config keys the server needs to run panes, read leniently.

Missing file → defaults; an invalid value → its default plus a warning (herdr-spec §7).
A fuller typed config model can replace this. The defaults here must equal the ones
listed in :mod:`herdr.config.reference`; ``tests/config`` checks that they do.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from herdr.config.paths import config_file


@dataclass(frozen=True)
class ServerSettings:
    headless_cols: int = 120
    headless_rows: int = 40
    default_shell: str = ""
    shell_mode: str = "auto"  # auto | login | non_login
    new_cwd: str = "follow"  # follow | home | current | path
    scrollback_limit_bytes: int = 10_000_000
    resume_agents_on_restore: bool = True  # [session]: native agent resume after restart
    pane_history: bool = False  # [experimental]: save/restore pane screen history
    max_connections: int = 512  # [server]: open connections beyond this are refused


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

    def take(key: str, field: str, ok: Any) -> None:
        value = _lookup(doc, key)
        if value is None:
            return
        if ok(value):
            values[field] = value
        else:
            warnings.append(f"{path}: invalid {key} = {value!r}; using the default")

    def positive_int(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value > 0

    take("server.headless_cols", "headless_cols", positive_int)
    take("server.headless_rows", "headless_rows", positive_int)
    take("server.max_connections", "max_connections", positive_int)
    take("terminal.default_shell", "default_shell", lambda v: isinstance(v, str))
    take("terminal.shell_mode", "shell_mode", lambda v: v in ("auto", "login", "non_login"))
    take("terminal.new_cwd", "new_cwd", lambda v: v in ("follow", "home", "current", "path"))
    take("advanced.scrollback_limit_bytes", "scrollback_limit_bytes", positive_int)
    take(
        "session.resume_agents_on_restore",
        "resume_agents_on_restore",
        lambda v: isinstance(v, bool),
    )
    take("experimental.pane_history", "pane_history", lambda v: isinstance(v, bool))
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
