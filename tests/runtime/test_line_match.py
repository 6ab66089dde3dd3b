"""Client line matchers: what they match, and that a slow regex stops instead of stalling."""

from __future__ import annotations

import pytest

from herdr.api.limits import MAX_PATTERN_CHARS
from herdr.runtime import line_match
from herdr.runtime.line_match import InvalidPattern, LineMatcher, MatchTimeout

CATASTROPHIC = r"^(a|a)*$"
BAD_LINE = "a" * 30 + "b"  # 2^30 ways to fail: minutes without a limit


@pytest.mark.parametrize(
    ("kind", "value", "text", "expected"),
    [
        ("substring", "done", "x\nall done\ndone again\n", "all done"),
        ("substring", "$", "no dollar\n", None),
        ("regex", r"^T\d+$", "T\nT12\nT3\n", "T12"),
        ("regex", r"(?i)ERROR", "ok\nan error here\n", "an error here"),
        ("regex", r"^$", "x\n\ny\n", ""),
        ("regex", CATASTROPHIC, "aaaa\n", "aaaa"),  # a short line is cheap, even for this
        ("regex", r"\bword\b", "words\na word.\n", "a word."),
    ],
    ids=["substring", "substring-none", "regex-anchored", "regex-flag", "empty-line",
         "catastrophic-short", "word-boundary"],
)  # fmt: skip
def test_first_matching_line(kind: str, value: str, text: str, expected: str | None) -> None:
    assert LineMatcher(kind, value).first_match(text) == expected


@pytest.mark.parametrize(
    "value",
    [
        r"(?:a{65535}){65535}",  # would never finish compiling
        r"a{1000}{1000}",
        r"x{1000000000}",
        r"(?=lookahead)",  # Rust has no look-around
        r"(unclosed",
        "a" * (MAX_PATTERN_CHARS + 1),
    ],
    ids=["nested-repeat", "repeat-repeat", "huge-count", "lookaround", "syntax", "too-long"],
)
def test_patterns_that_cannot_be_used_are_refused_up_front(value: str) -> None:
    with pytest.raises(InvalidPattern):
        LineMatcher("regex", value)


def test_a_long_substring_is_refused_too() -> None:
    with pytest.raises(InvalidPattern):
        LineMatcher("substring", "x" * (MAX_PATTERN_CHARS + 1))


def test_catastrophic_search_stops_with_the_per_search_reason() -> None:
    matcher = LineMatcher("regex", CATASTROPHIC)
    with pytest.raises(MatchTimeout) as caught:
        matcher.first_match(f"prompt\n{BAD_LINE}\n")
    assert caught.value.reason.startswith("searching one line took over 20 ms")


def test_many_slow_lines_stop_at_the_check_budget() -> None:
    """Each line alone is under the per-search limit; together they are not."""
    matcher = LineMatcher("regex", CATASTROPHIC)
    # 2^14 ways to fail a line: about a millisecond each, far over 50 ms for 500.
    text = "\n".join(["a" * 14 + "b"] * 500)
    with pytest.raises(MatchTimeout) as caught:
        matcher.first_match(text)
    assert caught.value.reason in {
        "checking the pane's text took over 50 ms",
        "searching one line took over 20 ms",  # only on a very slow or busy machine
    }


def test_a_matcher_that_used_its_share_is_refused_before_searching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(line_match, "CPU_SHARE", 0.0)  # no refill
    monkeypatch.setattr(line_match, "CPU_BURST_S", 0.002)
    matcher = LineMatcher("regex", CATASTROPHIC)
    with pytest.raises(MatchTimeout) as first:
        matcher.first_match(BAD_LINE)
    with pytest.raises(MatchTimeout) as second:
        matcher.first_match("a cheap line")  # no search at all: the credit is gone
    assert first.value.reason.startswith("it used more than")
    assert second.value.reason == first.value.reason


def test_equal_patterns_share_a_key() -> None:
    assert LineMatcher("regex", "x+").key == LineMatcher("regex", "x+").key
    assert LineMatcher("regex", "x").key != LineMatcher("substring", "x").key
