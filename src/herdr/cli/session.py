"""``herdr session list|stop|delete``: named sessions, each its own server and data dir.

Local commands: they look at the config dir and ping sockets, never start anything.
"""

from __future__ import annotations

import argparse
import os

from herdr.cli.transport import RequestFailed, fail, is_live, print_json, request_id
from herdr.config import paths

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from typing import Any


def _running(socket_path: str) -> bool:
    """Whether our server runs there; another user's (a squatter) does not count."""
    try:
        return os.path.exists(socket_path) and is_live(socket_path)
    except RequestFailed:  # server_untrusted: `session stop` then says so
        return False


def _info(name: str | None) -> dict[str, Any]:
    env = os.environ
    session_dir = paths.session_data_dir(env, name)
    socket_path = os.path.join(session_dir, paths.SOCKET_NAME)
    return {
        "name": name or paths.DEFAULT_SESSION,
        "default": name is None,
        "running": _running(socket_path),
        "socket_path": socket_path,
        "session_dir": session_dir,
    }


def list_sessions() -> list[dict[str, Any]]:
    """The default session first, then named ones (directories) sorted by name."""
    root = paths.sessions_root(os.environ)
    try:
        entries = os.listdir(root)
    except OSError:
        entries = []
    names = sorted(
        name
        for name in entries
        if name != paths.DEFAULT_SESSION
        and paths.is_valid_session_name(name)
        and os.path.isdir(os.path.join(root, name))
    )
    return [_info(None), *(_info(name) for name in names)]


def _target(name: str) -> str | None:
    if name == paths.DEFAULT_SESSION:
        return None
    if not paths.is_valid_session_name(name):
        fail(
            "invalid_session_name",
            f"invalid session name {name!r}: use 1-64 of A-Z a-z 0-9 . _ - (not . or ..)",
        )
    return name


def run_list(args: argparse.Namespace) -> int:
    sessions = list_sessions()
    if args.json:
        print_json({"sessions": sessions})
        return 0
    width = max(len(s["name"]) for s in sessions)
    print(f"{'name':<{width}}  {'status':<8}  directory")
    for s in sessions:
        status = "running" if s["running"] else "stopped"
        marker = " (default)" if s["default"] else ""
        print(f"{s['name']:<{width}}  {status:<8}  {s['session_dir']}{marker}")
    return 0


def run_stop(args: argparse.Namespace) -> int:
    from herdr.cli.server import stop_at

    name = _target(args.name)
    info = _info(name)
    label = info["name"]
    if not os.path.exists(info["socket_path"]):
        fail(
            "session_stop_failed",
            f"session {label} is not running (no socket at {info['socket_path']})",
        )
    try:
        envelope = stop_at(info["socket_path"], request_id("server.stop", args))
    except RequestFailed as exc:
        fail("session_stop_failed", f"session {label} could not be stopped: {exc.message}")
    error = envelope.get("error")
    if isinstance(error, dict):
        fail("session_stop_failed", f"session {label}: {error.get('message')}")
    info = _info(name)
    if args.json:
        print_json({"stopped": True, "session": info})
    else:
        print(f"stopped session {label}")
    return 0


def run_delete(args: argparse.Namespace) -> int:
    import shutil

    if args.name == paths.DEFAULT_SESSION:
        fail("session_delete_failed", "deleting the default session is not supported")
    name = _target(args.name)
    assert name is not None
    info = _info(name)
    if info["running"]:
        fail("session_delete_failed", f"session {name} is running; stop it before deleting")
    try:
        shutil.rmtree(info["session_dir"])
    except FileNotFoundError:
        pass
    except OSError as exc:
        fail("session_delete_failed", f"cannot delete session {name}: {exc}")
    shutil.rmtree(paths.session_state_dir(os.environ, name), ignore_errors=True)
    if args.json:
        print_json({"deleted": True, "session": info})
    else:
        print(f"deleted session {name}")
    return 0
