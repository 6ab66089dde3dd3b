"""``herdr server`` (run in the foreground) and ``herdr server stop``."""

from __future__ import annotations

import json
import os
import sys
import time

from herdr.cli.main import UsageError
from herdr.cli.transport import (
    RequestFailed,
    fail,
    is_live,
    print_json,
    request,
    request_id,
    socket_path_for,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse  # annotations only: the server's start does not parse with it

STOP_WAIT_S = 5.0


def run_server(args: argparse.Namespace) -> int:
    from herdr.config.safe_paths import UnsafePathError
    from herdr.server.claim import claim_dirs, server_info

    try:
        info = server_info(os.environ, getattr(args, "session", None))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        claim_dirs(os.environ, info)  # before the emulator loads its cached FFI module
    except (UnsafePathError, OSError) as exc:
        print(f"herdr: {exc}", file=sys.stderr)
        return 1
    from herdr.cli.quiet_gc import no_gc

    with no_gc():  # ~400 ms of imports that make only long-lived objects (frozen)
        from herdr.server.app import run
    return run(info, os.environ, getattr(args, "handoff_fd", None))


def wait_gone(path: str, timeout: float = STOP_WAIT_S) -> bool:
    """Wait until nothing listens at ``path`` (the socket file is removed on shutdown)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not os.path.exists(path) or not is_live(path, timeout=0.2):
            return True
        time.sleep(0.02)
    return False


def stop_at(path: str, rid: str | None = None) -> dict[str, object]:
    """Send ``server.stop`` (no protocol check: stopping an old server must work)."""
    envelope = request(path, "server.stop", {}, timeout=10.0, rid=rid)
    if isinstance(envelope.get("error"), dict):
        return envelope
    if not wait_gone(path):
        raise RequestFailed("internal_error", f"the server at {path} did not stop in time")
    return envelope


def server_stop(args: argparse.Namespace) -> int:
    path = socket_path_for(args)
    rid = request_id("server.stop", args)
    try:
        envelope = stop_at(path, rid)
    except RequestFailed as exc:
        fail(exc.code, exc.message, rid)
    if isinstance(envelope.get("error"), dict):
        sys.stderr.write(json.dumps(envelope) + "\n")
        return 1
    print_json(envelope)
    return 0


def run_reload_config(args: argparse.Namespace) -> int:
    """``herdr server reload-config``: the ``config_reload`` result on stdout (``failed``
    keeps the running settings; ``diagnostics`` says why). Exit 1 on ``failed`` and on
    ``partial`` (invalid values fell back to defaults): a script must not read "reloaded"
    into a config that is broken. Every problem of the file (also unknown keys, with a
    did-you-mean) goes to stderr as ``file:line:col: …``."""
    from herdr.cli.transport import request_or_exit
    from herdr.config.health import read_health

    envelope = request_or_exit(args, "server.reload_config", {})  # an error exits 1
    print_json(envelope)
    result = envelope.get("result")
    status = result.get("status") if isinstance(result, dict) else None
    for line in read_health().lines():
        sys.stderr.write(line + "\n")
    return 1 if status in ("failed", "partial") else 0


HANDOFF_TIMEOUT_S = 300.0  # 200 panes on a loaded machine; the server bounds each step


def run_handoff(args: argparse.Namespace) -> int:
    """``herdr server handoff``: a new server process takes over every pane (same pids,
    screens and agent states); attached clients reconnect. On failure the running
    server keeps everything and the error says why."""
    from herdr.cli.transport import request_or_exit

    params: dict[str, object] = {}
    if args.herdr:
        params["import_exe"] = os.path.abspath(args.herdr)
    envelope = request_or_exit(args, "server.live_handoff", params, timeout=HANDOFF_TIMEOUT_S)
    if args.json:
        print_json(envelope)
        return 0
    result = envelope.get("result")
    info = result.get("handoff") if isinstance(result, dict) else None
    if isinstance(info, dict):
        print(
            f"handed off {info.get('panes')} pane(s) to a new server (pid {info.get('new_pid')},"
            f" herdr {info.get('new_version')}) in {info.get('elapsed_ms')} ms"
        )
    else:
        print("handed off")
    return 0
