"""Where herdr keeps its files (XDG on Linux/macOS), resolved from an environment mapping.

The one place these rules live, for the CLI and the server alike. Pure: every function
takes the environment as an argument, so tests and the server resolve paths for a
session without touching ``os.environ``. Plain strings on ``os.path`` only: importing
``pathlib`` costs a CLI call ~10 ms (it pulls in ``urllib.parse``, ``ipaddress`` and
``fnmatch``), and agents call the CLI hundreds of times; the server wraps the results
in ``Path`` where it wants one.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is not imported at run time: it costs every CLI call
if TYPE_CHECKING:
    from collections.abc import Mapping

APP_DIR = "herdr"
SOCKET_NAME = "herdr.sock"
CLIENT_SOCKET_NAME = "herdr-client.sock"
DEFAULT_SESSION = "default"
# sockaddr_un.sun_path is 108 bytes including the terminating NUL.
MAX_SOCKET_PATH_BYTES = 107


def _home(env: Mapping[str, str]) -> str:
    return env.get("HOME") or os.path.expanduser("~")


def config_dir(env: Mapping[str, str]) -> str:
    """``$XDG_CONFIG_HOME/herdr``, else ``~/.config/herdr``."""
    base = env.get("XDG_CONFIG_HOME") or os.path.join(_home(env), ".config")
    return os.path.join(base, APP_DIR)


def state_dir(env: Mapping[str, str]) -> str:
    """``$XDG_STATE_HOME/herdr``, else ``~/.local/state/herdr``."""
    base = env.get("XDG_STATE_HOME") or os.path.join(_home(env), ".local", "state")
    return os.path.join(base, APP_DIR)


def cache_dir(env: Mapping[str, str]) -> str:
    """``$XDG_CACHE_HOME/herdr``, else ``~/.cache/herdr`` (the emulator's FFI module)."""
    base = env.get("XDG_CACHE_HOME") or os.path.join(_home(env), ".cache")
    return os.path.join(base, APP_DIR)


def config_file(env: Mapping[str, str]) -> str:
    return env.get("HERDR_CONFIG_PATH") or os.path.join(config_dir(env), "config.toml")


def manifest_override_dir(env: Mapping[str, str]) -> str:
    return os.path.join(config_dir(env), "agent-detection")


def manifest_remote_dir(env: Mapping[str, str]) -> str:
    return os.path.join(state_dir(env), "agent-detection", "remote")


def manifest_status_file(env: Mapping[str, str]) -> str:
    return os.path.join(state_dir(env), "agent-detection", "status.toml")


def is_valid_session_name(name: str) -> bool:
    """Session names are ``[A-Za-z0-9._-]{1,64}`` and not ``.`` or ``..``."""
    if not 1 <= len(name) <= 64 or name in (".", ".."):
        return False
    return all(c.isascii() and (c.isalnum() or c in "._-") for c in name)


def session_data_dir(env: Mapping[str, str], session: str | None) -> str:
    """The default session lives in the config dir; named ones under ``sessions/<name>``."""
    if session is None or session == DEFAULT_SESSION:
        return config_dir(env)
    return os.path.join(config_dir(env), "sessions", session)


def session_socket_path(env: Mapping[str, str], session: str | None) -> str:
    return os.path.join(session_data_dir(env, session), SOCKET_NAME)


def session_state_dir(env: Mapping[str, str], session: str | None) -> str:
    """Logs and other state: ``$XDG_STATE_HOME/herdr[/sessions/<name>]``."""
    if session is None or session == DEFAULT_SESSION:
        return state_dir(env)
    return os.path.join(state_dir(env), "sessions", session)


def sessions_root(env: Mapping[str, str]) -> str:
    return os.path.join(config_dir(env), "sessions")


def socket_path_too_long(path: str | os.PathLike[str]) -> bool:
    return len(os.fsencode(path)) > MAX_SOCKET_PATH_BYTES


def active_session(env: Mapping[str, str], session_flag: str | None) -> str | None:
    """The session a command addresses: ``--session`` > ``$HERDR_SESSION``; ``None`` = default.

    An invalid ``--session`` raises ``ValueError``; an invalid ``$HERDR_SESSION`` is
    ignored (it may be inherited from somewhere else), as herdr does.
    """
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


def active_socket_path(env: Mapping[str, str], session_flag: str | None) -> str:
    """``--session`` > ``$HERDR_SOCKET_PATH`` > ``$HERDR_SESSION`` > default; never trusts
    an invalid session name (a bad ``--session`` raises ``ValueError``)."""
    session = active_session(env, session_flag)
    if session_flag is None:
        explicit = env.get("HERDR_SOCKET_PATH")
        if explicit:
            return explicit
    return session_socket_path(env, session)
