"""The CLI's view of herdr's file locations, as plain strings.

Same rules as :mod:`herdr.config.paths` (a property test keeps them equal), but
built on ``os.path`` only: importing ``pathlib`` costs a CLI call ~10 ms (it pulls in
``urllib.parse``, ``ipaddress`` and ``fnmatch``), and agents call the CLI hundreds of
times.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

DEFAULT_SESSION = "default"
SOCKET_NAME = "herdr.sock"


def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def config_dir(env: Mapping[str, str]) -> str:
    base = env.get("XDG_CONFIG_HOME") or os.path.join(_home(env), ".config")
    return os.path.join(base, "herdr")


def config_file(env: Mapping[str, str]) -> str:
    return env.get("HERDR_CONFIG_PATH") or os.path.join(config_dir(env), "config.toml")


def is_valid_session_name(name: str) -> bool:
    if not 1 <= len(name) <= 64 or name in (".", ".."):
        return False
    return all(c.isascii() and (c.isalnum() or c in "._-") for c in name)


def active_session(env: Mapping[str, str], session_flag: str | None) -> str | None:
    """``--session`` > ``$HERDR_SESSION``; ``None`` = default. Bad ``--session`` → ValueError."""
    if session_flag is not None:
        if session_flag == DEFAULT_SESSION:
            return None
        if not is_valid_session_name(session_flag):
            raise ValueError(
                f"invalid session name {session_flag!r}: use 1-64 of A-Z a-z 0-9 . _ - "
                "(not . or ..)"
            )
        return session_flag
    named = env.get("HERDR_SESSION")
    if named and named != DEFAULT_SESSION and is_valid_session_name(named):
        return named
    return None


def session_dir(env: Mapping[str, str], session: str | None) -> str:
    if session is None:
        return config_dir(env)
    return os.path.join(config_dir(env), "sessions", session)


def socket_path(env: Mapping[str, str], session_flag: str | None) -> str:
    """``--session`` > ``$HERDR_SOCKET_PATH`` > ``$HERDR_SESSION`` > default."""
    session = active_session(env, session_flag)
    if session_flag is None and env.get("HERDR_SOCKET_PATH"):
        return env["HERDR_SOCKET_PATH"]
    return os.path.join(session_dir(env, session), SOCKET_NAME)


def sessions_root(env: Mapping[str, str]) -> str:
    return os.path.join(config_dir(env), "sessions")


def session_state_dir(env: Mapping[str, str], session: str | None) -> str:
    base = env.get("XDG_STATE_HOME") or os.path.join(_home(env), ".local", "state")
    root = os.path.join(base, "herdr")
    return root if session is None else os.path.join(root, "sessions", session)
