"""Compiled gates and their matching semantics (detection-spec §4.4).

A gate matches iff every ``contains`` needle is in the lower-cased region text,
every ``regex`` finds a match, every ``line_regex`` matches some line, every
``all`` child matches, some ``any`` child matches (when there are any), and no
``not`` child matches — evaluated in that order, short-circuiting.

Every search is bounded: ``regex`` backtracks, so a catastrophic pattern from an
override or remote manifest (or a bundled one on a hostile screen) must not hang
the server. Each search gets a timeout and the whole evaluation shares a
:class:`SearchBudget`; a search that runs out of time counts as "no match"
(inside a ``not`` gate that makes the ``not`` child fail to match, exactly as
any other non-matching child would). ``regex`` measures its timeout in process
CPU time, so under CPU contention the wall time can be longer.

Timeouts cost a few microseconds per search, so searches are avoided where
that is sound: a literal every match must contain is checked first, and each
``line_regex`` is one search over the whole region (see :class:`LinePattern`).
"""

from __future__ import annotations

from time import perf_counter

import regex
from msgspec import Struct

from herdr.detect.manifest.regions import ScreenView, Span, rust_lines

PER_SEARCH_TIMEOUT_S = 0.05
"""Upper bound for one regex search (seconds)."""

EVALUATION_BUDGET_S = 0.25
"""Upper bound for all regex searching in one evaluation; later searches count as no match."""

_LINE_CHECK_EVERY = 256  # lines between deadline checks in per-line loops


class RegexMatcher(Struct, frozen=True, eq=False):
    """A ``regex`` matcher; with ``newline_lead`` it searches ``"\\n" + text`` (see dialect)."""

    source: str
    pattern: regex.Pattern[str]
    newline_lead: bool
    required: tuple[str, ...] = ()
    """Literals every match contains: one missing from the text means no match, no search."""
    untimed_max_len: int = 0
    """Texts up to this length are searched without a timeout (provably cheap)."""

    def absent_literal(self, text: str) -> bool:
        return any(literal not in text for literal in self.required)


class LinePattern(Struct, frozen=True, eq=False):
    """A ``line_regex``: ``exact`` runs per line; ``relaxed`` filters a whole region at once.

    ``relaxed`` uses line anchors, so each per-line match is also a relaxed match
    on the joined text: no relaxed match ⇒ no line matches (one search instead
    of one per line, which keeps evaluation fast).
    """

    source: str
    exact: RegexMatcher
    relaxed: RegexMatcher


class Gate(Struct, frozen=True, eq=False):
    """A validated, compiled gate; ``contains`` needles are already lower-cased."""

    contains: tuple[str, ...]
    regex: tuple[RegexMatcher, ...]
    line_regex: tuple[LinePattern, ...]
    all: tuple[Gate, ...]
    any: tuple[Gate, ...]
    not_: tuple[Gate, ...]


class RegionText:
    """One region's text and its derived forms, each computed at most once.

    Built from a screen span (lower case comes from the screen's lower-cased
    copy) or from a plain string (OSC regions, CRLF single lines).
    """

    __slots__ = ("_lines", "_lower", "_nl_text", "_span", "_view", "found", "has_cr", "text")

    def __init__(self, text: str, view: ScreenView | None = None, span: Span = (0, 0)) -> None:
        self.text = text
        # A slice of a CR-free screen is CR-free: skip the scan.
        self.has_cr = view.has_cr if view is not None else "\r" in text
        self.found: dict[str, bool] = {}  # contains needle -> present (rules share needles)
        self._view = view
        self._span = span
        self._lower: str | None = None
        self._lines: list[str] | None = None
        self._nl_text: str | None = None

    @classmethod
    def from_selection(cls, selection: Span | str, view: ScreenView) -> RegionText:
        if isinstance(selection, str):
            return cls(selection)
        start, end = selection
        return cls(view.text[start:end], view, selection)

    @property
    def lower(self) -> str:
        if self._lower is None:
            if self._view is not None:
                self._lower = self._view.lower_span(*self._span)
            else:
                self._lower = self.text.lower()
        return self._lower

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = rust_lines(self.text)
        return self._lines

    @property
    def nl_text(self) -> str:
        if self._nl_text is None:
            self._nl_text = "\n" + self.text
        return self._nl_text


class SearchAborted(Exception):
    """A search ran out of time (or failed inside the regex engine): treat as no match."""


class SearchBudget:
    """Time left for regex searching in one evaluation."""

    __slots__ = ("deadline",)

    def __init__(self, seconds: float = EVALUATION_BUDGET_S) -> None:
        self.deadline = perf_counter() + seconds

    def search(self, matcher: RegexMatcher, text: str) -> regex.Match[str] | None:
        """Search with a timeout; raises :class:`SearchAborted` instead of running long."""
        if len(text) <= matcher.untimed_max_len:
            # Provably cheap (see dialect): skip the timeout machinery, which costs
            # a few microseconds per search (it reads the process CPU clock).
            return matcher.pattern.search(text)
        remaining = self.deadline - perf_counter()
        if remaining <= 0:
            raise SearchAborted("evaluation budget exhausted")
        try:
            return matcher.pattern.search(text, timeout=min(PER_SEARCH_TIMEOUT_S, remaining))
        except Exception as err:  # TimeoutError, or anything else: never escape evaluate()
            raise SearchAborted(str(err)) from err

    def left(self) -> bool:
        """True while the evaluation deadline has not passed."""
        return perf_counter() < self.deadline


def _regex_matches(matcher: RegexMatcher, region: RegionText, budget: SearchBudget) -> bool:
    if matcher.required and matcher.absent_literal(region.text):
        return False
    text = region.nl_text if matcher.newline_lead else region.text
    try:
        return budget.search(matcher, text) is not None
    except SearchAborted:
        return False


def _line_matches(pattern: LinePattern, region: RegionText, budget: SearchBudget) -> bool:
    text = region.text
    if not text:
        return False  # no lines at all
    first = 0
    if not region.has_cr:  # CRLF lines are not slices of the text: no relaxed filter
        relaxed = pattern.relaxed
        if relaxed.required and relaxed.absent_literal(text):
            return False
        lead = 1 if relaxed.newline_lead else 0
        searched = region.nl_text if lead else text
        try:
            hit = budget.search(relaxed, searched)
        except SearchAborted:
            if not budget.left():
                return False
        else:
            if hit is None:
                return False
            # ``start`` is where the matched line begins in ``text`` (a lead "\n" precedes it).
            start, end = hit.span()
            if start == len(text) and text.endswith("\n"):
                return False  # only the empty remainder after the final "\n" matched
            if searched.find("\n", start + lead, end) < 0:
                return True  # confined to one line: that line matches exactly
            first = text.count("\n", 0, start)  # lines before cannot match
    exact = pattern.exact
    lines = region.lines
    for k in range(first, len(lines)):
        if (k - first) % _LINE_CHECK_EVERY == _LINE_CHECK_EVERY - 1 and not budget.left():
            return False
        try:
            if budget.search(exact, lines[k]) is not None:
                return True
        except SearchAborted:
            if not budget.left():
                return False
    return False


def gate_matches(gate: Gate, region: RegionText, budget: SearchBudget) -> bool:
    """Evaluate ``gate`` against one region (all children see the same text)."""
    if gate.contains:
        found = region.found
        for needle in gate.contains:
            hit = found.get(needle)
            if hit is None:
                hit = found[needle] = needle in region.lower
            if not hit:
                return False
    for matcher in gate.regex:
        if not _regex_matches(matcher, region, budget):
            return False
    for line_pattern in gate.line_regex:
        if not _line_matches(line_pattern, region, budget):
            return False
    for child in gate.all:
        if not gate_matches(child, region, budget):
            return False
    if gate.any:
        for child in gate.any:
            if gate_matches(child, region, budget):
                break
        else:
            return False
    return not (gate.not_ and any(gate_matches(child, region, budget) for child in gate.not_))
