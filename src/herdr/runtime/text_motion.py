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

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from enum import IntEnum
from typing import Final, Literal, TypeAlias

from msgspec import Struct

from herdr.runtime.cell_width import wcwidth

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


class TextRow(Struct, frozen=True):
    """One terminal row: its plain text and whether it soft-wraps into the next row."""

    text: str
    wrapped: bool = False


class Cell(Struct, frozen=True):
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

WORD_REACH: Final = 512
"""Rows a word motion reads past the cursor's row: a "word" longer than that (a
soft-wrapped blob) ends there, so one keypress never walks a whole scrollback."""


_Pos: TypeAlias = tuple[int, int]  # (row offset in the rows handed in, atom index)

# One class letter per atom: " " whitespace (and a hard line end), "." separator, "w" word.
_WS, _SEP, _WORD = " ", ".", "w"


class _ClassTable(dict[int, str | None]):
    """``str.translate`` table: a code point to its class letter, or None (deleted) for
    a zero-width one, which rides on the glyph before it: one letter per glyph."""

    LIMIT = 65_536  # distinct code points remembered (a pane may print all of them)

    def __missing__(self, code: int) -> str | None:
        ch = chr(code)
        letter = None if char_width(ch) == 0 else " .w"[text_class(ch)]
        if len(self) < self.LIMIT:
            self[code] = letter
        return letter


_CLASSES: Final = _ClassTable()


class _Text:
    """The rows as atoms (one per glyph, one per hard line end), a row at a time as a
    motion walks over them, each row a string of class letters made by
    ``str.translate``: runs are skipped with ``lstrip``/``rstrip``, so a long word costs
    C time, not a Python step per cell. Cell columns are worked out only for the rows
    where the motion starts and lands."""

    __slots__ = ("_glyphs", "_letters", "first_row", "rows")

    def __init__(self, rows: Sequence[TextRow], first_row: int) -> None:
        self.rows = rows
        self.first_row = first_row
        self._letters: dict[int, str] = {}
        self._glyphs: dict[int, list[Cell]] = {}

    def _row(self, offset: int) -> str:
        found = self._letters.get(offset)
        if found is None:
            row = self.rows[offset]
            found = row.text.translate(_CLASSES) + ("" if row.wrapped else _WS)
            self._letters[offset] = found
        return found

    def _cells(self, offset: int) -> list[Cell] | None:
        """The row's glyphs, or None for ASCII (the index is the column)."""
        text = self.rows[offset].text
        if text.isascii():
            return None
        found = self._glyphs.get(offset)
        if found is None:
            found = self._glyphs[offset] = cells(text)
        return found

    def letter(self, pos: _Pos) -> str:
        return self._row(pos[0])[pos[1]]

    def point(self, pos: _Pos) -> Point | None:
        offset, index = pos
        glyphs = self._cells(offset)
        y = self.first_row + offset
        if glyphs is None:
            if index >= len(self.rows[offset].text):
                return None
            return y, index
        return (y, glyphs[index].col) if index < len(glyphs) else None

    def skip(self, pos: _Pos | None, step: int, letters: str) -> _Pos | None:
        """From ``pos`` on (``step`` 1) or back (-1), the first atom whose class letter
        is not in ``letters``; None past the rows."""
        while pos is not None:
            offset, index = pos
            row = self._row(offset)
            if step > 0:
                rest = row[index:].lstrip(letters)
                if rest:
                    return offset, len(row) - len(rest)
                pos = self._first_after(offset)
            else:
                rest = row[: index + 1].rstrip(letters)
                if rest:
                    return offset, len(rest) - 1
                pos = self._last_before(offset)
        return None

    def step(self, pos: _Pos, step: int) -> _Pos | None:
        offset, index = pos[0], pos[1] + step
        if 0 <= index < len(self._row(offset)):
            return offset, index
        return self._first_after(offset) if step > 0 else self._last_before(offset)

    def _first_after(self, offset: int) -> _Pos | None:
        for later in range(offset + 1, len(self.rows)):
            if self._row(later):
                return later, 0
        return None

    def _last_before(self, offset: int) -> _Pos | None:
        for earlier in range(offset - 1, -1, -1):
            letters = self._row(earlier)
            if letters:
                return earlier, len(letters) - 1
        return None

    def locate(self, offset: int, col: int) -> _Pos | None:
        """The atom under column ``col``; past the row's text, the first atom after its
        glyphs (its line end, or the next row's first glyph when it wraps)."""
        letters, glyphs = self._row(offset), self._cells(offset)
        if glyphs is None:
            index = min(col, len(self.rows[offset].text))
        else:
            index = next((i for i, c in enumerate(glyphs) if col <= c.end_col), len(glyphs))
        if index < len(letters):
            return offset, index
        return self._first_after(offset)


def word_motion(rows: Sequence[TextRow], first_row: int, point: Point, motion: str) -> Point | None:
    """Where a vi word motion from ``point`` lands within ``rows`` (``first_row`` is the
    absolute row of ``rows[0]``); None when there is nowhere to go in them."""
    offset = point[0] - first_row
    if not 0 <= offset < len(rows):
        return None
    text = _Text(rows, first_row)
    current = text.locate(offset, point[1])
    if current is None:
        return None
    big = "big" in motion
    if motion.startswith("next") and motion.endswith("start"):
        found = _next_start(text, current, big)
    elif motion.startswith("previous"):
        found = _edge(text, text.skip(text.step(current, -1), -1, _WS), -1, big)
    else:
        found = _edge(text, text.skip(text.step(current, 1), 1, _WS), 1, big)
    return None if found is None else text.point(found)


def _run(letter: str, big: bool) -> str:
    """The class letters that continue a word (or WORD) of ``letter``."""
    if letter == _WS:
        return _WS
    return _SEP + _WORD if big else letter


def _next_start(text: _Text, current: _Pos, big: bool) -> _Pos | None:
    letter = text.letter(current)
    pos = text.step(current, 1)
    if letter != _WS:
        pos = text.skip(pos, 1, _run(letter, big))
    return text.skip(pos, 1, _WS)


def _edge(text: _Text, pos: _Pos | None, step: int, big: bool) -> _Pos | None:
    """The last atom of the word at ``pos`` going ``step``: a start (-1) or an end (1)."""
    if pos is None:
        return None
    past = text.skip(pos, step, _run(text.letter(pos), big))
    if past is None:  # the word runs to the edge of the rows
        return _extreme(text, step)
    return text.step(past, -step)


def _extreme(text: _Text, step: int) -> _Pos | None:
    if step > 0:
        return text._last_before(len(text.rows))
    return text._first_after(-1)


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


class SearchWindow(Struct, frozen=True):
    """Up to ``limit`` matches around the current one; ``total`` counts every match."""

    matches: list[tuple[Point, Point]]
    total: int
    current: int | None
    current_global: int | None


def _fold(text: str) -> str:
    """Lower case that keeps every index where it is (a 1:1 map per code point)."""
    low = text.lower()
    if len(low) == len(text):  # lower() never shortens a code point: 1:1
        return low
    return "".join(low if len(low := ch.lower()) == 1 else ch for ch in text)


class _WidthTable(dict[int, str]):
    """``str.translate`` table: a code point to as many ``x`` as cells it takes, so
    ``len(text.translate(_WIDTHS))`` is a width computed in C."""

    LIMIT = 65_536

    def __missing__(self, code: int) -> str:
        cells_of = "x" * char_width(chr(code))
        if len(self) < self.LIMIT:
            self[code] = cells_of
        return cells_of


_WIDTHS: Final = _WidthTable()


def _width(text: str) -> int:
    return len(text) if text.isascii() else len(text.translate(_WIDTHS))


class _MaskTable(dict[int, str]):
    """``str.translate`` table: ``0`` for a zero-width code point, ``1`` for a glyph."""

    LIMIT = 65_536

    def __missing__(self, code: int) -> str:
        mark = "0" if char_width(chr(code)) == 0 else "1"
        if len(self) < self.LIMIT:
            self[code] = mark
        return mark


_MASK: Final = _MaskTable()


class _Line:
    """A logical line (soft-wrapped rows joined) and how to map indices to cells.

    A wrapped row is padded back to ``cols`` cells (its trailing blanks were trimmed):
    "ab  " wrapped before "cd" must not read as "abcd". A zero-width code point rides
    on the glyph before it; ``mask`` marks glyph starts (None when every code point is
    one, the common case), so a match that would split a glyph is told in O(1)."""

    __slots__ = ("first_row", "last_row", "mask", "parts", "starts", "text")

    def __init__(self, first_row: int, parts: list[str]) -> None:
        self.first_row = first_row
        self.last_row = first_row + len(parts) - 1
        self.parts = parts
        self.text = "".join(parts).rstrip()
        self.starts: list[int] = []
        at = 0
        for part in parts:
            self.starts.append(at)
            at += len(part)
        mask = None if self.text.isascii() else self.text.translate(_MASK)
        self.mask = mask if mask is not None and "0" in mask else None

    def valid(self, start: int, end: int) -> bool:
        """Whether ``text[start:end]`` is whole glyphs."""
        mask = self.mask
        return mask is None or (mask[start] == "1" and (end >= len(mask) or mask[end] == "1"))

    def start_point(self, index: int) -> Point:
        part = bisect_right(self.starts, index) - 1
        offset = index - self.starts[part]
        return self.first_row + part, _width(self.parts[part][:offset])

    def end_point(self, index: int) -> Point:
        """Last cell of the glyph that code point ``index`` belongs to."""
        glyph = index if self.mask is None else max(0, self.mask.rfind("1", 0, index + 1))
        row, col = self.start_point(glyph)
        return row, col + max(1, char_width(self.text[glyph])) - 1

    def count_before(self, origin: Point, *, by_end: bool) -> int:
        """Code points of the glyphs that start at or before ``origin`` (``by_end``:
        that end before it): a prefix of the line."""
        row, col = origin
        if row < self.first_row:
            return 0
        if row > self.last_row:
            return len(self.text)
        part = row - self.first_row
        text = self.parts[part]
        if text.isascii():
            inside = min(col if by_end else col + 1, len(text))
        else:
            inside, at = 0, 0
            for ch in text:
                width = char_width(ch)
                if width == 0:  # rides on the glyph before: in if that glyph is
                    if inside:
                        inside += 1
                    continue
                if (at + width - 1 >= col) if by_end else (at > col):
                    break
                inside += 1
                at += width
        return min(self.starts[part] + inside, len(self.text))


def logical_lines(rows: Sequence[TextRow], cols: int, first_row: int = 0) -> list[_Line]:
    lines: list[_Line] = []
    parts: list[str] = []
    start = first_row
    for offset, row in enumerate(rows):
        if not parts:
            start = first_row + offset
        if row.wrapped:
            gap = max(0, cols - _width(row.text))
            after = rows[offset + 1].text[:1] if offset + 1 < len(rows) else ""
            if gap == 1 and after and char_width(after) == 2:
                gap = 0  # the last cell is the spacer of a wide glyph moved to the next row
            parts.append(row.text + " " * gap)
            continue
        parts.append(row.text)
        lines.append(_Line(start, parts))
        parts = []
    if parts:
        lines.append(_Line(start, parts))
    return lines


def smartcase(query: str) -> bool:
    """Case-sensitive only when the query has an upper-case letter (herdr, vim smartcase)."""
    return any(ch.isupper() for ch in query)


class _Matcher:
    """Non-overlapping literal matches of one needle, line by line (as a regex
    ``find_iter`` would find them); a match that splits a glyph is skipped. Lines whose
    code points are all glyphs are counted with ``str.count`` (C speed)."""

    def __init__(self, query: str) -> None:
        self.sensitive = smartcase(query)
        self.needle = query if self.sensitive else _fold(query)

    def hay(self, line: _Line) -> str:
        return line.text if self.sensitive else _fold(line.text)

    def count(self, line: _Line, hay: str, end: int | None = None) -> int:
        """Matches that end by index ``end`` (all of them by default)."""
        limit = len(hay) if end is None else end
        if line.mask is None:
            return hay.count(self.needle, 0, limit)
        return sum(1 for _, b in self._valid(line, hay) if b <= limit)

    def _valid(self, line: _Line, hay: str) -> Iterator[tuple[int, int]]:
        needle = self.needle
        at = hay.find(needle)
        while at >= 0:
            end = at + len(needle)
            if line.valid(at, end):
                yield at, end
            at = hay.find(needle, end)

    def current(self, line: _Line, hay: str, origin: Point, direction: Direction) -> int:
        """How many of the line's matches come before the current one: forward, those
        starting at or before ``origin``; backward, those ending before it."""
        if direction == "backward":
            return self.count(line, hay, line.count_before(origin, by_end=True))
        before = line.count_before(origin, by_end=False)
        if line.mask is None:
            return hay.count(self.needle, 0, before - 1 + len(self.needle)) if before else 0
        return sum(1 for a, _ in self._valid(line, hay) if a < before)

    def spans_from(self, line: _Line, hay: str, skip: int) -> Iterator[tuple[Point, Point]]:
        """The line's matches after the first ``skip`` ones."""
        if line.mask is None:
            needle = self.needle
            at = self._nth(hay, skip)
            while at >= 0:
                yield line.start_point(at), line.end_point(at + len(needle) - 1)
                at = hay.find(needle, at + len(needle))
            return
        for index, (a, b) in enumerate(self._valid(line, hay)):
            if index >= skip:
                yield line.start_point(a), line.end_point(b - 1)

    def _nth(self, hay: str, n: int) -> int:
        """Where match ``n`` (0-based) starts: a binary search on ``str.count``."""
        if n == 0:
            return hay.find(self.needle)
        low, high = 0, len(hay)  # the smallest prefix holding n + 1 matches
        while low < high:
            mid = (low + high) // 2
            if hay.count(self.needle, 0, mid) >= n + 1:
                high = mid
            else:
                low = mid + 1
        return low - len(self.needle)


def search(
    rows: Sequence[TextRow],
    query: str,
    direction: Direction,
    cursor: Point,
    *,
    previous: tuple[Point, Point] | None,
    limit: int,
    cols: int,
) -> SearchWindow:
    """Literal, smartcase search of ``rows`` (row 0 first, ``cols`` wide) for ``query``.

    The current match is the first one starting after the cursor (forward) or the
    last one ending before it (backward), wrapping around; ``previous`` (the match the
    client is on) moves the origin past it so repeating the search steps along. Work
    and memory follow the lines and the ``limit`` matches returned, not the number of
    matches: lines are counted with ``str.count``.
    """
    if not query or limit <= 0:
        return SearchWindow([], 0, None, None)
    matcher = _Matcher(query)
    if direction == "forward":
        origin = previous[1] if previous is not None else cursor
    else:
        origin = previous[0] if previous is not None else cursor
    lines = [line for line in logical_lines(rows, cols) if len(line.text) >= len(query)]
    hays = [matcher.hay(line) for line in lines]
    counts = [matcher.count(line, hay) for line, hay in zip(lines, hays, strict=True)]
    total = sum(counts)
    if total == 0:
        return SearchWindow([], 0, None, None)
    before = 0  # matches before the current one
    for line, hay, count in zip(lines, hays, counts, strict=True):
        if line.last_row < origin[0]:
            before += count
        elif line.first_row <= origin[0]:
            before += matcher.current(line, hay, origin, direction)
    if direction == "forward":
        target = before if before < total else 0
    else:
        target = before - 1 if before > 0 else total - 1
    retained = min(limit, total)
    first = min(max(0, target - retained // 2), total - retained)
    window = _collect(lines, hays, counts, matcher=matcher, first=first, end=first + retained)
    return SearchWindow(window, total, target - first, target)


def _collect(
    lines: Sequence[_Line],
    hays: Sequence[str],
    counts: Sequence[int],
    *,
    matcher: _Matcher,
    first: int,
    end: int,
) -> list[tuple[Point, Point]]:
    """Matches ``first..end-1`` in order, walking only the lines that hold them."""
    found: list[tuple[Point, Point]] = []
    index = 0
    for line, hay, count in zip(lines, hays, counts, strict=True):
        if index + count <= first:
            index += count
            continue
        for span in matcher.spans_from(line, hay, max(0, first - index)):
            found.append(span)
            if len(found) >= end - first:
                return found
        index += count
    return found
