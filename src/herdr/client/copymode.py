"""Copy mode: a vi-style cursor over one pane's scrollback, a selection, a copy (PURE).

herdr-spec §1.3 (``prefix+[``). Positions are *absolute* rows (0 = the oldest row of
scrollback + screen) so a cursor and a selection stay on their text while output keeps
arriving and the server keeps the scrolled viewport pinned. The server owns the
viewport: keys produce :class:`Scroll` effects (rows to move it), and every rows
message re-syncs ``top``/``total`` through :func:`sync`. The app carries out the
effects (scroll messages, OSC 52, ``pane.read``); this module never does I/O.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Literal, TypeAlias

from msgspec import Struct
from msgspec.structs import replace

from herdr.client.ansi import RESET, char_width, slice_ansi, strip_ansi
from herdr.client.input import CTRL, SHIFT
from herdr.client.keynames import KeySpec

SELECT_SGR = "\x1b[7m"  # selection: reverse video
CURSOR_SGR = "\x1b[1;4;7m"  # the copy cursor outside a selection
CURSOR_IN_SELECTION_SGR = "\x1b[1;4m"  # inside one: a hole in the reverse block


class CopyState(Struct, frozen=True):
    """Where copy mode is on one pane; every row number is absolute."""

    pane_id: str
    width: int
    height: int
    total: int  # rows of scrollback + screen, as the server last said
    top: int  # absolute row shown on the viewport's first row
    line: int  # the cursor's row
    col: int  # the cursor's cell
    anchor: tuple[int, int] | None = None  # (row, cell) where the selection began
    linewise: bool = False

    @property
    def max_top(self) -> int:
        """The top row when the viewport is at the live bottom (also the history size)."""
        return max(0, self.total - self.height)

    @property
    def offset(self) -> int:
        """Rows the viewport is scrolled up (0 = live bottom)."""
        return max(0, self.max_top - self.top)

    def position(self) -> str:
        """tmux's ``[offset/history]`` indicator."""
        return f"[{self.offset}/{self.max_top}]"

    def cursor(self) -> tuple[int, int] | None:
        """The cursor inside the viewport, or None when it is scrolled out of view."""
        y = self.line - self.top
        if 0 <= y < self.height and 0 <= self.col < self.width:
            return self.col, y
        return None


class Selection(Struct, frozen=True):
    """A normalised selection: start ≤ end; cells inclusive (character-wise)."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int
    linewise: bool = False

    @property
    def lines(self) -> int:
        return self.end_line - self.start_line + 1

    def span(self, line: int, width: int) -> tuple[int, int] | None:
        """Cells ``[first, last)`` of ``line`` inside the selection, if any."""
        if not self.start_line <= line <= self.end_line:
            return None
        if self.linewise:
            return 0, width
        first = self.start_col if line == self.start_line else 0
        last = self.end_col + 1 if line == self.end_line else width
        return (first, last) if last > first else None


class Scroll(Struct, frozen=True):
    """Move the server's viewport ``delta`` rows (negative: up into the scrollback)."""

    delta: int


class Copy(Struct, frozen=True):
    """Copy the text of ``selection`` to the host clipboard."""

    selection: Selection


class Leave(Struct, frozen=True):
    """Copy mode ends: the app returns the pane to its live bottom."""


class StartSearch(Struct, frozen=True):
    """``/`` or ``?``: the app opens the search prompt (:mod:`herdr.client.copysearch`)."""

    direction: Literal["forward", "backward"]


class RepeatSearch(Struct, frozen=True):
    """``n`` (same direction as the last search) or ``N`` (``reverse``)."""

    reverse: bool


Effect: TypeAlias = Scroll | Copy | Leave | StartSearch | RepeatSearch


# ----------------------------------------------------------------------------- state


def enter(
    pane_id: str,
    size: tuple[int, int],
    total: int,
    offset: int,
    cursor: tuple[int, int] | None,
) -> CopyState:
    """Copy mode on a pane showing ``size`` cells, ``offset`` rows up in ``total``."""
    width, height = max(1, size[0]), max(1, size[1])
    total = max(total, height)
    top = max(0, total - height - offset)
    cx, cy = cursor if cursor is not None else (0, height - 1)
    cy = min(max(cy, 0), height - 1)
    return CopyState(pane_id, width, height, total, top, top + cy, min(max(cx, 0), width - 1))


def sync(state: CopyState, size: tuple[int, int], total: int, offset: int) -> CopyState:
    """The state after a rows message: the server's viewport is the truth."""
    width, height = max(1, size[0]), max(1, size[1])
    total = max(total, height)
    top = max(0, total - height - offset)
    line = min(max(state.line, 0), total - 1)
    col = min(max(state.col, 0), width - 1)
    if (width, height, total, top, line, col) == (
        state.width,
        state.height,
        state.total,
        state.top,
        state.line,
        state.col,
    ):
        return state
    return replace(state, width=width, height=height, total=total, top=top, line=line, col=col)


def selection(state: CopyState) -> Selection | None:
    """The selection between the anchor and the cursor, start first."""
    if state.anchor is None:
        return None
    a = state.anchor
    b = (state.line, state.col)
    first, last = (a, b) if a <= b else (b, a)
    return Selection(first[0], first[1], last[0], last[1], state.linewise)


# ------------------------------------------------------------------------------ keys


def _k(name: str, mods: int = 0) -> KeySpec:
    return KeySpec(name, mods)


_LEAVE = {_k("q"), _k("esc"), _k("c", CTRL)}
_COPY = {_k("y"), _k("enter")}


def handle_key(
    state: CopyState, spec: KeySpec, rows: Sequence[str] = ()
) -> tuple[CopyState, list[Effect]]:
    """One key in copy mode → the new state and what the app must do.

    ``rows`` are the viewport's styled rows (row 0 = ``state.top``): ``0 $ ^ w b``
    need the cursor row's text. Unbound keys do nothing (they never reach the pane).
    """
    if spec in _LEAVE:
        return state, [Leave()]
    if spec in _COPY:
        sel = selection(state)
        return state, ([Copy(sel), Leave()] if sel is not None else [Leave()])
    key, mods = spec.key, spec.mods
    half = max(1, state.height // 2)
    page = max(1, state.height - 1)
    if key in ("v", "V", "space") and mods & ~SHIFT == 0:
        linewise = key == "V" or (key == "v" and mods == SHIFT)
        if state.anchor is not None and state.linewise == linewise:
            return replace(state, anchor=None, linewise=False), []
        anchor = state.anchor or (state.line, state.col)
        return replace(state, anchor=anchor, linewise=linewise), []
    if mods == CTRL:
        moves = {"u": -half, "d": half, "b": -page, "f": page, "y": -1, "e": 1}
        if key in moves:
            if key in ("y", "e"):
                return scroll_view(state, moves[key])
            return _move(state, moves[key], scroll=True)
        return state, []
    if mods not in (0, SHIFT):
        return state, []
    shifted = mods == SHIFT
    if key in ("/", "?"):
        return state, [StartSearch("forward" if key == "/" else "backward")]
    if key == "n":
        return state, [RepeatSearch(reverse=shifted)]
    if key in ("k", "up") and not shifted:
        return _move(state, -1)
    if key in ("j", "down") and not shifted:
        return _move(state, 1)
    if key in ("h", "left") and not shifted:
        return _at(state, state.line, state.col - 1)
    if key in ("l", "right") and not shifted:
        return _at(state, state.line, state.col + 1)
    if key == "pageup":
        return _move(state, -page, scroll=True)
    if key == "pagedown":
        return _move(state, page, scroll=True)
    if key in ("g", "home") and not shifted:
        return _at(state, 0, 0)
    if (key == "g" and shifted) or key in {"G", "end"}:
        return _at(state, state.total - 1, 0)
    if key in ("h", "H", "m", "M", "l", "L") and (shifted or key.isupper()):
        target = {"h": 0, "m": (state.height - 1) // 2, "l": state.height - 1}[key.lower()]
        return _at(state, state.top + target, state.col)
    cells = row_cells(_plain_row(state, rows, state.line))
    if key == "0":
        return _at(state, state.line, 0)
    if key == "$":
        return _at(state, state.line, max(0, _text_end(cells) - 1))
    if key == "^":
        return _at(state, state.line, _first_text(cells))
    if key == "w" and not shifted:
        return _word_forward(state, rows, cells)
    if key == "b" and not shifted:
        return _word_back(state, rows, cells)
    return state, []


def _move(state: CopyState, rows: int, *, scroll: bool = False) -> tuple[CopyState, list[Effect]]:
    """The cursor ``rows`` up or down; with ``scroll`` the view moves as much (pages)."""
    top = state.top
    if scroll:
        top = min(max(0, top + rows), state.max_top)
    line = min(max(0, state.line + rows), state.total - 1)
    return _follow(state, replace(state, top=top, line=line))


def _at(state: CopyState, line: int, col: int) -> tuple[CopyState, list[Effect]]:
    line = min(max(0, line), state.total - 1)
    col = min(max(0, col), state.width - 1)
    return _follow(state, replace(state, line=line, col=col))


def jump(state: CopyState, line: int, col: int) -> tuple[CopyState, list[Effect]]:
    """The cursor to ``(line, col)`` (a search match), the view following it."""
    return _at(state, line, col)


def scroll_view(state: CopyState, rows: int) -> tuple[CopyState, list[Effect]]:
    """Scroll the view, the cursor staying on its text while it remains visible."""
    top = min(max(0, state.top + rows), state.max_top)
    line = min(max(state.line, top), top + state.height - 1)
    new = replace(state, top=top, line=line)
    return new, ([Scroll(top - state.top)] if top != state.top else [])


def _follow(old: CopyState, new: CopyState) -> tuple[CopyState, list[Effect]]:
    """Scroll the viewport as little as needed to keep the cursor visible."""
    top = new.top
    if new.line < top:
        top = new.line
    elif new.line >= top + new.height:
        top = new.line - new.height + 1
    top = min(max(0, top), new.max_top)
    if top != new.top:
        new = replace(new, top=top)
    return new, ([Scroll(top - old.top)] if top != old.top else [])


def _plain_row(state: CopyState, rows: Sequence[str], line: int) -> str:
    y = line - state.top
    return strip_ansi(rows[y]) if 0 <= y < len(rows) else ""


def _word_class(cell: str) -> int:
    if cell == "" or cell.isspace():
        return 0
    return 1 if cell.isalnum() or cell == "_" or char_width(cell[0]) == 2 else 2


def _word_forward(
    state: CopyState, rows: Sequence[str], cells: list[str]
) -> tuple[CopyState, list[Effect]]:
    """vi ``w``: the start of the next word on this row, else the next row's first."""
    col = state.col
    if col < len(cells):
        here = _word_class(cells[col])
        col += 1
        while col < len(cells) and (cells[col] == "" or _word_class(cells[col]) == here != 0):
            col += 1
        while col < len(cells) and _word_class(cells[col]) == 0:
            col += 1
        if col < len(cells):
            return _at(state, state.line, col)
    if state.line + 1 >= state.total:
        return state, []
    following = row_cells(_plain_row(state, rows, state.line + 1))
    return _at(state, state.line + 1, _first_text(following))


def _word_back(
    state: CopyState, rows: Sequence[str], cells: list[str]
) -> tuple[CopyState, list[Effect]]:
    """vi ``b``: the start of this or the previous word on this row, else the row above's
    last word."""
    line, col = state.line, min(state.col, len(cells))
    col -= 1
    while col >= 0 and _word_class(cells[col]) == 0:
        col -= 1
    if col < 0:
        if line == 0:
            return _at(state, 0, 0)
        line -= 1
        cells = row_cells(_plain_row(state, rows, line))
        col = _text_end(cells) - 1
        if col < 0:
            return _at(state, line, 0)
    here = _word_class(cells[col])
    while col > 0 and (cells[col - 1] == "" or _word_class(cells[col - 1]) == here):
        col -= 1
    while col < len(cells) and cells[col] == "":
        col += 1  # landed on the right half of a wide character
    return _at(state, line, col)


# ---------------------------------------------------------------------- cells & text


def row_cells(text: str) -> list[str]:
    """Plain row text as one entry per cell: a wide character then ``""`` for its right
    half; combining marks stay on their base character."""
    cells: list[str] = []
    for ch in text:
        w = char_width(ch)
        if w == 0:
            if cells:
                i = len(cells) - 1
                while i > 0 and cells[i] == "":
                    i -= 1
                cells[i] += ch
            continue
        cells.append(ch)
        if w == 2:
            cells.append("")
    return cells


def _text_end(cells: list[str]) -> int:
    """Cells up to and including the last non-blank one."""
    end = len(cells)
    while end > 0 and (cells[end - 1] == " " or cells[end - 1] == ""):
        if cells[end - 1] == "" and end >= 2 and cells[end - 2] not in ("", " "):
            break  # the right half of a wide character
        end -= 1
    return end


def _first_text(cells: list[str]) -> int:
    for i, cell in enumerate(cells):
        if cell not in ("", " "):
            return i
    return 0


def _widen(cells: list[str], first: int, last: int) -> tuple[int, int]:
    """``[first, last)`` grown so no wide character is cut in half."""
    while 0 < first < len(cells) and cells[first] == "":
        first -= 1
    while 0 < last < len(cells) and cells[last] == "":
        last += 1
    return first, last


def selected_text(lines: Sequence[str], first_line: int, sel: Selection) -> str:
    """The plain text of ``sel`` from ``lines`` (line ``first_line`` at index 0; ANSI is
    stripped): trailing blanks trimmed per row, rows joined with ``\\n``."""
    out: list[str] = []
    for line in range(sel.start_line, sel.end_line + 1):
        i = line - first_line
        text = strip_ansi(lines[i]) if 0 <= i < len(lines) else ""
        cells = row_cells(text)
        span = sel.span(line, max(len(cells), 1))
        if span is None:
            out.append("")
            continue
        first, last = _widen(cells, *span)
        out.append("".join(cells[first:last]).rstrip())
    return "\n".join(out)


def osc52(text: str) -> bytes:
    """The OSC 52 sequence that puts ``text`` on the host terminal's clipboard."""
    data = base64.b64encode(text.encode("utf-8"))
    return b"\x1b]52;c;" + data + b"\x07"


# ------------------------------------------------------------------------- drawing


def paint(rows: Sequence[str], state: CopyState) -> tuple[str, ...]:
    """The viewport rows with the selection in reverse video and the copy cursor drawn:
    what the pane shows in copy mode (composed like any pane rows)."""
    sel = selection(state)
    width, height = state.width, state.height
    out = list(rows[:height]) + [""] * max(0, height - len(rows))
    for y in range(height):
        line = state.top + y
        span = sel.span(line, width) if sel is not None else None
        has_cursor = line == state.line
        if span is None and not has_cursor:
            continue
        cells = row_cells(strip_ansi(out[y]))
        cells += [" "] * max(0, width - len(cells))
        spans: list[tuple[int, int, str]] = []
        if span is not None:
            first, last = _widen(cells, span[0], min(span[1], width))
            spans.append((first, last, SELECT_SGR))
        if has_cursor:
            first, last = _widen(cells, state.col, state.col + 1)
            inside = span is not None and spans[0][0] <= first and last <= spans[0][1]
            style = CURSOR_IN_SELECTION_SGR if inside else CURSOR_SGR
            spans = [*_cut(spans, first, last), (first, last, style)]
        out[y] = restyle(out[y], width, spans)
    return tuple(out)


def _cut(spans: list[tuple[int, int, str]], first: int, last: int) -> list[tuple[int, int, str]]:
    """``spans`` minus the cells ``[first, last)``."""
    kept: list[tuple[int, int, str]] = []
    for a, b, style in spans:
        if a < first:
            kept.append((a, min(b, first), style))
        if b > last:
            kept.append((max(a, last), b, style))
    return kept


def restyle(row: str, width: int, spans: Sequence[tuple[int, int, str]]) -> str:
    """``row`` (ANSI) with each span ``[first, last)`` drawn as plain text in its own
    style; the rest keeps the row's styles. Spans must not overlap."""
    parts: list[str] = []
    col = 0
    for start, end, style in sorted(spans):
        first, last = max(start, col), min(end, width)
        if last <= first:
            continue
        if first > col:
            parts.append(slice_ansi(row, col, first - col))
        parts.append(style + strip_ansi(slice_ansi(row, first, last - first)) + RESET)
        col = last
    if col < width:
        parts.append(slice_ansi(row, col, width - col))
    return "".join(parts)
