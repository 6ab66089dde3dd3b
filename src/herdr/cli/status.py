"""``herdr status [server|client] [--json]``: what runs where, and does it match us."""

from __future__ import annotations

import argparse
import os
import sys

from herdr import PROTOCOL_VERSION, __version__
from herdr.cli.transport import RequestFailed, print_json, request, socket_path_for
from herdr.config.paths import active_session, config_file

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from typing import Any


def _channel() -> str:
    path = config_file(os.environ)
    if not os.path.isfile(path):
        return "stable"
    import tomllib

    try:
        with open(path, "rb") as fh:
            channel = tomllib.load(fh).get("update", {}).get("channel")
    except (OSError, ValueError):
        return "stable"
    return channel if channel in ("stable", "preview") else "stable"


def client_status(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "version": __version__,
        "channel": _channel(),
        "protocol": PROTOCOL_VERSION,
        "binary": sys.argv[0] or "herdr",
        "session": active_session(os.environ, getattr(args, "session", None)),
    }


def server_status(args: argparse.Namespace) -> dict[str, Any]:
    path = socket_path_for(args)
    session = active_session(os.environ, getattr(args, "session", None))
    try:
        envelope = request(path, "ping", {}, timeout=5.0)
    except RequestFailed as exc:
        if exc.code != "server_not_running":
            raise
        envelope = {}
    result = envelope.get("result")
    if not isinstance(result, dict):
        return {
            "status": "not_running",
            "running": False,
            "version": None,
            "protocol": None,
            "capabilities": None,
            "persistence": None,
            "compatible": None,
            "socket": path,
            "session": session,
            "restart_needed": False,
        }
    version = result.get("version")
    protocol = result.get("protocol")
    return {
        "status": "running",
        "running": True,
        "version": version,
        "protocol": protocol,
        "capabilities": result.get("capabilities"),
        "persistence": result.get("persistence"),
        "compatible": None if protocol is None else protocol == PROTOCOL_VERSION,
        "socket": path,
        "session": session,
        "restart_needed": None if version is None else version != __version__,
    }


def _failing(server: dict[str, Any]) -> dict[str, Any] | None:
    """The server's persistence health when it reports saving the session fails."""
    health = server.get("persistence")
    if isinstance(health, dict) and health.get("status") == "failing":
        return health
    return None


def _last_error(health: dict[str, Any]) -> dict[str, Any]:
    error = health.get("last_error")
    return error if isinstance(error, dict) else {}


def _persistence_line(health: Any) -> str:
    """``failing since … (No space left on device: …/session.json); last good save …``."""
    if not isinstance(health, dict):
        return "unknown"
    good = health.get("last_good_save") or "never"
    if health.get("status") != "failing":
        return "ok (nothing saved yet)" if good == "never" else f"ok (last good save {good})"
    error = _last_error(health)
    why = error.get("message") or "error"
    if error.get("errno"):
        why = f"{why} [{error['errno']}]"
    where = error.get("path") or health.get("path") or "session.json"
    since = health.get("failing_since") or "unknown"
    return f"failing since {since} ({why}: {where}); last good save {good}"


def _summary(server: dict[str, Any]) -> str:
    if not server["running"]:
        return "server not running"
    if server["compatible"] is False:
        return "server running; protocol mismatch"
    if _failing(server):
        return "server running; saving the session fails"
    if server["restart_needed"]:
        return "server running; restart recommended"
    if server["compatible"] and server["restart_needed"] is False:
        return "server running; client and server match"
    return "server running; compatibility unknown"


def _next(server: dict[str, Any]) -> str:
    if not server["running"]:
        return "run `herdr` to launch the persistent session"
    if server["compatible"] is False:
        return "run `herdr server stop`, then launch `herdr` again"
    health = _failing(server)
    if health is not None:
        where = _last_error(health).get("path") or health.get("path") or "the session data dir"
        return (
            f"free disk space or make {where} writable; the server keeps the last good "
            "file and retries on its own"
        )
    if server["restart_needed"]:
        return "restart herdr when convenient to use the installed client version"
    return "no action needed"


def _label(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _server_lines(server: dict[str, Any], indent: str) -> list[str]:
    if not server["running"]:
        return [f"{indent}status: not running", f"{indent}socket: {server['socket']}"]
    return [
        f"{indent}status: running",
        f"{indent}version: {_label(server['version'])}",
        f"{indent}protocol: {_label(server['protocol'])}",
        f"{indent}compatible: {_label(server['compatible'])}",
        f"{indent}persistence: {_persistence_line(server.get('persistence'))}",
        f"{indent}socket: {server['socket']}",
    ]


def _client_lines(client: dict[str, Any], indent: str) -> list[str]:
    return [
        f"{indent}version: {client['version']}",
        f"{indent}channel: {client['channel']}",
        f"{indent}protocol: {client['protocol']}",
        # the default session has no name on the wire (null); people call it "default"
        f"{indent}session: {client['session'] or 'default'}",
        f"{indent}binary: {client['binary']}",
    ]


def run_status(args: argparse.Namespace) -> int:
    scope = args.scope or "full"
    try:
        if scope == "client":
            client = client_status(args)
            if args.json:
                print_json(client)
            else:
                print(f"summary: client {client['version']} on {client['channel']}")
                print("\n".join(_client_lines(client, "")))
            return 0
        server = server_status(args)
    except RequestFailed as exc:
        from herdr.cli.transport import fail

        fail(exc.code, exc.message)
    if scope == "server":
        if args.json:
            print_json(server)
        else:
            print(f"summary: {_summary(server)}")
            print("\n".join(_server_lines(server, "")))
            print(f"next: {_next(server)}")
        return 0
    client = client_status(args)
    from herdr.cli.status_detection import detection_lines, gather
    from herdr.config.health import read_health  # config health: only the full report

    config = read_health()
    detection = gather(server["socket"], server["running"])
    if args.json:
        print_json(
            {
                "client": client,
                "server": server,
                "update": {"restart_needed": server["restart_needed"]},
                "config": config.as_dict(),
                "detection": detection,
            }
        )
        return 0
    summary, next_step = _summary(server), _next(server)
    if config.status == "error":
        summary += "; config.toml has errors"
        if next_step == "no action needed":
            next_step = f"fix {config.path} (`herdr config check` lists every problem)"
    if detection["problems"]:  # as config errors: the summary and next step, not the exit code
        summary += "; agent detection files have problems"
        if next_step == "no action needed":
            next_step = "fix the files listed under detection: (`herdr agent kinds` checks them)"
    lines = [f"summary: {summary}", "", "client:", *_client_lines(client, "  ")]
    lines += ["", "server:", *_server_lines(server, "  ")]
    lines += ["", "config:", f"  status: {config.status}", f"  path: {config.path}"]
    lines += [f"  {line}" for line in config.lines()]
    lines += ["", "detection:", *detection_lines(detection, "  ")]
    lines += ["", "update:", f"  restart_needed: {_label(server['restart_needed'])}"]
    lines += ["", f"next: {next_step}"]
    print("\n".join(lines))
    return 0
