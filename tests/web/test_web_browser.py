"""The web view in a real headless Chromium (the system's /usr/bin/chromium, driven by
Playwright) against a real server with fake agents.

Screenshots at phone (390x844) and desktop (1280x800) sizes go to ``$HERDR_WEB_SHOTS``
when it names a directory (never to a fixed shared path: another user could plant it).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import ServerHandle, herdr_tree, wait_until
from herdr_testing.fake_env import agent_server, launch, ok, screen, wait_status
from herdr_testing.web_view import WebView, agent_pane, start_web, state_seq, wait_turn_over

pytestmark = pytest.mark.slow

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(os.environ["HERDR_WEB_SHOTS"]) if os.environ.get("HERDR_WEB_SHOTS") else None
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
TIMEOUT_MS = 20_000

# Records every Notification the page creates (and still creates the real one).
RECORD_NOTIFICATIONS = """
window.__notes = [];
(() => {
  const Real = window.Notification;
  if (!Real) return;
  class Recorded extends Real {
    constructor(title, options) {
      window.__notes.push({ title, body: options && options.body });
      super(title, options);
    }
  }
  window.Notification = Recorded;
})();
"""

if not os.access(CHROMIUM, os.X_OK):
    pytest.skip(f"needs {CHROMIUM} (Debian package chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        yield p


@pytest.fixture
def browser(playwright: Any) -> Iterator[Any]:
    """A fresh profile (user-data-dir) per test: no cookie survives from another test."""
    profile = tempfile.mkdtemp(prefix="herdr-chromium-")
    context = playwright.chromium.launch_persistent_context(
        profile, executable_path=CHROMIUM, headless=True, args=ARGS, viewport=DESKTOP
    )
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        context.close()
        shutil.rmtree(profile, ignore_errors=True)


LOG = Path(tempfile.gettempdir()) / f"herdr-web-input-{os.getpid()}.log"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[ServerHandle, str]]:
    """One fake claude whose every input chunk is logged (to tell what a tap typed)."""
    LOG.unlink(missing_ok=True)
    with herdr_tree() as herdr:
        server = agent_server(herdr, FAKE_AGENT_INPUT_LOG=str(LOG))
        yield server, agent_pane(server)
    LOG.unlink(missing_ok=True)


@pytest.fixture
def view(served: tuple[ServerHandle, str]) -> Iterator[WebView]:
    server, pane = served
    started = start_web(server)
    yield started
    ok(server.request("web.stop", {}))
    wait_status(server, pane, "idle", "done", "blocked")


def _shot(page: Any, name: str) -> Path | None:
    if SHOTS is None:
        return None
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path


def _row(pane: str, status: str | None = None) -> str:
    sel = f'#agents .row[data-pane-id="{pane}"]'
    return sel + (f'[data-status="{status}"]' if status else "")


def test_without_the_token_the_browser_gets_nothing(browser: Any, view: WebView) -> None:
    page = browser.new_page()
    for url in (view.base + "/", view.base + "/?token=wrong", view.base + "/static/app.js"):
        response = page.goto(url)
        assert response is not None and response.status == 401, url
        body = page.content()
        assert "w1" not in body and "claude" not in body and "agents" not in body.lower()
    # Even from our own origin, a websocket without the cookie does not open.
    outcome = page.evaluate(
        """() => new Promise((done) => {
            const ws = new WebSocket(`ws://${location.host}/ws`);
            ws.onopen = () => done("open");
            ws.onerror = () => done("refused");
        })"""
    )
    assert outcome == "refused"
    assert browser.cookies() == []


def test_states_change_live_with_toast_and_notification(
    browser: Any, view: WebView, served: tuple[ServerHandle, str]
) -> None:
    server, pane = served
    browser.grant_permissions(["notifications"], origin=view.base)
    page = browser.new_page()
    page.add_init_script(RECORD_NOTIFICATIONS)
    page.goto(view.url)
    page.wait_for_url(view.base + "/")  # the token left the address bar
    assert [(c["name"], c["httpOnly"], c["sameSite"]) for c in browser.cookies()] == [
        (view.cookie, True, "Strict")
    ]
    page.wait_for_selector(_row(pane))
    page.wait_for_selector("#conn.on")
    assert page.locator(_row(pane)).get_attribute("data-status") in ("idle", "done")

    ok(server.request("agent.prompt", {"target": pane, "text": "please ask first"}))
    page.wait_for_selector(_row(pane, "working"))
    page.wait_for_selector(_row(pane, "blocked"))
    toast = page.wait_for_selector(".toast[data-kind='blocked']")
    assert "needs you" in toast.inner_text()
    notes = page.evaluate("window.__notes")
    assert any("needs you" in (n["body"] or "") for n in notes), notes
    _shot(page, "desktop-blocked")
    page.set_viewport_size(PHONE)
    _shot(page, "phone-overview-blocked")

    ok(server.request("pane.send_keys", {"pane_id": pane, "keys": ["1"]}))  # answer it
    page.wait_for_selector(_row(pane, "working"))
    wait_status(server, pane, "idle", "done")
    page.wait_for_function(
        f"""() => {{
            const row = document.querySelector('{_row(pane)}');
            return row && ["idle", "done"].includes(row.dataset.status);
        }}"""
    )


def test_a_prompt_typed_in_the_page_reaches_the_pane(
    browser: Any, view: WebView, served: tuple[ServerHandle, str]
) -> None:
    server, pane = served
    since = state_seq(server, pane)
    page = browser.new_page()
    page.set_viewport_size(PHONE)
    page.goto(view.url)
    page.click(_row(pane))
    page.wait_for_selector("#detail:not([hidden])")
    assert page.locator("#overview").is_hidden()  # a phone shows the pane alone
    # Predicates are functions, not strings: the page's CSP forbids eval (a string would need it).
    page.wait_for_function("() => document.querySelector('#screen').textContent.trim().length > 0")
    assert page.locator("#type-form").is_hidden()  # typing is off by default
    page.fill("#prompt", "a haiku about herds")
    page.click("#prompt-form button[type=submit]")
    page.wait_for_selector(".toast:has-text('Prompt sent')")
    wait_until(lambda: "a haiku about herds" in screen(server, pane), message=screen(server, pane))
    page.wait_for_function(
        "() => document.querySelector('#screen').textContent.includes('a haiku about herds')"
    )
    _shot(page, "phone-pane")
    page.set_viewport_size(DESKTOP)
    assert page.locator("#overview").is_visible()
    _shot(page, "desktop-pane")
    wait_turn_over(server, pane, since)


def test_read_only_page_offers_no_mutation(browser: Any, served: tuple[ServerHandle, str]) -> None:
    server, pane = served
    view = start_web(server, read_only=True)
    try:
        page = browser.new_page()
        page.goto(view.url)
        page.wait_for_selector("#mode:has-text('read-only')")
        page.click(_row(pane))
        page.wait_for_selector("#detail:not([hidden])")
        assert page.locator("#prompt-form").is_hidden()
        assert page.locator("#type-form").is_hidden()
        # The server refuses even a call the page would not make.
        answer = page.evaluate(
            """(pane) => new Promise((done) => {
                const ws = new WebSocket(`ws://${location.host}/ws`);
                ws.onmessage = (m) => {
                    const doc = JSON.parse(m.data);
                    if (doc.type === "hello") {
                        ws.send(JSON.stringify({id: "x", method: "agent.prompt",
                                                params: {target: pane, text: "sneaky"}}));
                    } else if (doc.id === "x") { done(doc); ws.close(); }
                };
            })""",
            pane,
        )
        assert answer["error"]["code"] == "read_only"
        assert "sneaky" not in screen(server, pane)
    finally:
        ok(server.request("web.stop", {}))


def _approval(server: ServerHandle, pane: str) -> dict[str, Any] | None:
    record: dict[str, Any] | None = ok(server.request("agent.approval", {"target": pane}))[
        "approval"
    ]
    return record


def _typed(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


def _ask(server: ServerHandle, pane: str, command: str) -> dict[str, Any]:
    ok(server.request("agent.prompt", {"target": pane, "text": f"ask:{command}"}))
    wait_status(server, pane, "blocked")

    def drawn() -> dict[str, Any] | None:
        record = _approval(server, pane)
        return record if record is not None and command in record["detail"] else None

    record = wait_until(drawn, interval=0.05, message="no approval record")
    assert record is not None
    return record


def test_an_approval_tapped_in_the_page_unblocks_the_agent(
    browser: Any, view: WebView, served: tuple[ServerHandle, str]
) -> None:
    server, pane = served
    if "error" in server.request("agent.approval", {"target": pane}):
        pytest.skip("needs agent.approval")
    page = browser.new_page()
    page.set_viewport_size(PHONE)
    page.goto(view.url)
    page.click(_row(pane))
    record = _ask(server, pane, "rm -rf build")
    page.wait_for_selector("#approval:not([hidden]) #approval-options button")
    assert "rm -rf build" in page.inner_text("#approval-detail")
    labels = page.locator("#approval-options button").all_inner_texts()
    assert labels == [o["label"] for o in record["options"]]
    _shot(page, "phone-approval")
    page.set_viewport_size(DESKTOP)
    _shot(page, "desktop-approval")
    before, since = _typed(LOG), state_seq(server, pane)
    page.click(f'#approval-options button[data-option-id="{record["options"][0]["id"]}"]')
    page.wait_for_selector(".toast:has-text('Answered')")
    wait_turn_over(server, pane, since)  # unblocked: it worked, then went idle
    yes = record["options"][0]["keys"]  # claude's "1. Yes": the key 1, typed once
    wait_until(lambda: _typed(LOG) == [*before, *yes], message=f"{_typed(LOG)}")
    page.wait_for_selector("#approval", state="hidden")


def test_a_codex_approval_tapped_in_the_page(
    browser: Any, view: WebView, served: tuple[ServerHandle, str]
) -> None:
    """Codex's overlay is answered with arrows and Enter: the tap still unblocks it."""
    server, _ = served
    ws = ok(server.request("workspace.create", {"focus": False}))["workspace"]["workspace_id"]
    pane = ok(server.request("pane.list", {"workspace_id": ws}))["panes"][0]["pane_id"]
    try:
        launch(server, pane, "codex")
        if "error" in server.request("agent.approval", {"target": pane}):
            pytest.skip("needs agent.approval")
        page = browser.new_page()
        page.goto(view.url)
        page.click(_row(pane))
        record = _ask(server, pane, "make clean")
        assert record["agent"] == "codex"
        page.wait_for_selector("#approval:not([hidden]) #approval-detail:has-text('make clean')")
        since = state_seq(server, pane)
        page.click(f'#approval-options button[data-option-id="{record["options"][0]["id"]}"]')
        page.wait_for_selector(".toast:has-text('Answered')")
        wait_turn_over(server, pane, since)
        assert _approval(server, pane) is None
    finally:
        ok(server.request("workspace.close", {"workspace_id": ws}))


def test_a_stale_approval_tapped_in_the_page_is_refused(
    browser: Any, view: WebView, served: tuple[ServerHandle, str]
) -> None:
    """The page still shows dialog A (its events are held back, as on a stalled phone)
    while the agent moved on to dialog B: the tap is refused and types nothing."""
    server, pane = served
    if "error" in server.request("agent.approval", {"target": pane}):
        pytest.skip("needs agent.approval")
    held: list[Any] = []
    frozen = [False]

    def route(ws: Any) -> None:
        upstream = ws.connect_to_server()
        ws.on_message(upstream.send)

        def down(message: Any) -> None:
            is_push = isinstance(message, str) and '"id"' not in message[:12]
            if frozen[0] and is_push:
                held.append(message)
            else:
                ws.send(message)

        upstream.on_message(down)

    page = browser.new_page()
    page.route_web_socket("**/ws", route)
    page.goto(view.url)
    page.click(_row(pane))
    first = _ask(server, pane, "rm -rf a")
    page.wait_for_selector("#approval:not([hidden]) #approval-detail:has-text('rm -rf a')")
    frozen[0] = True
    ok(server.request("pane.send_keys", {"pane_id": pane, "keys": ["2"]}))  # cancel A
    wait_status(server, pane, "idle", "done")
    second = _ask(server, pane, "rm -rf b")
    assert second["fingerprint"] != first["fingerprint"]
    assert "rm -rf a" in page.inner_text("#approval-detail")  # the page has not heard
    before = _typed(LOG)
    page.click(f'#approval-options button[data-option-id="{first["options"][0]["id"]}"]')
    page.wait_for_selector(".toast:has-text('The dialog changed')")
    assert _typed(LOG) == before  # nothing typed
    assert _approval(server, pane) == second  # still waiting on B
    # The page re-reads the approval and shows B; tapping it now works.
    page.wait_for_selector("#approval:not([hidden]) #approval-detail:has-text('rm -rf b')")
    _shot(page, "desktop-stale-refused")
    frozen[0] = False
    no = second["options"][-1]
    page.click(f'#approval-options button[data-option-id="{no["id"]}"]')
    page.wait_for_selector(".toast:has-text('Answered')")
    wait_until(lambda: _typed(LOG) == [*before, *no["keys"]], message=f"{_typed(LOG)}")
    wait_status(server, pane, "idle", "done")


def test_a_restarted_view_does_not_accept_the_old_cookie(
    browser: Any, served: tuple[ServerHandle, str]
) -> None:
    server, pane = served
    old = start_web(server)
    page = browser.new_page()
    page.goto(old.url)
    page.wait_for_selector(_row(pane))
    ok(server.request("web.stop", {}))
    new = start_web(server, port=old.record["port"])
    try:
        response = page.goto(new.base + "/")
        assert response is not None and response.status == 401  # the old cookie is worthless
        page.goto(new.url)
        page.wait_for_selector(_row(pane))
        names = sorted(c["name"] for c in browser.cookies())
        assert names == sorted([old.cookie, new.cookie])
    finally:
        ok(server.request("web.stop", {}))


def test_the_url_opened_from_a_link_elsewhere_still_signs_in(
    browser: Any, view: WebView, served: tuple[ServerHandle, str]
) -> None:
    """A link from another page (a chat, a mail) is a cross-site navigation: the Strict
    cookie must still reach ``/`` (it would not along a redirect)."""
    _, pane = served
    page = browser.new_page()
    page.set_content(f'<a id="go" href="{view.url}">open herdr</a>')
    page.click("#go")
    page.wait_for_url(view.base + "/")
    page.wait_for_selector(_row(pane))
