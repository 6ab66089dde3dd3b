"""Copy mode served by the server: scroll a pane, read a selection, vi motions, search.

Points are ``(row, col)`` with absolute rows (0 = the oldest row of scrollback +
screen, as ``pane.read``'s scrollback and the TUI's copy mode count them) and cell
columns. ``content_revision`` is the pane's revision (``PaneInfo.revision``): a client
that passes one it read earlier gets ``stale_content`` once the pane has changed, so a
selection or a motion is never computed on text the client has not seen. The text
logic is :mod:`herdr.runtime.text_motion`; this module reads rows and answers.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping
from typing import Any, Final

from herdr.api import protocol
from herdr.runtime import model as m
from herdr.runtime import text_motion as tm
from herdr.server.core import ApiError, Result
from herdr.server.dispatch import Handler
from herdr.server.panes import PaneHost, Terminal
from herdr.server.wiring import Call
from herdr.terminal.emulator import Emulator
from herdr.vocab import ErrorCode

STALE_CONTENT: Final = ErrorCode.STALE_CONTENT.value
MAX_RETURNED_MATCHES: Final = 1024  # herdr's cap; ``total`` still counts every match


def _target(call: Call) -> tuple[PaneHost, m.PaneLoc, Terminal]:
    host = call.server.panes
    loc = host.session.pane(call.params["pane_id"])
    term = host.terminal(loc)
    if term is None or term.emulator.closed:
        raise ApiError(protocol.PANE_NOT_FOUND, f"pane {loc.pane_id} has no terminal")
    return host, loc, term


def _check_revision(term: Terminal, revision: int | None) -> None:
    if revision is not None and revision != term.revision:
        raise ApiError(
            STALE_CONTENT,
            f"pane content changed: content_revision {revision}, now {term.revision}",
        )


def _point(em: Emulator, value: Mapping[str, Any], name: str) -> tm.Point:
    """A client point on this pane: a row past the last one is refused; a column past
    the width means the row's last cell (the width may have shrunk since)."""
    row, col = int(value["row"]), int(value["col"])
    total = em.total_rows
    if row >= total:
        raise ApiError(
            protocol.INVALID_PARAMS,
            f"{name}.row {row} is past the pane's last row {total - 1} "
            "(rows count from 0 = the oldest scrollback row)",
        )
    return row, min(col, em.cols - 1)


def _wire(point: tm.Point) -> dict[str, int]:
    return {"row": point[0], "col": point[1]}


def _rows(em: Emulator, first: int, last: int) -> list[tm.TextRow]:
    return [tm.TextRow(text, wrapped) for text, wrapped in em.screen_rows(first, last)]


# Every row of a terminal at one revision: repeating a search (``n``/``N``) on a pane
# that has not changed reads nothing again. The read must stay on the loop (the
# emulator is not thread-safe) and costs ~3.5 us a row, mostly the soft-wrap flags
# (50-100 ms for 13 500 rows of 80 columns), so a long pane is read in slices of
# READ_SLICE_CELLS cells with the loop free in between (other panes, other clients).
_ALL_ROWS: weakref.WeakKeyDictionary[Terminal, tuple[int, list[tm.TextRow]]] = (
    weakref.WeakKeyDictionary()
)
READ_SLICE_CELLS: Final = 128 * 1024  # 1 638 rows of 80 columns: ~5-10 ms of the loop


def slice_rows(cols: int) -> int:
    """Rows read in one loop turn for a pane ``cols`` wide."""
    return max(64, READ_SLICE_CELLS // max(1, cols))


async def _all_rows(term: Terminal) -> tuple[int, list[tm.TextRow]]:
    """(revision, every row of scrollback + screen at that revision).

    When the pane changes between two slices, what was read is of another revision:
    the rows are then read again in one piece (the loop held as it used to be), so
    the answer is always one revision's text.
    """
    cached = _ALL_ROWS.get(term)
    if cached is not None and cached[0] == term.revision:
        return cached
    em = term.emulator
    revision = term.revision
    total = em.total_rows
    step = slice_rows(em.cols)
    rows: list[tm.TextRow] = []
    for first in range(0, total, step):
        if first:
            await asyncio.sleep(0)  # one loop turn for everything else
            if em.closed:
                raise ApiError(protocol.PANE_NOT_FOUND, "the pane closed during the search")
            if term.revision != revision or em.total_rows != total:
                revision = term.revision
                rows = _rows(em, 0, em.total_rows - 1)
                break
        rows += _rows(em, first, min(total, first + step) - 1)
    _ALL_ROWS[term] = (revision, rows)
    return revision, rows


# --- pane.scroll ---------------------------------------------------------------------


def pane_scroll(call: Call) -> Result:
    """herdr answers the pane's record with its ``scroll`` metrics; a move that changed
    the viewport is published as ``pane.scroll_changed`` and shown to attached TUIs."""
    host, loc, term = _target(call)
    em = term.emulator
    if em.scroll_to_offset(int(call.params["offset_from_bottom"])):
        offset, most, rows = em.scroll_state
        scroll = {
            "offset_from_bottom": offset,
            "max_offset_from_bottom": most,
            "viewport_rows": rows,
        }
        host.emit(
            protocol.PANE_SCROLL_CHANGED,
            {"pane_id": loc.pane_id, "workspace_id": loc.workspace_id, "scroll": scroll},
        )
        call.server.attach.viewport_moved(term)
    return {"type": "pane_info", "pane": host.pane_record(loc)}


# --- pane.selection.read -------------------------------------------------------------


def pane_selection_read(call: Call) -> Result:
    _, loc, term = _target(call)
    p = call.params
    _check_revision(term, p.get("content_revision"))
    em = term.emulator
    anchor, cursor = _point(em, p["anchor"], "anchor"), _point(em, p["cursor"], "cursor")
    return {
        "type": "pane_selection",
        "pane_id": loc.pane_id,
        "text": em.selection_text(anchor, cursor),
    }


# --- pane.copy_motion ----------------------------------------------------------------


def pane_copy_motion(call: Call) -> Result:
    """Motions that find nowhere to go (a word motion at the end of the text, no blank
    row within reach) leave the cursor where it is, as herdr does."""
    _, loc, term = _target(call)
    p = call.params
    _check_revision(term, p.get("content_revision"))
    em = term.emulator
    cursor = _point(em, p["cursor"], "cursor")
    motion = str(p["motion"])
    target = _motion_target(em, cursor, motion) or cursor
    return {
        "type": "pane_copy_motion",
        "pane_id": loc.pane_id,
        "cursor": _wire(target),
        "content_revision": term.revision,
    }


def _motion_target(em: Emulator, cursor: tm.Point, motion: str) -> tm.Point | None:
    row, _ = cursor
    if motion in {"line_end", "first_non_blank"}:
        text = em.screen_rows(row, row)[0][0]
        col = tm.line_end_col(text) if motion == "line_end" else tm.first_non_blank_col(text)
        return row, min(col, em.cols - 1)
    if motion in tm.WORD_MOTIONS:
        return _word_target(em, cursor, motion)
    step = -1 if motion == "previous_paragraph" else 1
    reach = tm.PARAGRAPH_REACH
    first = max(0, row - reach) if step < 0 else row
    texts = [text for text, _ in em.screen_rows(first, row + reach if step > 0 else row)]
    found = tm.paragraph_row(texts, first, row, step)
    return None if found is None else (found, cursor[1])


def _word_target(em: Emulator, cursor: tm.Point, motion: str) -> tm.Point | None:
    """One read of the rows a word motion may reach (:data:`~tm.WORD_REACH` past the
    cursor's row, the way it goes); the walk over them costs what the cursor moves."""
    row = cursor[0]
    if motion.startswith("previous"):
        first, last = max(0, row - tm.WORD_REACH), row
    else:
        first, last = row, row + tm.WORD_REACH
    return tm.word_motion(_rows(em, first, last), first, cursor, motion)


# --- pane.copy_search ----------------------------------------------------------------


async def pane_copy_search(call: Call) -> Result:
    """Literal smartcase search over scrollback + screen. The rows are read on the loop
    (in slices, see :func:`_all_rows`); the scan runs in a worker thread so a long pane
    does not hold other clients. The answer is about those rows: ``content_revision``
    is the revision they were read at."""
    _, loc, term = _target(call)
    p = call.params
    _check_revision(term, int(p["content_revision"]))
    cursor = (int(p["cursor"]["row"]), int(p["cursor"]["col"]))
    previous = p.get("previous")
    prev: tuple[tm.Point, tm.Point] | None = None
    if previous is not None:
        start, end = previous["start"], previous["end"]
        prev = (int(start["row"]), int(start["col"])), (int(end["row"]), int(end["col"]))
    revision, rows = await _all_rows(term)
    window = await asyncio.to_thread(
        tm.search,
        rows,
        str(p["query"]),
        "backward" if p["direction"] == "backward" else "forward",
        cursor,
        previous=prev,
        limit=MAX_RETURNED_MATCHES,
        cols=term.emulator.cols,
    )
    return {
        "type": "pane_copy_search",
        "pane_id": loc.pane_id,
        "content_revision": revision,
        "matches": [{"start": _wire(a), "end": _wire(b)} for a, b in window.matches],
        "total": window.total,
        "current": window.current,
        "current_global": window.current_global,
    }


COPY_METHODS: Final[dict[str, Handler]] = {
    "pane.scroll": pane_scroll,
    "pane.selection.read": pane_selection_read,
    "pane.copy_motion": pane_copy_motion,
    "pane.copy_search": pane_copy_search,
}
