"""Region selectors: which slice of the screen (or OSC string) a rule looks at (§4.7).

Offsets reproduce the original's arithmetic exactly: "sum over preceding
``lines(S)`` of (line length + 1), capped at ``len(S)``" — in code points here,
bytes there, which is equivalent on the same text. That arithmetic is off by one
per CRLF line (vector R36); detection text never contains ``\\r``, and matching
the original bit for bit matters more than fixing it.

A :class:`ScreenView` computes the line split and its derived indices once, so
the many rules of one evaluation share that work.
"""

from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate

from msgspec import Struct

from herdr.detect.agents import WHITE_SPACE

# -- region names ----------------------------------------------------------------

WHOLE_RECENT = "whole_recent"
BOTTOM_LINES = "bottom_lines"
BOTTOM_NON_EMPTY_LINES = "bottom_non_empty_lines"
TOP_NON_EMPTY_LINES = "top_non_empty_lines"
AFTER_LAST_PROMPT_MARKER = "after_last_prompt_marker"
BEFORE_CURRENT_PROMPT_MARKER = "before_current_prompt_marker"
WHOLE_RECENT_WITHOUT_CURRENT_PROMPT_MARKER = "whole_recent_without_current_prompt_marker"
CURRENT_PROMPT_BLOCK_MARKER = "current_prompt_block_marker"
AFTER_CURRENT_PROMPT_BLOCK_MARKER = "after_current_prompt_block_marker"
PROMPT_BOX_BODY = "prompt_box_body"
ABOVE_PROMPT_BOX = "above_prompt_box"
LAST_NON_EMPTY_ABOVE_PROMPT_BOX = "last_non_empty_above_prompt_box"
AFTER_LAST_HORIZONTAL_RULE = "after_last_horizontal_rule"
OSC_TITLE = "osc_title"
OSC_PROGRESS = "osc_progress"

_PLAIN_NAMES = frozenset(
    {
        WHOLE_RECENT,
        AFTER_LAST_PROMPT_MARKER,
        BEFORE_CURRENT_PROMPT_MARKER,
        WHOLE_RECENT_WITHOUT_CURRENT_PROMPT_MARKER,
        CURRENT_PROMPT_BLOCK_MARKER,
        AFTER_CURRENT_PROMPT_BLOCK_MARKER,
        PROMPT_BOX_BODY,
        ABOVE_PROMPT_BOX,
        LAST_NON_EMPTY_ABOVE_PROMPT_BOX,
        AFTER_LAST_HORIZONTAL_RULE,
        OSC_TITLE,
        OSC_PROGRESS,
    }
)
_USIZE_MAX = 2**64 - 1
_TOP_MAX = 65535
_BLOCK_MARKERS = ("•", "■", "✗", "✓")
_RULE_CHAR = "─"


class Region(Struct, frozen=True):
    """A validated region selector; ``spec`` is the trimmed text (the per-evaluation cache key)."""

    name: str
    count: int | None
    spec: str


def _usize(text: str) -> int | None:
    """Rust ``str::parse::<usize>``: optional ``+``, ASCII digits, ≤ 2^64−1."""
    digits = text[1:] if text.startswith("+") else text
    if not digits or not (digits.isascii() and digits.isdigit()):
        return None
    value = int(digits)
    return value if value <= _USIZE_MAX else None


def _top_count(text: str) -> int | None:
    """``top_non_empty_lines`` counts: canonical decimal 1..=65535 only."""
    if not text or not (text.isascii() and text.isdigit()) or text.startswith("0"):
        return None
    value = int(text)
    return value if value <= _TOP_MAX else None


def _count_arg(spec: str, name: str) -> str | None:
    if spec.startswith(name + "(") and spec.endswith(")"):
        return spec[len(name) + 1 : -1]
    return None


def parse_region(spec: str) -> Region | None:
    """Parse a rule's ``region`` string (trimmed first); ``None`` when it is not valid."""
    trimmed = spec.strip(WHITE_SPACE)
    if trimmed in _PLAIN_NAMES:
        return Region(trimmed, None, trimmed)
    for name in (BOTTOM_LINES, BOTTOM_NON_EMPTY_LINES):
        arg = _count_arg(trimmed, name)
        if arg is not None:
            count = _usize(arg)
            return None if count is None else Region(name, count, trimmed)
    arg = _count_arg(trimmed, TOP_NON_EMPTY_LINES)
    if arg is not None:
        count = _top_count(arg)
        return None if count is None else Region(TOP_NON_EMPTY_LINES, count, trimmed)
    return None


# -- line primitives -----------------------------------------------------------


def rust_lines(text: str) -> list[str]:
    """Rust ``str::lines``: split on ``\\n``, no empty last line, strip ``\\r`` before ``\\n``."""
    if not text:
        return []
    parts = text.split("\n")
    terminated = parts[-1] == ""
    if terminated:
        parts.pop()
    if "\r" in text:
        last = len(parts) if terminated else len(parts) - 1
        for k in range(last):
            if parts[k].endswith("\r"):
                parts[k] = parts[k][:-1]
    return parts


def is_blank(line: str) -> bool:
    """True when the line is empty after Rust ``trim`` (Unicode White_Space)."""
    return not line.strip(WHITE_SPACE)


def is_horizontal_rule(line: str) -> bool:
    """A trimmed line of ``─`` (U+2500) optionally followed by text when there are ≥ 3."""
    trimmed = line.strip(WHITE_SPACE)
    if not trimmed.startswith(_RULE_CHAR):
        return False
    rest = trimmed.lstrip(_RULE_CHAR)
    rule_chars = len(trimmed) - len(rest)
    return rule_chars >= 3 or not rest.lstrip(WHITE_SPACE)


def is_codex_prompt_line(line: str) -> bool:
    return line == "›" or line.startswith("› ")


def is_codex_block_marker_line(line: str) -> bool:
    return line.startswith(_BLOCK_MARKERS)


# -- screen view -----------------------------------------------------------------

_CACHED_LINE_CHARS = 512
# Lower-casing non-ASCII text costs ~7 ns/char and consecutive snapshots of a pane
# share almost all lines, so lines are lower-cased through a bounded memo of the
# pure function ``str.lower``: 2048 lines of ≤ 512 characters (≤ 8 MiB even for
# astral text, typically well under 1 MiB). Enough for ~40 panes of 50 rows.
_lower_line = lru_cache(maxsize=2048)(str.lower)


def _lower_lines(lines: list[str], text: str) -> str:
    """``text.lower()`` computed from ``lines(text)`` (LF-only text), line by line.

    Exact: Unicode lower-casing is per character except final sigma, whose
    context never extends across ``\\n`` (neither cased nor case-ignorable).
    """
    lowered = "\n".join(
        [_lower_line(line) if len(line) <= _CACHED_LINE_CHARS else line.lower() for line in lines]
    )
    return lowered + "\n" if text.endswith("\n") else lowered


class ScreenView:
    """One screen snapshot with its line split and derived indices, computed on demand."""

    __slots__ = (
        "_current_prompt",
        "_current_prompt_known",
        "_lines",
        "_lower",
        "_nonblank",
        "_prefix",
        "_rules",
        "has_cr",
        "text",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        self.has_cr = "\r" in text
        self._lower: str | None = None
        self._nonblank: list[int] | None = None
        self._lines: list[str] | None = None
        self._prefix: list[int] | None = None
        self._rules: list[int] | None = None
        self._current_prompt: int | None = None
        self._current_prompt_known = False

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = rust_lines(self.text)
        return self._lines

    def lower_span(self, start: int, end: int) -> str:
        """``text[start:end].lower()`` for a span returned by a selector, cheaply.

        Spans start and end at line boundaries, so on LF-only text whose lower
        case has the same length, slicing the lower-cased screen is exact.
        """
        text = self.text
        if self.has_cr:
            return text[start:end].lower()
        if self._lower is None:
            self._lower = text.lower() if text.isascii() else _lower_lines(self.lines, text)
        lower = self._lower
        if len(lower) == len(text):
            return lower[start:end]
        return text[start:end].lower()

    @property
    def nonblank(self) -> list[int]:
        """Indices of the lines that are not blank (Rust ``trim`` is non-empty)."""
        if self._nonblank is None:
            # isspace() is a fast pre-check; only its rare hits need the exact White_Space test.
            self._nonblank = [
                k
                for k, line in enumerate(self.lines)
                if line and not (line.isspace() and not line.strip(WHITE_SPACE))
            ]
        return self._nonblank

    def line_start(self, index: int) -> int:
        """Offset of line ``index`` by the original's arithmetic, capped at ``len(S)``."""
        if self._prefix is None:
            self._prefix = list(accumulate(map(len, self.lines), initial=0))
        prefix = self._prefix
        index = min(index, len(prefix) - 1)
        return min(prefix[index] + index, len(self.text))

    @property
    def rule_indices(self) -> list[int]:
        """Indices of horizontal-rule lines, ascending."""
        if self._rules is None:
            # A rule's trimmed line starts with "─": look at the first character
            # (and strip only lines that start with whitespace).
            self._rules = [
                k
                for k, line in enumerate(self.lines)
                if line
                and (line[0] == _RULE_CHAR or (line[0] in WHITE_SPACE and _RULE_CHAR in line))
                and is_horizontal_rule(line)
            ]
        return self._rules

    def prompt_box_top(self) -> int | None:
        """The 2nd horizontal rule counted from the bottom (the prompt box's top border)."""
        rules = self.rule_indices
        return rules[-2] if len(rules) >= 2 else None

    def last_prompt_index(self) -> int | None:
        lines = self.lines
        for k in range(len(lines) - 1, -1, -1):
            if is_codex_prompt_line(lines[k]):
                return k
        return None

    def current_prompt_index(self) -> int | None:
        """The last codex prompt line, unless a block-marker line follows it."""
        if not self._current_prompt_known:
            index = self.last_prompt_index()
            if index is not None and any(
                is_codex_block_marker_line(line) for line in self.lines[index + 1 :]
            ):
                index = None
            self._current_prompt = index
            self._current_prompt_known = True
        return self._current_prompt

    def block_marker_above_current_prompt(self) -> int | None:
        prompt = self.current_prompt_index()
        if prompt is None:
            return None
        lines = self.lines
        for k in range(prompt - 1, -1, -1):
            if is_codex_block_marker_line(lines[k]):
                return k
        return None


# -- selectors ---------------------------------------------------------------------
#
# Screen selectors return a span ``(start, end)`` of the screen text, so the
# engine can slice the screen's lower-cased copy instead of lower-casing each
# region again. Single-line regions on CRLF text (where a line is not a slice at
# the computed offsets) return the line itself.

Span = tuple[int, int]


def _bottom_lines(view: ScreenView, count: int) -> Span:
    start = max(0, len(view.lines) - count)
    return view.line_start(start), len(view.text)


def _bottom_non_empty_lines(view: ScreenView, count: int) -> Span:
    nonblank = view.nonblank
    if count == 0 or not nonblank:
        return 0, 0
    first = nonblank[-count] if count <= len(nonblank) else nonblank[0]
    return view.line_start(first), len(view.text)


def _top_non_empty_lines(view: ScreenView, count: int) -> Span:
    nonblank = view.nonblank
    if count == 0 or not nonblank:
        return 0, 0
    last = nonblank[count - 1] if count <= len(nonblank) else nonblank[-1]
    return 0, view.line_start(last + 1)


def _line(view: ScreenView, index: int) -> Span | str:
    line = view.lines[index]
    if view.has_cr:
        return line
    start = view.line_start(index)
    return start, start + len(line)


def _after_last_prompt_marker(view: ScreenView) -> Span:
    index = view.last_prompt_index()
    return 0 if index is None else view.line_start(index + 1), len(view.text)


def _before_current_prompt_marker(view: ScreenView) -> Span:
    index = view.current_prompt_index()
    return 0, len(view.text) if index is None else view.line_start(index)


def _whole_recent_without_current_prompt_marker(view: ScreenView) -> Span:
    return (0, 0) if view.current_prompt_index() is not None else (0, len(view.text))


def _current_prompt_block_marker(view: ScreenView) -> Span | str:
    index = view.block_marker_above_current_prompt()
    return (0, 0) if index is None else _line(view, index)


def _after_current_prompt_block_marker(view: ScreenView) -> Span:
    index = view.block_marker_above_current_prompt()
    return (0, 0) if index is None else (view.line_start(index), len(view.text))


def _prompt_box_body(view: ScreenView) -> Span:
    top = view.prompt_box_top()
    if top is None:
        return 0, 0
    # The bottom border is the first rule below the top one (it exists: it was counted).
    bottom = next(k for k in view.rule_indices if k > top)
    return view.line_start(top + 1), view.line_start(bottom)


def _above_prompt_box(view: ScreenView) -> Span:
    top = view.prompt_box_top()
    return 0, len(view.text) if top is None else view.line_start(top)


def _last_non_empty_above_prompt_box(view: ScreenView) -> Span | str:
    top = view.prompt_box_top()
    if view.has_cr:
        start, end = _above_prompt_box(view)
        for line in reversed(rust_lines(view.text[start:end])):
            if not is_blank(line):
                return line
        return ""
    # lines(above) is a prefix of lines(S) on LF-only text: reuse the split.
    nonblank = view.nonblank
    k = len(nonblank) if top is None else bisect_left(nonblank, top)
    return _line(view, nonblank[k - 1]) if k > 0 else (0, 0)


def _after_last_horizontal_rule(view: ScreenView) -> Span:
    rules = view.rule_indices
    return 0 if not rules else view.line_start(rules[-1] + 1), len(view.text)


_SELECTORS = {
    AFTER_LAST_PROMPT_MARKER: _after_last_prompt_marker,
    BEFORE_CURRENT_PROMPT_MARKER: _before_current_prompt_marker,
    WHOLE_RECENT_WITHOUT_CURRENT_PROMPT_MARKER: _whole_recent_without_current_prompt_marker,
    CURRENT_PROMPT_BLOCK_MARKER: _current_prompt_block_marker,
    AFTER_CURRENT_PROMPT_BLOCK_MARKER: _after_current_prompt_block_marker,
    PROMPT_BOX_BODY: _prompt_box_body,
    ABOVE_PROMPT_BOX: _above_prompt_box,
    LAST_NON_EMPTY_ABOVE_PROMPT_BOX: _last_non_empty_above_prompt_box,
    AFTER_LAST_HORIZONTAL_RULE: _after_last_horizontal_rule,
}


def select_span(region: Region, view: ScreenView) -> Span | str:
    """The span of the screen a screen region covers (or the line, see above)."""
    name = region.name
    if name == WHOLE_RECENT:
        return 0, len(view.text)
    if name == BOTTOM_NON_EMPTY_LINES:
        return _bottom_non_empty_lines(view, region.count or 0)
    if name == BOTTOM_LINES:
        return _bottom_lines(view, region.count or 0)
    if name == TOP_NON_EMPTY_LINES:
        return _top_non_empty_lines(view, region.count or 0)
    return _SELECTORS[name](view)


def select(region: Region, view: ScreenView, osc_title: str, osc_progress: str) -> str:
    """The text a rule with ``region`` matches against."""
    if region.name == OSC_TITLE:
        return osc_title
    if region.name == OSC_PROGRESS:
        return osc_progress
    span = select_span(region, view)
    if isinstance(span, str):
        return span
    return view.text[span[0] : span[1]]


def region_text(spec: str, screen: str, osc_title: str = "", osc_progress: str = "") -> str:
    """Convenience: slice by a region string; an unknown name yields ``""`` (as at runtime)."""
    region = parse_region(spec)
    if region is None:
        return ""
    return select(region, ScreenView(screen), osc_title, osc_progress)
