"""The web view over plain HTTP and its websocket, against a real server with fake agents.

Auth: no valid token or cookie, no data (not even the page); the websocket also needs our
own Origin. Policy: read-only refuses every mutation, typing is off unless allowed, the
rest of the socket API is not offered; each refusal is one answer with its code and
changes nothing. The page's calls reach the real dispatcher (a prompt reaches the agent).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import aiohttp
import pytest

from herdr_testing import ServerHandle, herdr_tree, wait_until
from herdr_testing.fake_env import agent_server, ok, screen, wait_status
from herdr_testing.web_view import (
    Page,
    WebView,
    agent_pane,
    cookie_header,
    http_get,
    open_page,
    start_web,
    state_seq,
    wait_turn_over,
)

pytestmark = pytest.mark.slow
T = TypeVar("T")


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[ServerHandle, str]]:
    with herdr_tree() as herdr:
        server = agent_server(herdr)
        pane = agent_pane(server)
        yield server, pane


@pytest.fixture(scope="module")
def view(served: tuple[ServerHandle, str]) -> Iterator[WebView]:
    server, _ = served
    started = start_web(server)
    yield started
    ok(server.request("web.stop", {}))


def _secret_free(body: str, view: WebView) -> None:
    """Nothing of the session leaks: no ids, no labels, no page."""
    for word in ("w1", "claude", "<script", "workspace"):
        assert word not in body, body


# --- HTTP auth ------------------------------------------------------------------------

HTTP_REFUSED = [
    ("index-no-token", "/", {}),
    ("index-wrong-token", "/?token=wrong", {}),
    ("index-empty-token", "/?token=", {}),
    ("index-wrong-cookie", "/", {"Cookie": "COOKIE=nope"}),
    ("index-token-in-another-cookie", "/", {"Cookie": "herdr_web=TOKEN"}),
    ("static-no-cookie", "/static/app.js", {}),
    ("ws-plain-get-no-cookie", "/ws", {}),
    ("token-on-other-path", "/static/app.js?token=TOKEN", {}),
    ("unknown-path", "/api/session", {}),
]


@pytest.mark.parametrize(
    ("path", "headers"), [c[1:] for c in HTTP_REFUSED], ids=[c[0] for c in HTTP_REFUSED]
)
def test_without_a_valid_token_or_cookie_nothing(
    view: WebView, path: str, headers: dict[str, str]
) -> None:
    headers = {
        k: v.replace("COOKIE", view.cookie).replace("TOKEN", view.token) for k, v in headers.items()
    }
    reply = http_get(view.base + path.replace("TOKEN", view.token), headers)
    assert reply.status == 401
    assert "Set-Cookie" not in reply.headers
    _secret_free(reply.body, view)


def test_the_token_is_exchanged_for_a_strict_httponly_cookie(view: WebView) -> None:
    reply = http_get(view.url)
    assert reply.status == 200
    assert '<meta http-equiv="refresh" content="0;url=/">' in reply.body  # off the token URL
    _secret_free(reply.body, view)
    cookie = reply.headers["Set-Cookie"]
    assert cookie.startswith(f"{view.cookie}={view.token};")
    assert "HttpOnly" in cookie
    assert "SameSite=Strict" in cookie
    assert reply.headers["Referrer-Policy"] == "no-referrer"


def test_with_the_cookie_the_page_and_its_assets(view: WebView) -> None:
    page = http_get(view.base + "/", cookie_header(view))
    assert page.status == 200 and "<script" in page.body
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assert http_get(view.base + "/static/app.js", cookie_header(view)).status == 200
    assert http_get(view.base + "/static/nope.js", cookie_header(view)).status == 404


# --- websocket auth -------------------------------------------------------------------

WS_REFUSED = [
    ("no-cookie", {"cookie": None}, 401),
    ("wrong-cookie", {"cookie": "x" * 43}, 401),
    ("no-origin", {"origin": None}, 403),
    ("foreign-origin", {"origin": "http://evil.example"}, 403),
    ("lookalike-origin", {"origin": "http://127.0.0.1.evil.example"}, 403),
]


@pytest.mark.parametrize(
    ("kwargs", "status"), [c[1:] for c in WS_REFUSED], ids=[c[0] for c in WS_REFUSED]
)
def test_websocket_refused(view: WebView, kwargs: dict[str, Any], status: int) -> None:
    async def attempt() -> None:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            session, _ = await open_page(view, **kwargs)
            await session.close()
        assert refused.value.status == status

    asyncio.run(attempt())
    assert view.server.server.alive()


# --- the page's calls -----------------------------------------------------------------


def _run(view: WebView, body: Callable[[Page, dict[str, Any]], Awaitable[T]]) -> T:
    async def go() -> T:
        session, page = await open_page(view)
        try:
            hello = await page.receive()
            assert hello["type"] == "hello"
            return await body(page, hello)
        finally:
            await session.close()

    return asyncio.run(go())


def test_hello_then_the_snapshot_through_the_real_dispatcher(
    view: WebView, served: tuple[ServerHandle, str]
) -> None:
    _, pane = served

    async def body(page: Page, hello: dict[str, Any]) -> dict[str, Any]:
        assert hello["read_only"] is False and hello["allow_typing"] is False
        return await page.call("session.snapshot", {})

    answer = _run(view, body)
    agents = answer["result"]["snapshot"]["agents"]
    assert [a["pane_id"] for a in agents] == [pane]


REFUSED_CALLS = [
    ("typing-off-send-text", "pane.send_text", {"text": "echo typed"}, "typing_disabled"),
    ("typing-off-send-keys", "pane.send_keys", {"keys": ["Enter"]}, "typing_disabled"),
    ("typing-off-send-input", "pane.send_input", {"text": "x"}, "typing_disabled"),
    ("not-offered-stop", "server.stop", {}, "web_method_not_allowed"),
    ("not-offered-close", "pane.close", {}, "web_method_not_allowed"),
    ("not-offered-subscribe", "events.subscribe", {"subscriptions": []}, "web_method_not_allowed"),
    ("not-offered-web-start", "web.start", {}, "web_method_not_allowed"),
    ("unknown", "no.such", {}, "web_method_not_allowed"),
    ("missing-field-the-apis-own-code", "agent.prompt", {"target": "x"}, "invalid_request"),
    ("missing-agent", "agent.prompt", {"target": "w9:p9", "text": "hi"}, "agent_not_found"),
]


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [c[1:] for c in REFUSED_CALLS],
    ids=[c[0] for c in REFUSED_CALLS],
)
def test_refused_calls_answer_once_and_change_nothing(
    view: WebView, served: tuple[ServerHandle, str], method: str, params: Any, code: str
) -> None:
    server, pane = served
    before = screen(server, pane)
    params = {"pane_id": pane, **params} if method.startswith("pane.") else params

    async def body(page: Page, hello: dict[str, Any]) -> dict[str, Any]:
        answer = await page.call(method, params)
        pong = await page.call("ping", {})  # the next call is answered: one answer each
        assert "result" in pong
        return answer

    answer = _run(view, body)
    assert answer["error"]["code"] == code, answer
    assert screen(server, pane) == before
    assert server.server.alive()


MALFORMED = [
    ("not-json", "{nope", "invalid_request"),
    ("not-object", "[1,2]", "invalid_request"),
    ("no-id", json.dumps({"method": "ping", "params": {}}), "invalid_request"),
    ("method-not-string", json.dumps({"id": "a", "method": 5}), "invalid_request"),
    (
        "watch-bad-pane",
        json.dumps({"id": "a", "method": "web.watch", "params": {"pane_id": 3}}),
        "invalid_params",
    ),
    (
        "watch-missing-pane",
        json.dumps({"id": "a", "method": "web.watch", "params": {"pane_id": "w9:p9"}}),
        "pane_not_found",
    ),
]


@pytest.mark.parametrize(
    ("text", "code"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_malformed_messages_get_one_error(view: WebView, text: str, code: str) -> None:
    async def body(page: Page, hello: dict[str, Any]) -> dict[str, Any]:
        await page.ws.send_str(text)
        answer = await page.receive()
        assert "result" in await page.call("ping", {})
        return answer

    answer = _run(view, body)
    assert answer["error"]["code"] == code, answer


CLOSING = [
    ("oversized", "text"),
    ("binary-frame", "binary"),
]


@pytest.mark.parametrize("kind", [c[1] for c in CLOSING], ids=[c[0] for c in CLOSING])
def test_a_bad_frame_closes_only_that_page(view: WebView, kind: str) -> None:
    async def body(page: Page, hello: dict[str, Any]) -> aiohttp.WSMessage:
        if kind == "text":
            await page.ws.send_str(json.dumps({"id": "big", "method": "ping", "x": "a" * 300_000}))
        else:
            await page.ws.send_bytes(b'{"id":"b","method":"ping","params":{}}')
        return await page.ws.receive(timeout=10)

    msg = _run(view, body)
    assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert view.server.server.alive()
    assert http_get(view.base + "/", cookie_header(view)).status == 200


def test_a_prompt_from_the_page_reaches_the_agent(
    view: WebView, served: tuple[ServerHandle, str]
) -> None:
    server, pane = served
    since = state_seq(server, pane)

    async def body(page: Page, hello: dict[str, Any]) -> dict[str, Any]:
        return await page.call("agent.prompt", {"target": pane, "text": "hello from the web"})

    answer = _run(view, body)
    assert answer["result"]["type"] == "agent_prompted", answer
    wait_until(lambda: "hello from the web" in screen(server, pane), message=screen(server, pane))
    wait_turn_over(server, pane, since)


def test_a_held_call_does_not_block_the_page(
    view: WebView, served: tuple[ServerHandle, str]
) -> None:
    """While a prompt waits for its turn to end, a ping on the same page is answered."""
    server, pane = served

    async def body(page: Page, hello: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        params = {"target": pane, "text": "slow please", "wait": {"timeout_ms": 20000}}
        await page.ws.send_str(
            json.dumps({"id": "held", "method": "agent.prompt", "params": params})
        )
        pong = await page.call("ping", {})
        assert not any(d.get("id") == "held" for d in page.pushed)  # still held
        prompted = await page.answer("held", timeout=30)
        return pong, prompted

    pong, prompted = _run(view, body)
    assert "result" in pong
    assert prompted["result"]["type"] == "agent_prompted", prompted
    assert prompted["result"]["delivery"] == ["typed", "submitted", "turn_started"]
    wait_status(server, pane, "idle", "done")


def _screen_text(shot: dict[str, Any]) -> str:
    return "\n".join("".join(t for t, _ in line) for line in shot["lines"])


def _red_runs(shot: dict[str, Any]) -> list[str]:
    styles = shot["styles"]
    return [t for line in shot["lines"] for t, sid in line if styles[sid].get("fg") == 1]


def test_screens_are_pushed_with_colours(served: tuple[ServerHandle, str]) -> None:
    """Watching a pane pushes its screen as styled runs, again whenever it changes."""
    server, agent = served
    split = {"target_pane_id": agent, "direction": "down", "focus": False}
    shell = ok(server.request("pane.split", split))["pane"]["pane_id"]
    view = start_web(server)

    async def body(page: Page, hello: dict[str, Any]) -> dict[str, Any]:
        watching = await page.call("web.watch", {"pane_id": shell})
        assert watching["result"] == {"type": "watching", "pane_id": shell}
        await page.until(lambda d: d.get("type") == "screen")
        typed = {
            "pane_id": shell,
            "text": "printf '\\033[31mRED%s\\033[0m\\n' X",
            "keys": ["Enter"],
        }
        ok(server.request("pane.send_input", typed))
        return await page.until(
            lambda d: d.get("type") == "screen" and "REDX" in "".join(_red_runs(d["screen"]))
        )

    try:
        pushed = _run(view, body)
    finally:
        ok(server.request("pane.close", {"pane_id": shell}))
    shot = pushed["screen"]
    assert pushed["pane_id"] == shell
    assert shot["cols"] > 0 and shot["rows"] == len(shot["lines"])
    assert "REDX" in _screen_text(shot)
    assert "\x1b" not in json.dumps(shot)  # no escape reaches the page


def test_a_state_change_is_pushed(view: WebView, served: tuple[ServerHandle, str]) -> None:
    server, pane = served

    async def body(page: Page, hello: dict[str, Any]) -> dict[str, Any]:
        ok(server.request("agent.prompt", {"target": pane, "text": "work on it"}))
        return await page.until(
            lambda d: (
                d.get("event") == "pane_agent_status_changed"
                and d["data"]["pane_id"] == pane
                and d["data"]["agent_status"] == "working"
            )
        )

    changed = _run(view, body)
    assert changed["data"]["agent"] == "claude"
    wait_status(server, pane, "idle", "done")


# --- modes ----------------------------------------------------------------------------

MUTATIONS: list[tuple[str, str, dict[str, Any]]] = [
    ("prompt", "agent.prompt", {"text": "should not arrive"}),
    ("approve", "agent.approve", {"option_id": "1", "fingerprint": "x"}),
    ("send-text", "pane.send_text", {"text": "should not arrive"}),
    ("send-keys", "pane.send_keys", {"keys": ["Enter"]}),
]


def test_read_only_refuses_every_mutation(served: tuple[ServerHandle, str]) -> None:
    server, pane = served
    ok(server.request("web.stop", {}))
    view = start_web(server, read_only=True, allow_typing=True)
    try:
        assert view.record["read_only"] is True and view.record["allow_typing"] is False
        before = screen(server, pane)

        async def body(page: Page, hello: dict[str, Any]) -> list[dict[str, Any]]:
            assert hello["read_only"] is True and hello["allow_typing"] is False
            answers = []
            for _, method, params in MUTATIONS:
                target = {"pane_id": pane} if method.startswith("pane.") else {"target": pane}
                answers.append(await page.call(method, {**target, **params}))
            answers.append(await page.call("agent.list", {}))
            return answers

        *refused, listing = _run(view, body)
        assert [a["error"]["code"] for a in refused] == ["read_only"] * len(MUTATIONS)
        assert "result" in listing  # reads still work
        assert screen(server, pane) == before
    finally:
        ok(server.request("web.stop", {}))


def test_allow_typing_types_into_the_pane(served: tuple[ServerHandle, str]) -> None:
    with herdr_tree() as herdr:
        server = agent_server(herdr)
        ok(server.request("workspace.create", {"focus": True}))
        pane = ok(server.request("pane.list", {}))["panes"][0]["pane_id"]
        view = start_web(server, allow_typing=True)

        async def body(page: Page, hello: dict[str, Any]) -> list[dict[str, Any]]:
            assert hello["allow_typing"] is True
            typed = await page.call(
                "pane.send_text", {"pane_id": pane, "text": "echo web-$((6*7))"}
            )
            entered = await page.call("pane.send_keys", {"pane_id": pane, "keys": ["Enter"]})
            return [typed, entered]

        answers = _run(view, body)
        assert all("result" in a for a in answers), answers
        wait_until(lambda: "web-42" in screen(server, pane), message=screen(server, pane))


# --- starting it ----------------------------------------------------------------------

START_REFUSED = [
    ("exposed-without-flag", {"bind": "0.0.0.0"}, "web_exposed_refused"),
    ("a-name-is-not-resolved", {"bind": "example.com", "exposed": True}, "invalid_params"),
    ("bad-port-type", {"port": "80"}, "invalid_request"),
    ("port-out-of-range", {"port": 70000}, "invalid_request"),
    ("space-in-bind", {"bind": "127.0.0.1 x"}, "invalid_params"),
]


@pytest.mark.parametrize("params", [c[1] for c in START_REFUSED], ids=[c[0] for c in START_REFUSED])
def test_web_start_refusals(herdr_server: ServerHandle, params: dict[str, Any]) -> None:
    code = next(c[2] for c in START_REFUSED if c[1] == params)
    reply = herdr_server.request("web.start", params)
    assert reply["error"]["code"] == code, reply
    assert herdr_server.request("web.stop", {})["result"]["stopped"] is False


def test_port_in_use_is_web_bind_failed(herdr_server: ServerHandle) -> None:
    first = start_web(herdr_server)
    ok(herdr_server.request("web.stop", {}))
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        reply = herdr_server.request("web.start", {"port": port})
    assert reply["error"]["code"] == "web_bind_failed", reply
    assert first.record["port"] != 0


def test_cli_prints_the_url_once_and_stops(herdr_server: ServerHandle) -> None:
    started = herdr_server.cli("web", "--port", "0", "--read-only")
    assert started.returncode == 0, started.stderr
    line = started.stdout.strip()
    assert line.startswith("herdr web (read_only): open http://127.0.0.1:"), line
    url = line.split("open ", 1)[1]
    assert http_get(url).status == 200
    again = herdr_server.cli("web", "--port", "0")
    assert "already running" in again.stderr
    stopped = herdr_server.cli("web", "--stop")
    assert stopped.stdout.strip() == "web view stopped"
    assert herdr_server.cli("web", "--stop").stdout.strip() == "no web view was running"


def test_cli_exposed_bind_warns(herdr_server: ServerHandle) -> None:
    refused = herdr_server.cli("web", "--port", "0", "--bind", "0.0.0.0")
    assert refused.returncode == 1 and "web_exposed_refused" in refused.stderr
    started = herdr_server.cli(
        "web", "--port", "0", "--bind", "0.0.0.0", "--i-know-this-is-exposed"
    )
    assert started.returncode == 0, started.stderr
    assert "WARNING" in started.stderr and "not loopback" in started.stderr
    assert "web view exposed" in herdr_server.server.log_text()
    herdr_server.cli("web", "--stop")


def test_config_starts_it_with_the_server() -> None:
    with herdr_tree() as herdr:
        config = herdr.root / "config.toml"
        config.write_text("[web]\nenabled = true\nport = 0\nread_only = true\n")
        herdr.env["HERDR_CONFIG_PATH"] = str(config)
        server = ServerHandle(herdr, herdr.start_server())
        wait_until(lambda: list(herdr.root.rglob("web-url")), message=server.server.log_text())
        found = list(herdr.root.rglob("web-url"))
        assert len(found) == 1, found
        assert stat.S_IMODE(os.stat(found[0]).st_mode) == 0o600
        url = found[0].read_text().strip()
        assert http_get(url).status == 200
        assert url not in server.server.log_text()  # the token is not logged
        status = server.request("web.start", {})["result"]
        assert status["already_running"] is True and status["read_only"] is True
        ok(server.request("web.stop", {}))
        assert not found[0].exists()  # a stopped view's token is not left behind


def test_concurrent_starts_make_one_view_and_the_server_keeps_answering(
    herdr_server: ServerHandle,
) -> None:
    """aiohttp is imported off the loop on the first start: a ping sent meanwhile is
    answered before the start is; two starts at once make one view."""
    import threading

    answers: dict[str, dict[str, Any]] = {}

    def start(name: str) -> None:
        answers[name] = herdr_server.request("web.start", {"port": 0}, rid=name)

    threads = [threading.Thread(target=start, args=(n,)) for n in ("a", "b")]
    threads[0].start()
    pong = herdr_server.request("ping", {})
    pinged_while_starting = threads[0].is_alive()
    threads[1].start()
    for thread in threads:
        thread.join(30)
    assert "result" in pong
    assert pinged_while_starting
    a, b = ok(answers["a"]), ok(answers["b"])
    assert a["url"] == b["url"]
    assert sorted([a["already_running"], b["already_running"]]) == [False, True]
