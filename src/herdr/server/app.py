"""``herdr server``: claim the socket, run the loop, shut down cleanly.

One asyncio loop (uvloop when installed) owns everything; SIGTERM/SIGINT and
``server.stop`` take the same shutdown path: end streams, run shutdown hooks (pane
processes), close connections, remove our socket file, release the lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from herdr.api import protocol
from herdr.config import safe_paths, server_settings
from herdr.server import limits, logs, socketfile
from herdr.server.claim import claim_dirs
from herdr.server.core import ServerCore, ServerInfo
from herdr.server.dispatch import Dispatcher
from herdr.server.methods import build_table
from herdr.server.methods_io import OutputMatchFilter, current_output_match
from herdr.server.panes import PaneHost
from herdr.server.persistence import attach_persistence
from herdr.server.transport import Listener

log = logging.getLogger("herdr.server")

Setup = Callable[[ServerCore], Any]


def run(info: ServerInfo, env: Mapping[str, str], setup: Setup | None = None) -> int:
    """Run a server in the foreground until stopped; returns the exit code."""
    path = info.socket_path
    try:
        socketfile.check_length(path)
        claim_dirs(env, info)
        lock_fd = socketfile.acquire_lock(path)
    except (socketfile.ClaimError, safe_paths.UnsafePathError, OSError) as exc:
        print(f"herdr: {exc}", file=sys.stderr)
        return 1
    try:
        try:
            stale = socketfile.clear_stale(path)
            logs.setup(info.state_dir)
        except (socketfile.ClaimError, safe_paths.UnsafePathError, OSError) as exc:
            print(f"herdr: {exc}", file=sys.stderr)
            return 1
        limits.raise_nofile_limit()
        log.info(
            "starting",
            extra={"socket": str(path), "session": info.session, "replaced_stale": stale},
        )
        _run_loop(_serve(info, env, setup))
        log.info("stopped")
        return 0
    finally:
        socketfile.release_lock(lock_fd)


def _run_loop(main: Coroutine[Any, Any, None]) -> None:
    try:
        import uvloop
    except ImportError:
        asyncio.run(main)
        return
    uvloop.run(main)


def attach_panes(core: ServerCore, env: Mapping[str, str]) -> PaneHost:
    """Give the server its session model and terminals, and the hooks they fill."""
    settings, warnings = server_settings.load(env)
    for warning in warnings:
        log.warning(warning)
    host = PaneHost(core, settings, env)
    core.host = host
    core.resolve_pane = host.resolve_pane
    core.filter_factories[protocol.OUTPUT_MATCHED] = lambda item: OutputMatchFilter(item, host)
    core.current_match = lambda match: current_output_match(host, match)
    core.shutdown_hooks.append(host.shutdown)
    return host


async def _serve(info: ServerInfo, env: Mapping[str, str], setup: Setup | None) -> None:
    core = ServerCore(info)
    attach_panes(core, env)
    if setup is not None:
        setup(core)
    if core.host is not None:  # restore session.json before any client can connect
        attach_persistence(core, core.host, env)
    dispatcher = Dispatcher(core, build_table())
    listener = Listener(dispatcher.handle_line, max_connections=limits.max_connections_of(core))
    old_umask = os.umask(0o177)  # the socket is born 0600, no window where it is wider
    try:
        await listener.start(info.socket_path)
    finally:
        os.umask(old_umask)
    os.chmod(info.socket_path, 0o600)
    ident = socketfile.identity(info.socket_path)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, core.request_stop, signal.Signals(signum).name)
    log.info("listening", extra={"socket": str(info.socket_path)})
    try:
        await core.stopping.wait()
    finally:
        await _shutdown(core, listener)
        try:
            socketfile.remove_if_owned(info.socket_path, ident)
        except OSError as err:  # a read-only/immutable dir must not turn exit into a crash
            log.warning("cannot remove the socket file %s: %s", info.socket_path, err)


async def _shutdown(core: ServerCore, listener: Listener) -> None:
    core.bus.end_all("server_stopping")
    await asyncio.sleep(0)  # let stream pumps write their end events
    for hook in core.shutdown_hooks:
        try:
            outcome = hook()
            if asyncio.iscoroutine(outcome):
                await outcome
        except Exception:
            log.exception("shutdown hook failed")
    with contextlib.suppress(Exception):
        await listener.close()
