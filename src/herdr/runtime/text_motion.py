"""Copy-mode text logic over plain rows: cells, vi word motions, paragraphs, search (PURE).

The server's ``pane.copy_motion`` and ``pane.copy_search`` read rows from the emulator
and hand them here. A point is ``(row, col)``: an absolute row of scrollback + screen
(0 = the oldest) and a *cell* column, so a wide (CJK) glyph covers two columns and a
combining mark none. Rows come as plain text (trailing blanks trimmed) with a flag for
a soft wrap into the next row: a wrapped row continues the same line, so words and
matches run across it, while a hard line end is whitespace.

Word classes follow herdr's copy mode: whitespace, ASCII punctuation ("separators"),
and everything else (letters, digits, ``_``, non-ASCII) is a word character. A WORD is
a run of non-whitespace.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Literal, TypeAlias

from wcwidth import wcwidth

Point: TypeAlias = tuple[int, int]
Direction: TypeAlias = Literal["forward", "backward"]

SEPARATORS: Final = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~")
PARAGRAPH_REACH: Final = 1000
"""Rows a paragraph motion looks at before giving up (and leaving the cursor)."""

WORD_MOTIONS: Final = frozenset(
    {
        "next_word_start",
        "previous_word_start",
        "next_word_end",
        "next_big_word_start",
        "previous_big_word_start",
        "next_big_word_end",
    }
)


class TextClass(IntEnum):
    WHITESPACE = 0
    SEPARATOR = 1
    WORD = 2


@dataclass(frozen=True, slots=True)
class TextRow:
    """One terminal row: its plain text and whether it soft-wraps into the next row."""

    text: str
    wrapped: bool = False


@dataclass(frozen=True, slots=True)
class Cell:
    """One glyph on a row: first and last column it covers, and its text."""

    col: int
    end_col: int
    text: str


def char_width(ch: str) -> int:
    """Cells one code point takes: 0 for combining marks, 2 for wide, else 1."""
    if " " <= ch < "\x7f":
        return 1
    width = wcwidth(ch)
    if width < 0:
        return 1  # a control the emulator kept: it still occupies its cell
    return width


def cells(text: str) -> list[Cell]:
    """The glyphs of a row; zero-width code points ride on the glyph before them."""
    if text.isascii():
        return [Cell(i, i, ch) for i, ch in enumerate(text)]
    out: list[Cell] = []
    col = 0
    for ch in text:
        width = char_width(ch)
        if width == 0:
            if out:
                last = out[-1]
                out[-1] = Cell(last.col, last.end_col, last.text + ch)
            continue
        out.append(Cell(col, col + width - 1, ch))
        col += width
    return out


def text_class(text: str) -> TextClass:
    ch = text[:1]
    if not ch or ch.isspace():
        return TextClass.WHITESPACE
    if ch in SEPARATORS:
        return TextClass.SEPARATOR
    return TextClass.WORD


# --- within one row ----------------------------------------------------------------------


def first_non_blank_col(text: str) -> int:
    """vi ``^``: the column of the row's first non-blank glyph (0 on a blank row)."""
    for cell in cells(text):
        if not cell.text.isspace():
            return cell.col
    return 0


def line_end_col(text: str) -> int:
    """vi ``$``: the column where the row's last glyph starts (0 on an empty row)."""
    row = cells(text.rstrip())
    return row[-1].col if row else 0


# --- words -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Atom:
    point: Point | None  # None: a hard line end (whitespace with no cell of its own)
    end_col: int
    cls: TextClass


def _atoms(rows: Sequence[TextRow], first_row: int) -> tuple[list[_Atom], list[int]]:
    """The atoms of ``rows`` and, per row, the index of its first atom."""
    atoms: list[_Atom] = []
    starts: list[int] = []
    for offset, row in enumerate(rows):
        y = first_row + offset
        starts.append(len(atoms))
        for cell in cells(row.text):
            atoms.append(_Atom((y, cell.col), cell.end_col, text_class(cell.text)))
        if not row.wrapped:
            atoms.append(_Atom(None, 0, TextClass.WHITESPACE))
    starts.append(len(atoms))
    return atoms, starts


def _atom_at(atoms: Sequence[_Atom], starts: Sequence[int], offset: int, col: int) -> int | None:
    """The atom under column ``col`` of row ``offset``; past the row's text, the first
    atom after its glyphs (its line end, or the next row's start when it wraps)."""
    begin, end = starts[offset], starts[offset + 1]
    for index in range(begin, end):
        atom = atoms[index]
        if atom.point is None:
            return index
        if atom.point[1] <= col <= atom.end_col:
            return index
        if atom.point[1] > col:
            return index  # a gap the text does not show (cannot happen with cells())
    return end if end < len(atoms) else None


def word_motion(rows: Sequence[TextRow], first_row: int, point: Point, motion: str) -> Point | None:
    """Where a vi word motion from ``point`` lands within ``rows`` (``first_row`` is the
    absolute row of ``rows[0]``); None when there is nowhere to go in them."""
    offset = point[0] - first_row
    if not 0 <= offset < len(rows):
        return None
    atoms, starts = _atoms(rows, first_row)
    current = _atom_at(atoms, starts, offset, point[1])
    if current is None:
        return None
    big = "big" in motion
    if motion.startswith("next") and motion.endswith("start"):
        return _next_start(atoms, current, big)
    if motion.startswith("previous"):
        return _previous_start(atoms, current, big)
    return _next_end(atoms, current, big)


def _same(a: TextClass, b: TextClass, big: bool) -> bool:
    if big:
        return (a == TextClass.WHITESPACE) == (b == TextClass.WHITESPACE)
    return a == b


def _next_start(atoms: Sequence[_Atom], current: int, big: bool) -> Point | None:
    cls = atoms[current].cls
    index = current + 1
    if cls != TextClass.WHITESPACE:
        while index < len(atoms) and _same(atoms[index].cls, cls, big):
            index += 1
    while index < len(atoms) and atoms[index].cls == TextClass.WHITESPACE:
        index += 1
    while index < len(atoms):
        found = atoms[index].point
        if found is not None:
            return found
        index += 1
    return None


def _previous_start(atoms: Sequence[_Atom], current: int, big: bool) -> Point | None:
    index = current - 1
    while index >= 0 and atoms[index].cls == TextClass.WHITESPACE:
        index -= 1
    if index < 0:
        return None
    cls = atoms[index].cls
    while index > 0 and _same(atoms[index - 1].cls, cls, big):
        index -= 1
    return _point_at_or_before(atoms, index)


def _next_end(atoms: Sequence[_Atom], current: int, big: bool) -> Point | None:
    index = current + 1
    while index < len(atoms) and atoms[index].cls == TextClass.WHITESPACE:
        index += 1
    if index >= len(atoms):
        return None
    cls = atoms[index].cls
    while index + 1 < len(atoms) and _same(atoms[index + 1].cls, cls, big):
        index += 1
    return _point_at_or_before(atoms, index)


def _point_at_or_before(atoms: Sequence[_Atom], index: int) -> Point | None:
    while index >= 0:
        found = atoms[index].point
        if found is not None:
            return found
        index -= 1
    return None


def is_final_point(rows: Sequence[TextRow], first_row: int, point: Point) -> bool:
    """Whether ``point`` is the start of the last glyph in ``rows`` (a word end found
    there may continue in rows not read yet)."""
    for offset in range(len(rows) - 1, -1, -1):
        row = cells(rows[offset].text)
        if row:
            return point == (first_row + offset, row[-1].col)
    return False


# --- paragraphs ---------------------------------------------------------------------------


def is_blank(text: str) -> bool:
    return not text or text.isspace()


def paragraph_row(rows: Sequence[str], first_row: int, row: int, step: int) -> int | None:
    """The nearest blank row after (``step`` 1) or before (-1) absolute ``row`` within
    :data:`PARAGRAPH_REACH` rows; ``rows`` are the rows from absolute ``first_row`` on.
    None when there is none (vi would stop at the buffer's edge; herdr stays put)."""
    for distance in range(1, PARAGRAPH_REACH):
        offset = row - first_row + step * distance
        if not 0 <= offset < len(rows):
            return None
        if is_blank(rows[offset]):
            return first_row + offset
    return None


# --- search -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SearchWindow:
    """Up to ``limit`` matches around the current one; ``total`` counts every match."""

    matches: list[tuple[Point, Point]]
    total: int
    current: int | None
    current_global: int | None


def _fold(text: str) -> str:
    """Lower case that keeps every index where it is (a 1:1 map per code point)."""
    if text.isascii():
        return text.lower()
    out = []
    for ch in text:
        low = ch.lower()
        out.append(low if len(low) == 1 else ch)
    return "".join(out)


class _Line:
    """A logical line (soft-wrapped rows joined) and how to map indices to cells."""

    __slots__ = ("_spans", "rows", "text")

    def __init__(self, first_row: int, parts: list[str]) -> None:
        self.rows = (first_row, parts)
        self.text = "".join(parts).rstrip()
        self._spans: list[tuple[int, Point, Point] | None] | None = None

    def spans(self) -> list[tuple[int, Point, Point] | None]:
        """Per code point: (index of its glyph's first code point, start, end), or
        None past the text."""
        if self._spans is None:
            spans: list[tuple[int, Point, Point] | None] = []
            y, parts = self.rows
            for offset, part in enumerate(parts):
                index = len(spans)
                for cell in cells(part):
                    width = len(cell.text)
                    start = index
                    for _ in range(width):
                        spans.append((start, (y + offset, cell.col), (y + offset, cell.end_col)))
                    index += width
            self._spans = spans
        return self._spans

    def to_range(self, start: int, end: int) -> tuple[Point, Point] | None:
        """Cell range of ``text[start:end]``; None if it splits a glyph."""
        y, parts = self.rows
        if self.text.isascii() and len(parts) == 1:
            return (y, start), (y, end - 1)
        spans = self.spans()
        if end > len(spans):
            return None
        first, last = spans[start], spans[end - 1]
        if first is None or last is None or first[0] != start:
            return None
        if end < len(spans):
            after = spans[end]
            if after is not None and after[0] != end:
                return None
        return first[1], last[2]


def logical_lines(rows: Sequence[TextRow], first_row: int = 0) -> list[_Line]:
    lines: list[_Line] = []
    parts: list[str] = []
    start = first_row
    for offset, row in enumerate(rows):
        if not parts:
            start = first_row + offset
        parts.append(row.text)
        if not row.wrapped:
            lines.append(_Line(start, parts))
            parts = []
    if parts:
        lines.append(_Line(start, parts))
    return lines


def smartcase(query: str) -> bool:
    """Case-sensitive only when the query has an upper-case letter (herdr, vim smartcase)."""
    return any(ch.isupper() for ch in query)


def _find_all(lines: Sequence[_Line], query: str) -> list[tuple[Point, Point]]:
    sensitive = smartcase(query)
    needle = query if sensitive else _fold(query)
    found: list[tuple[Point, Point]] = []
    for line in lines:
        if len(line.text) < len(needle):
            continue
        hay = line.text if sensitive else _fold(line.text)
        at = hay.find(needle)
        while at >= 0:
            span = line.to_range(at, at + len(needle))
            if span is not None:
                found.append(span)
            at = hay.find(needle, at + len(needle))
    return found


def search(
    rows: Sequence[TextRow],
    query: str,
    direction: Direction,
    cursor: Point,
    *,
    previous: tuple[Point, Point] | None,
    limit: int,
) -> SearchWindow:
    """Literal, smartcase search of ``rows`` (row 0 first) for ``query``.

    The current match is the first one starting after the cursor (forward) or the
    last one ending before it (backward), wrapping around; ``previous`` (the match the
    client is on) moves the origin past it so repeating the search steps along.
    """
    if not query or limit <= 0:
        return SearchWindow([], 0, None, None)
    found = _find_all(logical_lines(rows), query)
    total = len(found)
    if total == 0:
        return SearchWindow([], 0, None, None)
    target: int | None = None
    if direction == "forward":
        origin = previous[1] if previous is not None else cursor
        target = next((i for i, (start, _) in enumerate(found) if start > origin), 0)
    else:
        origin = previous[0] if previous is not None else cursor
        target = next((i for i in range(total - 1, -1, -1) if found[i][1] < origin), total - 1)
    retained = min(limit, total)
    first = min(max(0, target - retained // 2), total - retained)
    return SearchWindow(found[first : first + retained], total, target - first, target)
