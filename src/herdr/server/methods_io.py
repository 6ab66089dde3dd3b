"""Pane input and output: send text/keys, read the four sources, wait for output.

``pane.wait_for_output`` checks the text that is already there first, then sleeps
until the pane produces output (no polling loop) and re-checks at most every
``RECHECK_S``, so a chatty pane cannot turn a wait into a busy loop.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from herdr.api import protocol
from herdr.runtime import model as m
from herdr.runtime.events import Event, Filter
from herdr.server.core import ApiError, Call, Result
from herdr.server.keys import InvalidKey, encode_keys, paste
from herdr.server.panes import PaneHost, Terminal
from herdr.terminal import views
from herdr.terminal.pty import PtyClosed, PtyWriteOverflow

DEFAULT_LINES = views.DEFAULT_RECENT_LINES
MAX_LINES = 10_000
RECHECK_S = 0.02

Matcher = Callable[[str], bool]


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
    try:
        return encode_keys(keys, app_cursor=term.emulator.input_modes().application_cursor)
    except InvalidKey as exc:
        raise ApiError(protocol.INVALID_KEY, str(exc)) from None


def _bracketed(term: Terminal) -> bool:
    return term.emulator.input_modes().bracketed_paste


def pane_send_text(call: Call) -> Result:
    host = call.core.panes
    loc = host.session.pane(call.params["pane_id"])
    term = _terminal(host, loc)
    _write(term, [paste(call.params["text"], bracketed=_bracketed(term))], loc.pane_id)
    return {"type": "ok"}


def pane_send_keys(call: Call) -> Result:
    host = call.core.panes
    loc = host.session.pane(call.params["pane_id"])
    term = _terminal(host, loc)
    _write(term, _encode_keys(term, call.params["keys"]), loc.pane_id)
    return {"type": "ok"}


def pane_send_input(call: Call) -> Result:
    """Text (bracketed-paste aware) then keys; everything validated before writing."""
    host = call.core.panes
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
    host = call.core.panes
    p = call.params
    loc = host.session.pane(p["pane_id"])
    term = _terminal(host, loc)
    read = read_record(loc, term, p["source"], p.get("lines"), ansi=_wants_ansi(p))
    return {"type": "pane_read", "read": read}


# --- waiting for output -----------------------------------------------------------------


def compile_matcher(match: Mapping[str, Any]) -> Matcher:
    """``substring``: literal within one line; ``regex``: Rust syntax, per line."""
    value = str(match["value"])
    if match["type"] == "substring":
        return lambda line: value in line
    from herdr.detect.manifest.dialect import compile_rust_regex

    try:
        pattern = compile_rust_regex(value)
    except Exception as exc:  # RegexSyntaxError, RegexUnsupportedError, regex.error
        raise ApiError(protocol.INVALID_REGEX, f"invalid regex {value!r}: {exc}") from None
    return lambda line: pattern.search(line) is not None


# Search text per terminal, valid for one revision: every output_matched subscriber and
# waiter on a pane shares one emulator read per output change instead of one each.
_SEARCH_CACHE: weakref.WeakKeyDictionary[Terminal, tuple[int, dict[tuple[str, int | None], str]]]
_SEARCH_CACHE = weakref.WeakKeyDictionary()


def _search_text(term: Terminal, source: str, lines: int | None) -> str:
    """What a wait searches: recent and recent_unwrapped both use the unwrapped rows."""
    if source == "recent":
        source = "recent_unwrapped"
    revision = term.revision
    cached = _SEARCH_CACHE.get(term)
    if cached is None or cached[0] != revision:
        cached = (revision, {})
        _SEARCH_CACHE[term] = cached
    texts = cached[1]
    key = (source, lines)
    text = texts.get(key)
    if text is None:
        text = read_source(term, source, lines, ansi=False)[0]
        texts[key] = text
    return text


def find_match(term: Terminal, source: str, lines: int | None, matcher: Matcher) -> str | None:
    for line in _search_text(term, source, lines).splitlines():
        if matcher(line):
            return line
    return None


def _matched(loc: m.PaneLoc, term: Terminal, params: Mapping[str, Any], line: str) -> Result:
    source = params["source"]
    read = read_record(loc, term, source, params.get("lines"), ansi=_wants_ansi(params))
    if not _wants_ansi(params) and source == "recent":
        read["text"] = _search_text(term, source, params.get("lines"))
    return {
        "type": "output_matched",
        "pane_id": loc.pane_id,
        "matched_line": line,
        "read": read,
        "revision": term.revision,
    }


async def pane_wait_for_output(call: Call) -> Result | None:
    host = call.core.panes
    p = call.params
    loc = host.session.pane(p["pane_id"])
    term = _terminal(host, loc)
    matcher = compile_matcher(p["match"])
    source, lines = p["source"], p.get("lines")
    line = find_match(term, source, lines, matcher)
    if line is not None:
        return _matched(loc, term, p, line)
    timeout_ms = p.get("timeout_ms")
    deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
    wake = asyncio.Event()
    term.output_waiters.add(wake)
    conn = call.conn
    conn.add_close_callback(wake.set)
    conn.watch_eof()
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
            await asyncio.sleep(RECHECK_S)  # coalesce a burst of output into one check
            wake.clear()
            line = None if term.emulator.closed else find_match(term, source, lines, matcher)
            current = host.session.find_terminal(term.terminal_id)
            if line is not None:
                return _matched(current or loc, term, p, line)
            if current is None:
                raise ApiError(protocol.PANE_NOT_FOUND, f"pane {loc.pane_id} closed while waiting")
    finally:
        term.output_waiters.discard(wake)


class OutputMatchFilter(Filter):
    """``pane.output_matched``: re-check on each output change, push a newly matched line."""

    kinds = frozenset({"pane_output_changed"})

    def __init__(self, item: Mapping[str, Any], host: PaneHost) -> None:
        super().__init__(item)
        self.pane_id: str = str(item["pane_id"])
        self.host = host
        self.matcher = compile_matcher(item["match"])
        self.last: str | None = None

    def apply(self, event: Event) -> tuple[str, dict[str, Any]] | None:
        if event.data.get("pane_id") != self.pane_id:
            return None
        try:
            loc = self.host.session.pane(self.pane_id)
        except m.ModelError:
            return None
        term = self.host.terminal(loc)
        if term is None:
            return None
        line = find_match(term, self.item["source"], self.item.get("lines"), self.matcher)
        if line is None or line == self.last:
            return None
        self.last = line
        result = _matched(loc, term, self.item, line)
        return protocol.OUTPUT_MATCHED, {
            "pane_id": loc.pane_id,
            "matched_line": line,
            "read": result["read"],
        }


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
    return Event(host.core.bus.last_seq, "pane_output_changed", data)
