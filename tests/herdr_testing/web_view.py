"""Helpers for web-view tests: a real server with fake agents and a started web view,
plain HTTP (urllib, redirects not followed) and a websocket page client (aiohttp)."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import aiohttp

from herdr.web.auth import cookie_name
from herdr_testing.fake_env import launch, ok
from herdr_testing.servers import ServerHandle
from herdr_testing.waits import wait_until


@dataclass
class WebView:
    """A started web view on ``server``: its URL (with the token) and base address."""

    server: ServerHandle
    url: str
    record: dict[str, Any]

    @property
    def base(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def token(self) -> str:
        return self.url.split("token=", 1)[1]

    @property
    def cookie(self) -> str:
        return cookie_name(self.token)

    @property
    def host(self) -> str:
        return urlsplit(self.url).netloc


def start_web(server: ServerHandle, **params: Any) -> WebView:
    result = ok(server.request("web.start", {"port": 0, **params}))
    return WebView(server, str(result["url"]), result)


def agent_pane(server: ServerHandle, kind: str = "claude") -> str:
    """The first pane of the session, running the fake ``kind`` (idle)."""
    panes = ok(server.request("pane.list", {}))["panes"]
    if not panes:
        ok(server.request("workspace.create", {"focus": True}))
        panes = ok(server.request("pane.list", {}))["panes"]
    pane_id = str(panes[0]["pane_id"])
    launch(server, pane_id, kind)
    return pane_id


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: str


def http_get(url: str, headers: dict[str, str] | None = None) -> Reply:
    """One GET; an error status is a reply like any other (no redirects followed)."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with _OPENER.open(req, timeout=10) as resp:
            return Reply(resp.status, dict(resp.headers), resp.read().decode("utf-8", "replace"))
    except urllib.error.HTTPError as err:
        return Reply(err.code, dict(err.headers), err.read().decode("utf-8", "replace"))


def cookie_header(view: WebView) -> dict[str, str]:
    return {"Cookie": f"{view.cookie}={view.token}"}


class Page:
    """A websocket client speaking as the page does: calls and what the server pushes."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.pushed: list[dict[str, Any]] = []
        self.next_id = 0

    async def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        msg = await self.ws.receive(timeout=timeout)
        if msg.type != aiohttp.WSMsgType.TEXT:
            raise ConnectionError(f"websocket ended: {msg.type} {msg.data!r}")
        doc: dict[str, Any] = json.loads(msg.data)
        return doc

    async def call(self, method: str, params: Any, timeout: float = 15.0) -> dict[str, Any]:
        self.next_id += 1
        rid = f"p{self.next_id}"
        await self.ws.send_str(json.dumps({"id": rid, "method": method, "params": params}))
        return await self.answer(rid, timeout)

    async def answer(self, rid: str, timeout: float = 15.0) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            doc = await self.receive(max(0.1, end - loop.time()))
            if doc.get("id") == rid:
                return doc
            self.pushed.append(doc)

    async def until(
        self, wanted: Callable[[dict[str, Any]], bool], timeout: float = 15.0
    ) -> dict[str, Any]:
        """The first pushed message (already seen or coming) that ``wanted`` accepts."""
        for doc in self.pushed:
            if wanted(doc):
                return doc
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            doc = await self.receive(max(0.1, end - loop.time()))
            self.pushed.append(doc)
            if wanted(doc):
                return doc


async def open_page(
    view: WebView, *, origin: str | None = "", cookie: str | None = ""
) -> tuple[aiohttp.ClientSession, Page]:
    """Open ``/ws`` as the page would (own Origin, the cookie); ``None`` leaves one out."""
    headers: dict[str, str] = {}
    if origin is not None:
        headers["Origin"] = origin or view.base
    if cookie is not None:
        headers["Cookie"] = f"{view.cookie}={cookie or view.token}"
    session = aiohttp.ClientSession()
    try:
        ws = await session.ws_connect(f"{view.base}/ws", headers=headers)
    except BaseException:
        await session.close()
        raise
    return session, Page(ws)


def state_seq(server: ServerHandle, pane: str) -> int:
    """The agent's ``state_change_seq`` (it grows with every state change)."""
    agent = ok(server.request("agent.get", {"target": pane}))["agent"]
    return int(agent["state_change_seq"])


def wait_turn_over(server: ServerHandle, pane: str, since: int) -> None:
    """Until the agent changed state after ``since`` and is idle/done again: a prompt's
    turn has started and ended (waiting for idle alone can pass before it starts)."""

    def over() -> bool:
        agent = ok(server.request("agent.get", {"target": pane}))["agent"]
        return int(agent["state_change_seq"]) > since and agent["agent_status"] in (
            "idle",
            "done",
        )

    wait_until(over, timeout=30, interval=0.05, message=f"{pane}: the turn never ended")
