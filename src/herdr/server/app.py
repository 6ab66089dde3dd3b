"""``herdr server``: claim the socket, build the server, run the loop, shut down cleanly.

`build_server` wires every part in one place and returns the immutable `Server`. One
asyncio loop (uvloop when installed) owns everything; SIGTERM/SIGINT and
``server.stop`` take the same shutdown path: end streams, save the session, stop the
cwd sampler and the pane processes, close connections, remove our socket file,
release the lock.
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

from herdr.config import safe_paths, server_settings
from herdr.runtime.events import EventBus
from herdr.server import limits, logs, manifest_notice, socketfile
from herdr.server.attach import AttachRegistry
from herdr.server.claim import claim_dirs
from herdr.server.core import ServerCore, encode
from herdr.server.cwd_sampler import CwdSampler
from herdr.server.dispatch import Dispatcher
from herdr.server.info import ServerInfo
from herdr.server.manifest_updates import ManifestUpdater
from herdr.server.manifest_watch import ManifestWatcher
from herdr.server.methods import build_table
from herdr.server.panes import PaneHost
from herdr.server.persistence import Persistence
from herdr.server.plugin_host import PluginHost
from herdr.server.transport import Listener
from herdr.server.views import ViewedPanes
from herdr.server.wiring import Server
from herdr.server.worktree_ops import WorktreeOps
from herdr.vocab import HerdrError
from herdr.web.host import WEB_URL_FILE, WebHost, WebOptions

log = logging.getLogger("herdr.server")


def run(info: ServerInfo, env: Mapping[str, str]) -> int:
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
        _run_loop(_serve(info, env))
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


def build_server(info: ServerInfo, env: Mapping[str, str]) -> Server:
    """Every part of one server, wired once. Nothing runs yet (see `_serve`)."""
    settings, warnings = server_settings.load(env)
    for warning in warnings:
        log.warning(warning)
    bus = EventBus(encode)
    views = ViewedPanes()
    host = PaneHost(info, bus, settings, env, views)
    core = ServerCore(info, bus, asyncio.Event(), host)
    return Server(
        info=core.info,
        bus=core.bus,
        stopping=core.stopping,
        panes=host,
        agents=host.agents,
        attach=AttachRegistry(core, views, host.agents),
        views=views,
        persistence=Persistence(core, host.agents, env=env),
        cwd=CwdSampler(host),
        worktrees=WorktreeOps(info.state_dir),
        plugins=PluginHost(host, bus, env),
        web=WebHost(lambda server: Dispatcher(server, build_table()).handle_line),
    )


async def _serve(info: ServerInfo, env: Mapping[str, str]) -> None:
    server = build_server(info, env)
    server.persistence.start()  # restore session.json before any client can connect
    server.cwd.start()
    dispatcher = Dispatcher(server, build_table())
    listener = Listener(
        dispatcher.handle_line, max_connections=limits.max_connections_of(server.panes)
    )
    old_umask = os.umask(0o177)  # the socket is born 0600, no window where it is wider
    try:
        await listener.start(info.socket_path)
    finally:
        os.umask(old_umask)
    os.chmod(info.socket_path, 0o600)
    ident = socketfile.identity(info.socket_path)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, server.request_stop, signal.Signals(signum).name)
    log.info("listening", extra={"socket": str(info.socket_path)})
    server.plugins.start()  # hooks, then [[startup]]: the session is restored, the API up
    await _start_configured_web(server)
    reloader = manifest_notice.for_server(server)
    updates = ManifestUpdater(reloader, env, enabled=server.panes.settings.manifest_check)
    updates.start()
    watcher = ManifestWatcher(reloader, env)
    watcher.start()
    try:
        await server.stopping.wait()
    finally:
        await watcher.stop()
        await updates.stop()
        await _shutdown(server, listener)
        try:
            socketfile.remove_if_owned(info.socket_path, ident)
        except OSError as err:  # a read-only/immutable dir must not turn exit into a crash
            log.warning("cannot remove the socket file %s: %s", info.socket_path, err)


async def _start_configured_web(server: Server) -> None:
    """``[web] enabled``: start the view; its URL (with the token) goes to a 0600 file in
    the state directory, never to the log."""
    s = server.panes.settings
    if not s.web_enabled:
        return
    options = WebOptions(
        port=s.web_port,
        bind=s.web_bind,
        read_only=s.web_read_only,
        allow_typing=s.web_allow_typing,
        exposed=s.web_exposed,
    )
    try:
        running, _ = await server.web.start(server, options)
    except HerdrError as exc:
        log.warning("[web] not started: %s", exc.message)
        return
    path = server.info.state_dir / WEB_URL_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(running.url() + "\n")
        server.web.remove_on_stop(path)
    except OSError as err:
        log.warning("cannot write %s: %s", path, err)
        return
    log.info("web view started from [web]; its URL is in %s", path)


async def _shutdown(server: Server, listener: Listener) -> None:
    server.bus.end_all("server_stopping")
    await asyncio.sleep(0)  # let stream pumps write their end events
    steps: list[tuple[str, Callable[[], object]]] = [
        ("web view", server.web.stop),  # first: no page acts while the rest stops
        ("final save", server.persistence.shutdown),  # the panes are still alive
        ("cwd sampler", server.cwd.stop),
        ("plugins", server.plugins.stop),
        ("panes", server.panes.shutdown),
    ]
    for name, step in steps:
        try:
            outcome = step()
            if asyncio.iscoroutine(outcome):
                await outcome
        except Exception:
            log.exception("shutdown step %s failed", name)
    with contextlib.suppress(Exception):
        await listener.close()
