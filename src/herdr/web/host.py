"""The web view's lifetime inside the server: start, stop, what it listens on.

One web view per server, started by ``web.start`` (``herdr web``) or by ``[web]
enabled`` at start-up, stopped by ``web.stop`` and on shutdown. aiohttp is imported
here only when a view starts, so a server that never runs one never loads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from herdr.vocab import ErrorCode, HerdrError
from herdr.web import auth

if TYPE_CHECKING:
    from aiohttp import web

    from herdr.server.transport import Connection
    from herdr.server.wiring import Server

log = logging.getLogger("herdr.web")

DEFAULT_PORT = 8375
DEFAULT_BIND = "127.0.0.1"
WEB_URL_FILE = "web-url"  # in the state directory: the URL of a view started by [web]

# Dispatch one request line as the socket API would (the server's own Dispatcher).
LineDispatch = Callable[[bytes, "Connection"], Awaitable[bytes | None]]
DispatchFactory = Callable[["Server"], LineDispatch]


@dataclass(frozen=True)
class WebOptions:
    """How a web view runs; ``exposed`` is the user's consent to a non-loopback bind."""

    port: int = DEFAULT_PORT
    bind: str = DEFAULT_BIND
    read_only: bool = False
    allow_typing: bool = False
    exposed: bool = False


def exposure_problem(options: WebOptions) -> str | None:
    """Why ``options`` may not be used (a non-loopback bind without consent), else None."""
    if auth.is_loopback(options.bind) or options.exposed:
        return None
    return (
        f"{options.bind} is not a loopback address: anyone who can reach it and learns the "
        "token controls your agents; pass --i-know-this-is-exposed to bind it anyway"
    )


@dataclass(frozen=True)
class Running:
    options: WebOptions
    port: int  # the port actually bound (``options.port`` may be 0)
    token: str
    runner: web.AppRunner

    def url(self) -> str:
        host = auth.url_host(self.options.bind)
        return f"http://{host}:{self.port}/?{auth.TOKEN_PARAM}={self.token}"

    def record(self) -> dict[str, Any]:
        o = self.options
        return {
            "url": self.url(),
            "bind": o.bind,
            "port": self.port,
            "read_only": o.read_only,
            "allow_typing": o.allow_typing and not o.read_only,
        }


class WebHost:
    """Owns the running web view, if any (one per server)."""

    def __init__(self, dispatch_factory: DispatchFactory) -> None:
        self._factory = dispatch_factory
        self._running: Running | None = None
        self._lock = asyncio.Lock()
        self._url_files: list[Path] = []  # hold the running view's token: gone on stop

    @property
    def running(self) -> Running | None:
        return self._running

    async def start(
        self, server: Server, options: WebOptions, *, token: str | None = None
    ) -> tuple[Running, bool]:
        """Start (or find) the view; returns it and whether it was already running.
        ``token``: keep a token already handed out (a live handoff's new server)."""
        async with self._lock:  # two concurrent starts make one view
            return await self._start(server, options, token)

    async def _start(
        self, server: Server, options: WebOptions, token: str | None = None
    ) -> tuple[Running, bool]:
        if self._running is not None:
            return self._running, True
        if not auth.is_address(options.bind):
            raise HerdrError(
                ErrorCode.INVALID_PARAMS,
                f"params.bind: {options.bind[:80]!r} is not an IP address or localhost",
            )
        options = replace(options, bind=options.bind.strip("[]"))
        problem = exposure_problem(options)
        if problem is not None:
            raise HerdrError(ErrorCode.WEB_EXPOSED_REFUSED, problem)
        if options.read_only and options.allow_typing:
            options = replace(options, allow_typing=False)
        try:
            # aiohttp takes 0.4-0.7 s to import here: a thread, so the loop keeps serving.
            await asyncio.to_thread(importlib.import_module, "herdr.web.app")
        except ImportError as exc:  # pragma: no cover - aiohttp is a dependency
            message = f"the web view needs aiohttp: {exc}"
            raise HerdrError(ErrorCode.WEB_UNAVAILABLE, message) from None
        from aiohttp import web as aioweb

        from herdr.web.app import WebContext, build_app

        token = token or auth.new_token()
        ctx = WebContext(server, self._factory(server), options, token)
        runner = aioweb.AppRunner(
            build_app(ctx), access_log=None, handle_signals=False, shutdown_timeout=2.0
        )
        await runner.setup()
        site = aioweb.TCPSite(runner, options.bind, options.port, reuse_address=True)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise HerdrError(
                ErrorCode.WEB_BIND_FAILED, f"cannot listen on {options.bind}:{options.port}: {exc}"
            ) from None
        port = _bound_port(runner, options.port)
        self._running = Running(options, port, token, runner)
        if not auth.is_loopback(options.bind):
            log.warning("web view exposed on %s:%d (not loopback)", options.bind, port)
        log.info("web view listening", extra={"bind": options.bind, "port": port})
        return self._running, False

    def remove_on_stop(self, path: Path) -> None:
        """``path`` holds the running view's URL; remove it when the view stops."""
        self._url_files.append(path)

    async def stop(self) -> bool:
        """Stop the view; whether one was running. Open websockets are closed."""
        async with self._lock:
            running, self._running = self._running, None
            if running is None:
                return False
            await running.runner.cleanup()
            files, self._url_files = self._url_files, []
            for path in files:
                with contextlib.suppress(OSError):
                    path.unlink()
        log.info("web view stopped")
        return True


def _bound_port(runner: web.AppRunner, asked: int) -> int:
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return asked
