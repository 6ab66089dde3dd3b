"""A client's output matcher (``pane.wait_for_output``, ``pane.output_matched``), bounded.

The matcher runs in the server's only loop, and ``regex`` backtracks: ``^(a|a)*$`` on a
line of 30 ``a`` and a ``b`` would take minutes and stall every client. So a client
regex gets what the detection engine gives manifest patterns (the dialect's compile
size limit, a CPU-time limit per search) plus a length limit on the pattern, a budget
for one whole check of a pane's text, and a long-run share of the CPU. A matcher out of
time raises :class:`MatchTimeout` and is never searched again by its caller: a wait
fails with ``regex_timeout``, a subscription item ends.

Limits, in CPU seconds (``regex`` measures its timeout in process CPU time, so CPU
contention lengthens the wall time but not the work): a sane per-line pattern searches
a terminal line in microseconds, so 20 ms per search is a thousandfold margin, and the
50 ms per check caps how long one output change can hold every other client.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from herdr.api.limits import MAX_PATTERN_CHARS

if TYPE_CHECKING:
    import regex

PER_SEARCH_TIMEOUT_S = 0.02
"""Longest one search of one line may run."""

CHECK_BUDGET_S = 0.05
"""Longest one check (every line of the searched text) may run."""

CPU_SHARE = 0.25
"""Share of one core a matcher may use in the long run (checks repeat on every output
change): a pattern just under the limits above still cannot take the loop over."""

CPU_BURST_S = 0.5
"""Check time a matcher starts with and may save up (a burst of output after a lull)."""

_CHECK_EVERY = 32  # lines between budget checks when searches are not timed


class InvalidPattern(ValueError):
    """The pattern cannot be used: bad Rust syntax, unsupported, too long or too big."""


class MatchTimeout(Exception):
    """The matcher ran out of time; ``reason`` says which limit it hit."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class LineMatcher:
    """``substring``: a literal within one line; ``regex``: Rust syntax, per line."""

    __slots__ = ("_credit", "_pattern", "_required", "_stamp", "_untimed", "kind", "value")

    def __init__(self, kind: str, value: str) -> None:
        if len(value) > MAX_PATTERN_CHARS:
            raise InvalidPattern(f"pattern is longer than {MAX_PATTERN_CHARS} characters")
        self.kind = kind
        self.value = value
        self._pattern: regex.Pattern[str] | None = None
        self._required: tuple[str, ...] = ()
        self._untimed = 0
        self._credit = CPU_BURST_S
        self._stamp = time.monotonic()
        if kind == "regex":
            self._compile(value)

    def _compile(self, value: str) -> None:
        from herdr.detect.manifest.dialect import compile_translated, translate_pattern

        try:
            translation = translate_pattern(value)
            self._pattern = compile_translated(translation.text)
        except Exception as exc:  # RegexSyntaxError, RegexUnsupportedError, size limit
            raise InvalidPattern(str(exc)) from None
        self._required = translation.required
        self._untimed = translation.untimed_max_len

    @property
    def key(self) -> tuple[str, str]:
        """Matchers with equal keys accept the same lines (so their results can be shared)."""
        return self.kind, self.value

    def first_match(self, text: str) -> str | None:
        """The first line of ``text`` that matches; raises :class:`MatchTimeout`."""
        lines = text.splitlines()
        pattern = self._pattern
        if pattern is None:
            value = self.value
            return next((line for line in lines if value in line), None)
        now = time.monotonic()
        credit = min(CPU_BURST_S, self._credit + (now - self._stamp) * CPU_SHARE)
        self._stamp = now
        if credit <= 0:
            self._credit = credit
            raise MatchTimeout(_OVER_SHARE)
        if credit < CHECK_BUDGET_S:
            budget, over = credit, _OVER_SHARE
        else:
            budget, over = CHECK_BUDGET_S, _OVER_CHECK
        start = time.process_time()
        try:
            return self._search(pattern, lines, start + budget, over)
        finally:
            self._credit = credit - (time.process_time() - start)

    def _search(
        self, pattern: regex.Pattern[str], lines: list[str], deadline: float, over: str
    ) -> str | None:
        required = self._required
        untimed = self._untimed
        for k, line in enumerate(lines):
            if required and any(literal not in line for literal in required):
                continue
            if len(line) <= untimed:  # provably cheap (see the dialect): no timer
                if k % _CHECK_EVERY == _CHECK_EVERY - 1 and time.process_time() > deadline:
                    raise MatchTimeout(over)
                hit = pattern.search(line)
            else:
                left = deadline - time.process_time()
                if left <= 0:
                    raise MatchTimeout(over)
                try:
                    hit = pattern.search(line, timeout=min(PER_SEARCH_TIMEOUT_S, left))
                except TimeoutError:
                    raise MatchTimeout(
                        over if left < PER_SEARCH_TIMEOUT_S else _OVER_SEARCH
                    ) from None
            if hit is not None:
                return line
        return None


_OVER_SEARCH = f"searching one line took over {PER_SEARCH_TIMEOUT_S * 1000:.0f} ms"
_OVER_SHARE = f"it used more than {CPU_SHARE:.0%} of the server's time"
_OVER_CHECK = f"checking the pane's text took over {CHECK_BUDGET_S * 1000:.0f} ms"
