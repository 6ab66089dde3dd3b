"""Pane input and output: send text/keys, read the four sources, wait for output.

``pane.wait_for_output`` checks the text that is already there first, then sleeps
until the pane produces output (no polling loop) and re-checks at most every
``RECHECK_S`` (longer after a costly search), so a chatty pane cannot turn a wait into a
busy loop. A client regex is
searched with time limits (:mod:`herdr.runtime.line_match`): one that runs out fails
its wait with ``regex_timeout`` and ends its ``pane.output_matched`` item, so no
client ever waits on another's pattern for long.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Mapping
from typing import Any

from herdr.api import protocol
from herdr.runtime import model as m
from herdr.runtime.events import OUTPUT_CHECK_KIND, Event, Filter, FilterEnded
from herdr.runtime.line_match import InvalidPattern, LineMatcher, MatchTimeout
from herdr.server.core import ApiError, Result
from herdr.server.keys import encode_keys, paste
from herdr.server.output_pacing import COST_FACTOR
from herdr.server.panes import PaneHost, Terminal
from herdr.server.wiring import Call
from herdr.terminal import views
from herdr.terminal.pty import PtyClosed, PtyWriteOverflow

DEFAULT_LINES = views.DEFAULT_RECENT_LINES
MAX_LINES = 10_000
RECHECK_S = 0.02


def _terminal(host: PaneHost, loc: m.PaneLoc) -> Terminal:
    term = host.terminal(loc)
    if term is None or term.emulator.closed:
        raise ApiError(protocol.PANE_NOT_FOUND, f"pane {loc.pane_id} has no running terminal")
    return term


def _write(term: Terminal, chunks: list[bytes], pane_id: str) -> None:
    try:
        for chunk in chunks:
            term.write(chunk)
    except PtyClosed:
        raise ApiError(protocol.PANE_NOT_FOUND, f"pane {pane_id}: its process has exited") from None
    except PtyWriteOverflow as exc:
        raise ApiError("pane_input_failed", str(exc)) from None


def _encode_keys(term: Terminal, keys: list[str]) -> list[bytes]:
    """Raises `keys.InvalidKey` (``invalid_key``) before anything is written."""
    return encode_keys(keys, app_cursor=term.emulator.input_modes().application_cursor)


def _bracketed(term: Terminal) -> bool:
    return term.emulator.input_modes().bracketed_paste


def pane_send_text(call: Call) -> Result:
    host = call.server.panes
    loc = host.session.pane(call.params["pane_id"])
    term = _terminal(host, loc)
    _write(term, [paste(call.params["text"], bracketed=_bracketed(term))], loc.pane_id)
    return {"type": "ok"}


def pane_send_keys(call: Call) -> Result:
    host = call.server.panes
    loc = host.session.pane(call.params["pane_id"])
    term = _terminal(host, loc)
    _write(term, _encode_keys(term, call.params["keys"]), loc.pane_id)
    return {"type": "ok"}


def pane_send_input(call: Call) -> Result:
    """Text (bracketed-paste aware) then keys; everything validated before writing."""
    host = call.server.panes
    loc = host.session.pane(call.params["pane_id"])
    term = _terminal(host, loc)
    keys = _encode_keys(term, call.params.get("keys", []))
    text = call.params.get("text")
    chunks = [paste(text, bracketed=_bracketed(term))] if text else []
    _write(term, chunks + keys, loc.pane_id)
    return {"type": "ok"}


# --- reads ------------------------------------------------------------------------------


def read_source(term: Terminal, source: str, lines: int | None, *, ansi: bool) -> tuple[str, bool]:
    """(text, truncated) of one read source."""
    truncated = lines is not None and lines > MAX_LINES
    if lines is not None:
        lines = min(lines, MAX_LINES)
    em = term.emulator
    if em.closed:
        return "", truncated
    if source == "visible":
        return views.visible(em, lines, ansi=ansi), truncated
    if source == "recent":
        return views.recent(em, lines or DEFAULT_LINES, ansi=ansi), truncated
    if source == "recent_unwrapped":
        return views.recent_unwrapped(em, lines or DEFAULT_LINES, ansi=ansi), truncated
    return views.detection_text(em), truncated


def read_record(
    loc: m.PaneLoc, term: Terminal, source: str, lines: int | None, *, ansi: bool
) -> dict[str, Any]:
    ansi = ansi and source != "detection"
    text, truncated = read_source(term, source, lines, ansi=ansi)
    return {
        "pane_id": loc.pane_id,
        "workspace_id": loc.workspace_id,
        "tab_id": loc.tab_id,
        "source": source,
        "format": "ansi" if ansi else "text",
        "text": text,
        "revision": term.revision,
        "truncated": truncated,
    }


def _wants_ansi(params: Mapping[str, Any]) -> bool:
    return params.get("format") == "ansi" or params.get("strip_ansi") is False


def pane_read(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    loc = host.session.pane(p["pane_id"])
    term = _terminal(host, loc)
    read = read_record(loc, term, p["source"], p.get("lines"), ansi=_wants_ansi(p))
    return {"type": "pane_read", "read": read}


# --- waiting for output -----------------------------------------------------------------


def compile_matcher(match: Mapping[str, Any]) -> LineMatcher:
    """``substring``: literal within one line; ``regex``: Rust syntax, per line."""
    value = str(match["value"])
    try:
        return LineMatcher(str(match["type"]), value)
    except InvalidPattern as exc:
        raise ApiError(protocol.INVALID_REGEX, f"invalid regex {_shown(value)}: {exc}") from None


def _shown(value: str) -> str:
    """``value`` quoted for a message, cut short (patterns may be kilobytes long)."""
    return repr(value) if len(value) <= 80 else repr(value[:77]) + "..."


def _timeout_message(matcher: LineMatcher, pane_id: str, exc: MatchTimeout) -> str:
    return f"regex {_shown(matcher.value)} is too slow to search in {pane_id}: {exc.reason}"


class _RevisionCache:
    """What was read from and found in one terminal at one revision."""

    __slots__ = ("matches", "revision", "texts")

    def __init__(self, revision: int) -> None:
        self.revision = revision
        self.texts: dict[tuple[str, int | None], str] = {}
        self.matches: dict[tuple[str, int | None, tuple[str, str]], str | MatchTimeout | None]
        self.matches = {}


# Per terminal, valid for one revision: every output_matched subscriber and waiter on a
# pane shares one emulator read per output change instead of one each, and subscribers
# with the same matcher share one search.
_SEARCH_CACHE: weakref.WeakKeyDictionary[Terminal, _RevisionCache] = weakref.WeakKeyDictionary()


def _revision_cache(term: Terminal) -> _RevisionCache:
    revision = term.revision
    cached = _SEARCH_CACHE.get(term)
    if cached is None or cached.revision != revision:
        cached = _RevisionCache(revision)
        _SEARCH_CACHE[term] = cached
    return cached


def _search_source(source: str) -> str:
    """What a wait searches: recent and recent_unwrapped both use the unwrapped rows."""
    return "recent_unwrapped" if source == "recent" else source


def _search_text(term: Terminal, source: str, lines: int | None) -> str:
    source = _search_source(source)
    texts = _revision_cache(term).texts
    key = (source, lines)
    text = texts.get(key)
    if text is None:
        text = read_source(term, source, lines, ansi=False)[0]
        texts[key] = text
    return text


def find_match(term: Terminal, source: str, lines: int | None, matcher: LineMatcher) -> str | None:
    """The first matching line; raises :class:`MatchTimeout` for a too slow regex."""
    return matcher.first_match(_search_text(term, source, lines))


def find_match_shared(
    term: Terminal, source: str, lines: int | None, matcher: LineMatcher
) -> str | None:
    """``find_match``, computed once per revision for every matcher with the same key
    (a timeout too: every subscriber with that pattern ends, after one search)."""
    matches = _revision_cache(term).matches
    cache_key = (_search_source(source), lines, matcher.key)
    if cache_key in matches:
        found = matches[cache_key]
    else:
        try:
            found = find_match(term, source, lines, matcher)
        except MatchTimeout as exc:
            found = exc
        matches[cache_key] = found
    if isinstance(found, MatchTimeout):
        raise found
    return found


def _match_read(loc: m.PaneLoc, term: Terminal, params: Mapping[str, Any]) -> dict[str, Any]:
    """The read record sent with a match: plain text is the searched (unwrapped) text."""
    source, lines = params["source"], params.get("lines")
    if _wants_ansi(params) and source != "detection":
        return read_record(loc, term, source, lines, ansi=True)
    return {
        "pane_id": loc.pane_id,
        "workspace_id": loc.workspace_id,
        "tab_id": loc.tab_id,
        "source": source,
        "format": "text",
        "text": "" if term.emulator.closed else _search_text(term, source, lines),
        "revision": term.revision,
        "truncated": lines is not None and lines > MAX_LINES,
    }


def _matched(loc: m.PaneLoc, term: Terminal, params: Mapping[str, Any], line: str) -> Result:
    return {
        "type": "output_matched",
        "pane_id": loc.pane_id,
        "matched_line": line,
        "read": _match_read(loc, term, params),
        "revision": term.revision,
    }


async def pane_wait_for_output(call: Call) -> Result | None:
    host = call.server.panes
    p = call.params
    loc = host.session.pane(p["pane_id"])
    term = _terminal(host, loc)
    matcher = compile_matcher(p["match"])
    try:
        return await _wait_for_output(call, loc, term, matcher)
    except MatchTimeout as exc:
        raise ApiError(
            protocol.REGEX_TIMEOUT, _timeout_message(matcher, loc.pane_id, exc)
        ) from None


async def _wait_for_output(
    call: Call, loc: m.PaneLoc, term: Terminal, matcher: LineMatcher
) -> Result | None:
    host = call.server.panes
    p = call.params
    source, lines = p["source"], p.get("lines")
    line = find_match(term, source, lines, matcher)
    if line is not None:
        return _matched(loc, term, p, line)
    timeout_ms = p.get("timeout_ms")
    deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
    wake = asyncio.Event()
    term.on_output.add(wake.set)
    conn = call.conn
    conn.add_close_callback(wake.set)
    conn.watch_eof()
    pause = RECHECK_S
    try:
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise ApiError(
                    protocol.TIMEOUT, f"no output matching in {loc.pane_id} within {timeout_ms} ms"
                )
            try:
                await asyncio.wait_for(wake.wait(), remaining)
            except TimeoutError:
                continue
            if conn.closed:
                return None
            await asyncio.sleep(pause)  # coalesce a burst of output into one check
            wake.clear()
            started = time.monotonic()
            line = None if term.emulator.closed else find_match(term, source, lines, matcher)
            # a costly search (thousands of lines) waits longer: a fifth of a core at most
            pause = max(RECHECK_S, COST_FACTOR * (time.monotonic() - started))
            current = host.session.find_terminal(term.terminal_id)
            if line is not None:
                return _matched(current or loc, term, p, line)
            if current is None:
                raise ApiError(protocol.PANE_NOT_FOUND, f"pane {loc.pane_id} closed while waiting")
    finally:
        term.on_output.discard(wake.set)


# Event.memo keys (see OutputMatchFilter.apply).
_MEMO_PANE = "output_matched.pane"
_MEMO_CHECK = "output_matched.check"


class _Check:
    """One output change as seen by every filter with the same pane, source, lines,
    matcher and format: the matched line, and the payload built once if pushed."""

    __slots__ = ("data", "line", "loc", "pane_id", "params", "term")

    def __init__(
        self,
        line: str | None,
        loc: m.PaneLoc,
        pane_id: str,
        term: Terminal,
        params: Mapping[str, Any],
    ) -> None:
        self.line = line
        self.loc = loc
        self.pane_id = pane_id
        self.term = term
        self.params = params
        self.data: dict[str, Any] | None = None

    def payload(self, line: str) -> dict[str, Any]:
        data = self.data
        if data is None:
            data = self.data = {
                "pane_id": self.pane_id,
                "matched_line": line,
                "read": _match_read(self.loc, self.term, self.params),
            }
        return data


class OutputMatchFilter(Filter):
    """``pane.output_matched``: re-check on output (paced, :mod:`herdr.server.output_pacing`),
    push a newly matched line.

    Each subscriber keeps its own last pushed line; the work behind a check is shared by
    every subscriber that sees the same output change, through the event's memo: the
    pane lookup, the search (also cached per terminal revision, with the search text)
    and the pushed payload, which is one object so the bus encodes its line once.
    """

    kinds = frozenset({OUTPUT_CHECK_KIND})

    def __init__(self, item: Mapping[str, Any], host: PaneHost) -> None:
        super().__init__(item)
        self.pane_id: str = str(item["pane_id"])
        self.host = host
        self.matcher = compile_matcher(item["match"])
        self.source: str = str(item["source"])
        self.lines: int | None = item.get("lines")
        # Everything but the pane (which follows moves) that decides what a check finds
        # and pushes; filters with equal specs share one check per output change.
        self.spec = (host, self.source, self.lines, self.matcher.key, _wants_ansi(item))
        self.last: str | None = None

    def _target(self, memo: dict[Any, Any]) -> tuple[m.PaneLoc, str, Terminal] | None:
        key = (_MEMO_PANE, self.host, self.pane_id)
        if key in memo:
            found: tuple[m.PaneLoc, str, Terminal] | None = memo[key]
            return found
        try:
            loc = self.host.session.pane(self.pane_id)
        except m.ModelError:
            loc = None
        term = None if loc is None else self.host.terminal(loc)
        found = None if loc is None or term is None else (loc, loc.pane_id, term)
        memo[key] = found
        return found

    def _check(self, memo: dict[Any, Any]) -> _Check | None:
        target = self._target(memo)
        if target is None:
            return None
        loc, pane_id, term = target
        line = find_match_shared(term, self.source, self.lines, self.matcher)
        return _Check(line, loc, pane_id, term, self.item)

    def apply(self, event: Event) -> tuple[str, dict[str, Any]] | None:
        """Raises :class:`FilterEnded` (``regex_timeout``) once the regex is too slow."""
        if event.data.get("pane_id") != self.pane_id:
            return None
        memo = event.memo()
        key = (_MEMO_CHECK, self.pane_id, self.spec)
        if key in memo:
            check: _Check | None = memo[key]
        else:
            try:
                check = memo[key] = self._check(memo)
            except MatchTimeout as exc:
                message = _timeout_message(self.matcher, self.pane_id, exc)
                raise FilterEnded(protocol.REGEX_TIMEOUT, message) from None
        if check is None:
            return None
        line = check.line
        if line is None or line == self.last:
            return None
        self.last = line
        return protocol.OUTPUT_MATCHED, check.payload(line)


def current_output_match(host: PaneHost, match: Mapping[str, Any]) -> Event | None:
    """``events.wait`` on ``pane_output_changed`` with ``min_revision`` already reached."""
    if match.get("event") != "pane_output_changed" or match.get("min_revision") is None:
        return None
    try:
        loc = host.session.pane(str(match["pane_id"]))
    except m.ModelError:
        return None
    term = host.terminal(loc)
    if term is None or term.revision < int(match["min_revision"]):
        return None
    data = {
        "type": "pane_output_changed",
        "pane_id": loc.pane_id,
        "workspace_id": loc.workspace_id,
        "revision": term.revision,
    }
    return Event(host.bus.last_seq, "pane_output_changed", data)
