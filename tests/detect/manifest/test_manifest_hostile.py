"""Hostile input: huge screens, control characters, catastrophic patterns — always bounded.

These tests assert results, never timings; the per-search timeout and the
evaluation budget are what guarantee that they finish.
"""

from __future__ import annotations

import pytest

from herdr.detect.manifest import (
    MAX_OSC_CHARS,
    MAX_SCREEN_CHARS,
    MAX_SCREEN_LINES,
    DetectionInput,
    evaluate,
    parse_manifest,
)
from herdr.detect.manifest.engine import cap_screen
from herdr.detect.manifest.regions import rust_lines

CATASTROPHIC = parse_manifest(
    r"""
id = "evil"

[[rules]]
id = "nested_quantifier"
state = "working"
priority = 30
regex = ['(x+x+)+y']

[[rules]]
id = "nested_line_quantifier"
state = "blocked"
priority = 20
line_regex = ['(\w+\s?)+$']

[[rules]]
id = "timeout_inside_not"
state = "idle"
priority = 10
contains = ["x"]
not = [{ regex = ['(x+x+)+y'] }]

[[rules]]
id = "plain"
state = "idle"
priority = 1
contains = ["marker"]
"""
)


@pytest.mark.parametrize(
    "screen",
    [
        "x" * 3000 + "!",
        ("word " * 600 + "!\n") * 20,
        "x" * 5_000_000 + "!",
    ],
    ids=["backtracking-regex", "backtracking-line-regex", "5MB-single-line"],
)
def test_catastrophic_patterns_count_as_no_match(screen: str) -> None:
    evaluation = evaluate(CATASTROPHIC, DetectionInput(screen))
    results = {r.rule.id: r.matched for r in evaluation.rule_results}
    assert not results["nested_quantifier"]
    assert not results["nested_line_quantifier"]
    # A timed-out search inside ``not`` is a non-matching child, like any other.
    assert results["timeout_inside_not"] is ("x" in screen)


def test_evaluation_budget_bounds_many_slow_rules() -> None:
    rules = "".join(
        f'[[rules]]\nid = "r{k}"\nstate = "working"\nregex = [\'(x+x+)+y{k}\']\n' for k in range(40)
    )
    manifest = parse_manifest('id = "evil"\n' + rules)
    evaluation = evaluate(manifest, DetectionInput("x" * 2000))
    assert evaluation.detection.state == "idle"
    assert not any(r.matched for r in evaluation.rule_results)


BUNDLED_STYLE = parse_manifest(
    r"""
id = "t"

[[rules]]
id = "prompt_box"
state = "idle"
region = "prompt_box_body"
line_regex = ['^\s*❯']

[[rules]]
id = "footer"
state = "working"
region = "bottom_non_empty_lines(3)"
line_regex = ['(?i).*opencode.*esc (again to )?interrupt']

[[rules]]
id = "top"
state = "blocked"
region = "top_non_empty_lines(20)"
regex = ['(?s)Do\s+you\s+trust']

[[rules]]
id = "tail"
state = "working"
region = "after_last_horizontal_rule"
contains = ["esc to interrupt"]
"""
)

HUGE = [
    ("5MB-no-newline", "y" * 5_000_000),
    ("5MB-newlines", "\n" * 5_000_000),
    ("5MB-control-chars", "".join(chr(k % 32) for k in range(5_000_000))),
    ("5MB-spaces", (" " * 199 + "\n") * 25_000),
    ("5MB-rules", ("─" * 199 + "\n") * 25_000),
    ("nul-and-escapes", "\x00\x1b[31m❯\x1b[0m\x07\r\n" * 100_000),
]


@pytest.mark.parametrize("screen", [h[1] for h in HUGE], ids=[h[0] for h in HUGE])
def test_huge_screens_are_bounded(screen: str) -> None:
    evaluation = evaluate(BUNDLED_STYLE, DetectionInput(screen, screen, screen))
    assert len(evaluation.rule_results) == 4
    for result in evaluation.rule_results:
        assert len(result.region_text) <= MAX_SCREEN_CHARS


def test_screen_tail_ending_with_the_signal_is_still_seen() -> None:
    screen = "noise\n" * 1_000_000 + "─" * 10 + "\nesc to interrupt\n"
    evaluation = evaluate(BUNDLED_STYLE, DetectionInput(screen))
    assert evaluation.winner is not None and evaluation.winner.id == "tail"


CAPS = [
    ("small-untouched", "a\nb\n", "a\nb\n"),
    ("line-cap-terminated", "".join(f"{k}\n" for k in range(3000)), None),
    ("line-cap-unterminated", "\n".join(str(k) for k in range(3000)), None),
]


@pytest.mark.parametrize(("screen", "expected"), [c[1:] for c in CAPS], ids=[c[0] for c in CAPS])
def test_cap_screen(screen: str, expected: str | None) -> None:
    capped = cap_screen(screen)
    if expected is not None:
        assert capped == expected
        return
    lines = rust_lines(capped)
    assert len(lines) == MAX_SCREEN_LINES
    assert lines == rust_lines(screen)[-MAX_SCREEN_LINES:]
    assert screen.endswith(capped)


def test_char_cap_starts_at_a_line() -> None:
    screen = "z" * 10 + "\n" + "a" * (MAX_SCREEN_CHARS - 5) + "\nlast\n"
    capped = cap_screen(screen)
    assert capped == "last\n"
    assert cap_screen("q" * (MAX_SCREEN_CHARS + 10)) == "q" * MAX_SCREEN_CHARS


def test_osc_strings_are_capped() -> None:
    manifest = parse_manifest(
        'id = "t"\n[[rules]]\nid = "r"\nregion = "osc_title"\nregex = [\'q\']\n'
    )
    result = evaluate(manifest, DetectionInput("", "x" * 10_000 + "q")).rule_results[0]
    assert not result.matched
    assert len(result.region_text) == MAX_OSC_CHARS


@pytest.mark.parametrize(
    "screen",
    ["\ud800 lone surrogate ❯\n", "\x00" * 100, "\x1b]0;title\x07\n", "\u2028\u2029\x85\n"],
    ids=["surrogate", "nuls", "escape-sequence", "unicode-line-separators"],
)
def test_odd_characters_never_raise(screen: str) -> None:
    evaluation = evaluate(BUNDLED_STYLE, DetectionInput(screen, screen, screen))
    assert len(evaluation.rule_results) == 4
