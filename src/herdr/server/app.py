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
import socket
import sys
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, NoReturn

from herdr.config import safe_paths, server_settings
from herdr.runtime.events import EventBus
from herdr.server import handoff_new, handoff_web, limits, logs, manifest_notice, socketfile
from herdr.server.attach import AttachRegistry
from herdr.server.claim import claim_dirs
from herdr.server.core import ServerCore, encode
from herdr.server.cwd_sampler import CwdSampler
from herdr.server.dispatch import Dispatcher
from herdr.server.handoff_control import HandoffControl
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
HANDOFF_GOODBYE_S = 0.1


def run(info: ServerInfo, env: Mapping[str, str], handoff_fd: int | None = None) -> int:
    """Run a server in the foreground until stopped; returns the exit code.

    With ``handoff_fd`` this is the new server of a live handoff (`handoff_new`): the
    socket, the lock and the panes come from the old server instead."""
    if handoff_fd is not None:
        return _run_adopted(info, env, handoff_fd)
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
        _run_loop(_serve(info, env, lock_fd))
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


def _run_adopted(info: ServerInfo, env: Mapping[str, str], fd: int) -> int:
    """The new server of a live handoff: receive, adopt, serve (see `handoff_new`)."""
    try:
        logs.setup(info.state_dir)
        limits.raise_nofile_limit()
        received = handoff_new.receive(info, env, fd)
    except Exception as exc:
        log.error("live handoff: cannot take over: %s", exc)
        print(f"herdr: live handoff: {exc}", file=sys.stderr)
        return 1
    log.info("adopting", extra={"socket": str(info.socket_path), "panes": len(received.ptys)})
    try:
        _run_loop(_serve_adopted(info, env, received))
    finally:
        socketfile.release_lock(received.lock_fd)
    log.info("stopped")
    return 0


async def _serve_adopted(
    info: ServerInfo, env: Mapping[str, str], received: handoff_new.Received
) -> None:
    # Blocking on purpose: no callback (PTY read, accept) may run before the old server
    # lets go, and on any failure we leave at once (a loop shutdown would run them).
    try:
        server = build_server(info, env)
        panes = handoff_new.adopt(server, received.doc, received.ptys)
        dispatcher = Dispatcher(server, build_table())
        listener = Listener(
            dispatcher.handle_line,
            max_connections=limits.max_connections_of(server.panes),
            handle_now=dispatcher.handle_now,
        )
        await listener.adopt(socket.socket(fileno=received.listen_fd))
    except Exception as exc:
        log.exception("live handoff: cannot adopt the session")
        handoff_new.refuse(received, f"the new server cannot adopt the session: {exc!r}")
        _leave(1)
    if handoff_new.pause_before_confirm(env):
        handoff_new.test_pause(received.sock)
    if not handoff_new.confirm(received, panes):
        _leave(3)  # the old server kept the panes
    handoff_new.detach_stderr()  # it went to the old server's scratch file; we log to server.log
    server.persistence.start(restore=False)
    server.persistence.mark_dirty()
    server.cwd.start()
    await handoff_web.resume(server, received.doc.extra.get("web"))
    ident = socketfile.identity(info.socket_path)
    await _main(server, listener, env, ident, received.lock_fd)


def _leave(code: int) -> NoReturn:
    """Exit now, touching no pane: the old server still owns every one."""
    logging.shutdown()
    os._exit(code)


async def _serve(info: ServerInfo, env: Mapping[str, str], lock_fd: int) -> None:
    server = build_server(info, env)
    server.persistence.start()  # restore session.json before any client can connect
    server.cwd.start()
    dispatcher = Dispatcher(server, build_table())
    listener = Listener(
        dispatcher.handle_line,
        max_connections=limits.max_connections_of(server.panes),
        handle_now=dispatcher.handle_now,
    )
    old_umask = os.umask(0o177)  # the socket is born 0600, no window where it is wider
    try:
        await listener.start(info.socket_path)
    finally:
        os.umask(old_umask)
    os.chmod(info.socket_path, 0o600)
    ident = socketfile.identity(info.socket_path)
    await _main(server, listener, env, ident, lock_fd)


async def _main(
    server: Server,
    listener: Listener,
    env: Mapping[str, str],
    ident: tuple[int, int],
    lock_fd: int,
) -> None:
    """Serve until stopped; after a live handoff, leave the panes and socket alone."""
    info = server.info
    server.panes.handoff = HandoffControl(listener, lock_fd)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, server.request_stop, signal.Signals(signum).name)
    log.info("listening", extra={"socket": str(info.socket_path)})
    server.plugins.start()  # hooks, then [[startup]]: the session is restored, the API up
    await _start_configured_web(server)
    reloader = manifest_notice.for_server(server)
    updates = ManifestUpdater(reloader, env, enabled=server.panes.settings.manifest_check)
    updates.start()
    terminals = server.panes.terminals
    watcher = ManifestWatcher(
        reloader, env, activity=lambda: sum(t.revision for t in terminals.values())
    )
    watcher.start()
    try:
        await server.stopping.wait()
    finally:
        await watcher.stop()
        await updates.stop()
        handed_off = server.panes.handoff is not None and server.panes.handoff.done
        await _shutdown(server, listener, handed_off=handed_off)
        if handed_off:
            log.info("handed off: the new server owns the panes and the socket")
        else:
            try:
                socketfile.remove_if_owned(info.socket_path, ident)
            except OSError as err:  # a read-only/immutable dir must not crash the exit
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


async def _shutdown(server: Server, listener: Listener, *, handed_off: bool = False) -> None:
    server.bus.end_all("handoff" if handed_off else "server_stopping")
    await asyncio.sleep(0)  # let stream pumps write their end events
    steps: list[tuple[str, Callable[[], object]]] = [
        ("web view", server.web.stop),  # first: no page acts while the rest stops
        ("final save", server.persistence.shutdown),  # the panes are still alive
        ("cwd sampler", server.cwd.stop),
        ("plugins", server.plugins.stop),
        ("panes", server.panes.shutdown),
    ]
    if handed_off:  # the new server saves and owns the panes: signal no process
        steps = [steps[1], steps[2]]
        await asyncio.sleep(HANDOFF_GOODBYE_S)  # attach streams write their bye line
    for name, step in steps:
        try:
            outcome = step()
            if asyncio.iscoroutine(outcome):
                await outcome
        except Exception:
            log.exception("shutdown step %s failed", name)
    with contextlib.suppress(Exception):
        await listener.close()
