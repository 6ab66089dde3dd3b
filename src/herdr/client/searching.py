"""The app's side of copy-mode search: the prompt, the requests, the cursor jumps.

``/`` or ``?`` open a search prompt over copy mode; every edit asks the server
(``pane.copy_search`` from where the cursor was when the prompt opened), so matches
light up while typing. Enter keeps the cursor on the match, esc puts it back; ``n``
and ``N`` repeat from the match the cursor is on. Answers to older keystrokes are
dropped (a sequence number), and a pane that changed between reading its revision
and searching is retried once.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from herdr.client import copymode as cm
from herdr.client import copysearch as cs
from herdr.client.prompt import Prompt

if TYPE_CHECKING:
    from herdr.client.app import App


def start(app: App, direction: cs.SearchDirection) -> None:
    copy = app.copy
    if copy is None:
        return
    app.search = cs.Search("", direction)
    app.search_origin = (copy.line, copy.col)
    for action in app.machine.open_prompt(Prompt("search", copy.pane_id), back="copy"):
        app.do(action)


def typed(app: App, prompt: Prompt) -> None:
    """The search prompt's text changed: search again from the origin."""
    search, copy, origin = app.search, app.copy, app.search_origin
    if search is None or copy is None or origin is None:
        return
    app.search_seq += 1
    if not prompt.text:
        app.search = cs.Search("", search.direction)
        _jump(app, origin)
        return
    launch(app, prompt.text, search.direction, search.direction, origin, None)


def submit(app: App, prompt: Prompt) -> None:
    if not prompt.text:
        app.search = None
    app.search_origin = None
    app.schedule_draw()


def cancel(app: App) -> None:
    origin = app.search_origin
    app.search_seq += 1
    app.search = None
    app.search_origin = None
    if origin is not None:
        _jump(app, origin)
    app.schedule_draw()


def repeat(app: App, reverse: bool) -> None:
    """``n``/``N``: the next match after (before) the one the cursor is on. Each waits
    for the search before it, so ``n n n`` typed quickly steps three matches."""
    if app.search is None or not app.search.query:
        app.notice("no previous search (/ or ? to search)")
        return
    app.search_task = app.spawn(_repeat(app, reverse, app.search_task))


async def _repeat(app: App, reverse: bool, before: Any) -> None:
    if before is not None and not before.done():
        with contextlib.suppress(Exception):
            await before
    search, copy = app.search, app.copy
    if copy is None or search is None or not search.query:
        return
    direction = cs.opposite(search.direction) if reverse else search.direction
    cursor = (copy.line, copy.col)
    current = search.current_match
    previous = current if current is not None and current[0] == cursor else None
    app.search_seq += 1
    ask = _Ask(copy.pane_id, search.query, direction, search.direction, cursor, previous)
    await _run(app, app.search_seq, ask)


class _Ask(Struct, frozen=True):
    """One search request: ``direction`` is where this one goes, ``kept`` what ``n``
    repeats afterwards (``N`` searches backward but a later ``n`` still goes forward)."""

    pane_id: str
    query: str
    direction: cs.SearchDirection
    kept: cs.SearchDirection
    cursor: cs.Point
    previous: cs.Match | None


def launch(  # noqa: PLR0917 -- the six parts of one search, named at each call
    app: App,
    query: str,
    direction: cs.SearchDirection,
    kept: cs.SearchDirection,
    cursor: cs.Point,
    previous: cs.Match | None,
) -> None:
    copy = app.copy
    if copy is None:
        return
    ask = _Ask(copy.pane_id, query, direction, kept, cursor, previous)
    app.search_task = app.spawn(_run(app, app.search_seq, ask))


async def _run(app: App, seq: int, ask: _Ask) -> None:
    pane_id, query, kept = ask.pane_id, ask.query, ask.kept
    envelope: dict[str, Any] = {}
    for attempt in range(2):
        revision = await _revision(app, pane_id)
        if revision is None:
            return
        params = cs.request(
            pane_id, query, ask.direction, ask.cursor, revision=revision, previous=ask.previous
        )
        try:
            envelope = await app.conn.call("pane.copy_search", params)
        except (OSError, ValueError) as exc:
            app.notice(f"search: {exc}")
            return
        error = envelope.get("error")
        if not isinstance(error, dict):
            break
        if error.get("code") == "stale_content" and attempt == 0:
            continue  # output arrived in between: read the new revision once more
        if seq == app.search_seq:
            app.notice(f"search: {error.get('message')}")
        return
    copy = app.copy
    if seq != app.search_seq or copy is None or copy.pane_id != pane_id:
        return  # a newer keystroke's search, or copy mode ended
    result = envelope.get("result")
    app.search = cs.from_result(query, kept, result if isinstance(result, dict) else {})
    match = app.search.current_match
    if match is not None:
        _jump(app, match[0])
    app.schedule_draw()


async def _revision(app: App, pane_id: str) -> int | None:
    try:
        envelope = await app.conn.call("pane.get", {"pane_id": pane_id})
    except (OSError, ValueError) as exc:
        app.notice(f"search: {exc}")
        return None
    result = envelope.get("result")
    pane = result.get("pane") if isinstance(result, dict) else None
    revision = pane.get("revision") if isinstance(pane, dict) else None
    if not isinstance(revision, int):
        error = envelope.get("error")
        detail = error.get("message") if isinstance(error, dict) else "no revision"
        app.notice(f"search: {detail}")
        return None
    return revision


def _jump(app: App, point: cs.Point) -> None:
    copy = app.copy
    if copy is None:
        return
    app.copy, effects = cm.jump(copy, point[0], point[1])
    app.copy_effects(copy, effects)
