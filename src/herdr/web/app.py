"""The web view's HTTP routes and websocket, on aiohttp, in the server's own loop.

Every request passes the token check first: ``/?token=…`` (the URL printed once) is
exchanged for an HttpOnly, SameSite=Strict cookie and a move to ``/``; anything
without a valid cookie gets 401 and no data. The websocket also requires our own
``Origin``. Its messages are socket-API requests (``{"id","method","params"}``) that go
through the server's real dispatcher after :mod:`herdr.web.policy`, plus ``web.watch``
(which pane's screen to push). The server pushes bus events and screens.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from importlib import resources
from typing import Any

import orjson
from aiohttp import WSMsgType, web

from herdr.api import protocol
from herdr.runtime.events import Event, Filter
from herdr.server.core import struct_fields
from herdr.server.transport import Connection
from herdr.server.wiring import Server
from herdr.vocab import ErrorCode, HerdrError
from herdr.web import auth, policy
from herdr.web.host import LineDispatch, WebOptions
from herdr.web.screen import frame

log = logging.getLogger("herdr.web")

MAX_MESSAGE_BYTES = 256 * 1024  # one websocket message (a prompt, a paste)
MAX_BODY_BYTES = 16 * 1024  # no route takes a body
MAX_IN_FLIGHT = 8  # calls one page may have running at once
SCREEN_INTERVAL_S = 0.05  # a busy pane's screen goes out at most this often
STATIC_FILES = {"app.js": "text/javascript", "app.css": "text/css"}
OUTPUT_KIND = "pane_output_changed"
# What the page hears: every lifecycle kind, agent states, approvals.
PUSHED_KINDS = frozenset(
    {protocol.pushed_kind(kind) for kind in protocol.LIFECYCLE_SUBSCRIPTIONS}
    | {"pane_agent_status_changed", "agent_approval_requested"}
)
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # the token must not leave in a Referer
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


@dataclass(frozen=True)
class WebContext:
    server: Server
    dispatch: LineDispatch
    options: WebOptions
    token: str


CONTEXT: web.AppKey[WebContext] = web.AppKey("herdr_web", WebContext)
PAGES: web.AppKey[set[web.WebSocketResponse]] = web.AppKey("herdr_web_pages")


def build_app(ctx: WebContext) -> web.Application:
    app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[_guard])
    app[CONTEXT] = ctx
    app[PAGES] = set()
    app.on_shutdown.append(_close_pages)
    app.router.add_get("/", _index)
    app.router.add_get("/static/{name}", _static)
    app.router.add_get("/ws", _websocket)
    return app


async def _close_pages(app: web.Application) -> None:
    """Stopping the view closes its open pages (their loops end, the runner can finish)."""
    pages = app[PAGES]
    for ws in [*pages]:
        with contextlib.suppress(Exception):
            await ws.close(code=1001, message=b"web view stopped")


def _authorized(request: web.Request) -> bool:
    token = request.app[CONTEXT].token
    return auth.token_matches(request.cookies.get(auth.cookie_name(token)), token)


@web.middleware
async def _guard(request: web.Request, handler: Any) -> web.StreamResponse:
    """Token or cookie first, for every route; security headers on every answer."""
    ctx = request.app[CONTEXT]
    response: web.StreamResponse
    given = request.query.get(auth.TOKEN_PARAM)
    if given is not None:
        if request.path == "/" and auth.token_matches(given, ctx.token):
            response = web.Response(body=_ENTER, content_type="text/html", charset="utf-8")
            response.set_cookie(
                auth.cookie_name(ctx.token), ctx.token, httponly=True, samesite="Strict", path="/"
            )
        else:
            response = web.Response(status=401, text="401: invalid token\n")
    elif not _authorized(request):
        response = web.Response(status=401, text="401: open the URL herdr web printed\n")
    else:
        response = await handler(request)
    if not response.prepared:
        response.headers.update(HEADERS)
    return response


# The answer to the token URL: set the cookie, then go to ``/`` from our own page. (A
# redirect would not do: after a link from another site, a SameSite=Strict cookie is not
# sent along the redirect, and the first load would fail.) No script: the CSP allows none.
_ENTER = (
    b'<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
    b'<meta http-equiv="refresh" content="0;url=/"><title>herdr</title>'
    b'<a href="/">Open herdr</a>\n'
)


def _asset(name: str) -> bytes:
    return resources.files("herdr.web").joinpath("static", name).read_bytes()


async def _index(request: web.Request) -> web.StreamResponse:
    return web.Response(body=_asset("index.html"), content_type="text/html", charset="utf-8")


async def _static(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    kind = STATIC_FILES.get(name)
    if kind is None:
        return web.Response(status=404, text="404\n")
    return web.Response(body=_asset(name), content_type=kind, charset="utf-8")


async def _websocket(request: web.Request) -> web.StreamResponse:
    if not auth.origin_allowed(request.headers.get("Origin"), request.headers.get("Host")):
        response = web.Response(status=403, text="403: cross-origin websocket refused\n")
        response.headers.update(HEADERS)
        return response
    ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE_BYTES, heartbeat=30.0)
    await ws.prepare(request)
    pages = request.app[PAGES]
    pages.add(ws)
    try:
        await PageSession(request.app[CONTEXT], ws).run()
    finally:
        pages.discard(ws)
    return ws


class _PageFilter(Filter):
    """Everything the page shows, plus output changes of the one pane it watches."""

    kinds = PUSHED_KINDS | {OUTPUT_KIND}

    def __init__(self) -> None:
        super().__init__({"type": "web"})
        self.watched: str | None = None

    def apply(self, event: Event) -> tuple[str, dict[str, Any]] | None:
        data = event.data
        if event.kind == OUTPUT_KIND:
            if data.get("pane_id") != self.watched:
                return None
            return OUTPUT_KIND, {"pane_id": data.get("pane_id")}
        return event.kind, data


class PageSession:
    """One open page: its calls, its event stream and the screen it watches."""

    def __init__(self, ctx: WebContext, ws: web.WebSocketResponse) -> None:
        self.ctx = ctx
        self.ws = ws
        self.conn = Connection()  # no transport: short ids resolve without a caller
        self.filter = _PageFilter()
        self.wake = asyncio.Event()
        self.screen_due = False
        self.calls: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        bus = self.ctx.server.bus
        sub, _ = bus.subscribe([self.filter])
        sub.wake = self.wake.set
        pump = asyncio.create_task(self._pump(sub))
        try:
            options = self.ctx.options
            await self._send(
                {
                    "type": "hello",
                    "read_only": options.read_only,
                    "allow_typing": options.allow_typing and not options.read_only,
                    "session": self.ctx.server.info.session,
                }
            )
            async for msg in self.ws:
                if msg.type == WSMsgType.TEXT:
                    await self._on_text(msg.data)
                elif msg.type in (WSMsgType.BINARY, WSMsgType.ERROR):
                    break
        finally:
            bus.unsubscribe(sub)
            pump.cancel()
            for task in list(self.calls):
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump
            self.conn.connection_lost(None)  # held handlers learn the caller is gone

    async def _send(self, doc: dict[str, Any]) -> None:
        await self._send_raw(orjson.dumps(doc, default=struct_fields))

    async def _send_raw(self, line: bytes) -> None:
        if not self.ws.closed:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await self.ws.send_str(line.decode("utf-8"))

    # -- calls from the page ---------------------------------------------------------

    async def _on_text(self, text: str) -> None:
        try:
            request = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            await self._error("", protocol.INVALID_REQUEST, f"invalid request: {exc}")
            return
        if not isinstance(request, dict) or not isinstance(request.get("id"), str):
            await self._error("", protocol.INVALID_REQUEST, "invalid request: id must be a string")
            return
        rid, method = request["id"], request.get("method")
        if not isinstance(method, str):
            await self._error(rid, protocol.INVALID_REQUEST, "method must be a string")
            return
        if method == "web.watch":
            await self._watch(rid, request.get("params"))
            return
        options = self.ctx.options
        refused = policy.refusal(
            method, read_only=options.read_only, allow_typing=options.allow_typing
        )
        if refused is not None:
            await self._error(rid, *refused)
            return
        if len(self.calls) >= MAX_IN_FLIGHT:
            await self._error(rid, ErrorCode.TOO_MANY_CONNECTIONS, "too many calls in flight")
            return
        task = asyncio.create_task(self._call(text.encode("utf-8")))
        self.calls.add(task)
        task.add_done_callback(self.calls.discard)

    async def _call(self, line: bytes) -> None:
        answer = await self.ctx.dispatch(line, self.conn)
        if answer is not None:
            await self._send_raw(answer.rstrip(b"\n"))

    async def _error(self, rid: str, code: str, message: str) -> None:
        await self._send(protocol.failure(rid, code, message))

    async def _watch(self, rid: str, params: Any) -> None:
        pane = params.get("pane_id") if isinstance(params, dict) else None
        if pane is not None and not isinstance(pane, str):
            await self._error(rid, protocol.INVALID_PARAMS, "params.pane_id: expected a string")
            return
        resolved = None if pane is None else self.ctx.server.panes.resolve_pane(pane)
        if pane is not None and resolved is None:
            await self._error(rid, protocol.PANE_NOT_FOUND, f"pane {pane} not found")
            return
        self.filter.watched = resolved
        await self._send(protocol.success(rid, {"type": "watching", "pane_id": resolved}))
        if resolved is not None:
            self.screen_due = True
            self.wake.set()

    # -- pushes to the page ----------------------------------------------------------

    async def _pump(self, sub: Any) -> None:
        """Forward bus lines as they come; a watched screen at most every interval."""
        bus = self.ctx.server.bus
        loop = asyncio.get_running_loop()
        last_screen = -SCREEN_INTERVAL_S
        while not self.ws.closed:
            await self.wake.wait()
            self.wake.clear()
            for line in bus.drain(sub):
                if b'"event":"pane_output_changed"' in line:
                    self.screen_due = True
                else:
                    await self._send_raw(line.rstrip(b"\n"))
            if self.screen_due:
                wait = last_screen + SCREEN_INTERVAL_S - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self.screen_due = False
                last_screen = loop.time()
                await self._send_screen()

    async def _send_screen(self) -> None:
        pane_id = self.filter.watched
        if pane_id is None:
            return
        host = self.ctx.server.panes
        try:
            term = host.terminal(host.session.pane(pane_id))
        except HerdrError:  # closed since it was chosen
            term = None
        if term is None or term.emulator.closed:
            await self._send({"type": "screen", "pane_id": pane_id, "screen": None})
            return
        em = term.emulator
        shot = frame(em.ansi_rows(), cols=em.cols, cursor=em.cursor if em.cursor_visible else None)
        await self._send({"type": "screen", "pane_id": pane_id, "screen": shot})
