"""Gate semantics (§4.4) and rule selection, fallback, masking and skip (§3.3, §4.6)."""

from __future__ import annotations

import pytest

from herdr.detect.manifest import (
    DEFAULT_KNOWN_AGENT_IDLE_FALLBACK,
    AgentDetection,
    DetectionInput,
    Manifest,
    detect,
    evaluate,
    parse_manifest,
)


def one_rule(body: str, region: str = "whole_recent") -> Manifest:
    return parse_manifest(
        f'id = "t"\n[[rules]]\nid = "r"\nstate = "idle"\nregion = "{region}"\n{body}\n'
    )


def matches(body: str, screen: str, region: str = "whole_recent") -> bool:
    return evaluate(one_rule(body, region), DetectionInput(screen)).rule_results[0].matched


GATES = [
    ("contains-case-insensitive", 'contains = ["Esc To CANCEL"]', "press esc to cancel", True),
    ("contains-lowers-text", 'contains = ["esc"]', "PRESS ESC", True),
    ("contains-unicode-lower", 'contains = ["STRASSE"]', "strasse", True),
    ("contains-full-lowercase", 'contains = ["i̇x"]', "İX", True),  # İ lower-cases to i + U+0307
    ("contains-no-case-folding", 'contains = ["ss"]', "ß", False),
    ("contains-all-needles", 'contains = ["a", "z"]', "abc", False),
    ("contains-empty-needle", 'contains = [""]', "", True),
    ("contains-miss", 'contains = ["q"]', "abc", False),
    ("regex-case-sensitive", "regex = ['Esc']", "esc", False),
    ("regex-inline-i", "regex = ['(?i)Esc']", "esc", True),
    ("regex-unanchored", "regex = ['b+c']", "abbbcd", True),
    ("regex-all-must-match", "regex = ['a', 'z']", "abc", False),
    ("regex-spans-lines", "regex = ['a\\nb']", "a\nb\n", True),
    ("line-regex-per-line", "line_regex = ['^b$']", "a\nb\nc\n", True),
    ("line-regex-not-across-lines", "line_regex = ['a\\nb']", "a\nb\n", False),
    ("line-regex-anchor-is-line-start", "line_regex = ['^\\s*❯\\s*$']", "x\n  ❯ \nfooter\n", True),
    ("line-regex-without-newline", "line_regex = ['x$']", "x\n", True),
    ("line-regex-each-pattern-any-line", "line_regex = ['^a', '^c']", "a\nb\nc", True),
    ("line-regex-no-lines", "line_regex = ['.*']", "", False),
    ("line-regex-blank-line-exists", "line_regex = ['^$']", "a\n\nb\n", True),
    ("line-regex-no-phantom-last-line", "line_regex = ['^$']", "a\n", False),
    ("line-regex-crlf-stripped", "line_regex = ['a$']", "a\r\nb\r\n", True),
    ("all-children", 'all = [{ contains = ["a"] }, { contains = ["b"] }]', "ab", True),
    ("all-children-miss", 'all = [{ contains = ["a"] }, { contains = ["z"] }]', "ab", False),
    ("any-child", 'any = [{ contains = ["z"] }, { contains = ["b"] }]', "ab", True),
    ("any-children-miss", 'any = [{ contains = ["y"] }, { contains = ["z"] }]', "ab", False),
    ("not-child", 'contains = ["a"]\nnot = [{ contains = ["b"] }]', "ab", False),
    ("not-child-miss", 'contains = ["a"]\nnot = [{ contains = ["z"] }]', "ab", True),
    ("not-of-not", 'contains = ["a"]\nnot = [{ not = [{ contains = ["b"] }] }]', "ab", True),
    ("not-of-not-miss", 'contains = ["a"]\nnot = [{ not = [{ contains = ["b"] }] }]', "a", False),
    (
        "nested-any-in-all",
        "all = [{ any = [{ line_regex = ['(?i)^\\s*1\\.\\s*yes\\b'] }, { contains = [\"no\"] }] }]",
        "pick:\n  1. Yes\n",
        True,
    ),
    (
        "nested-gates-share-region",
        'contains = ["esc"]\nany = [{ contains = ["enter"], any = [{ contains = ["↑/↓"] }] }]',
        "Enter to select · ↑/↓ to navigate · Esc to cancel",
        True,
    ),
    ("short-circuit-order", "contains = [\"z\"]\nregex = ['(x+x+)+y']", "x" * 3000, False),
]


@pytest.mark.parametrize(
    ("body", "screen", "expected"), [g[1:] for g in GATES], ids=[g[0] for g in GATES]
)
def test_gate_semantics(body: str, screen: str, expected: bool) -> None:
    assert matches(body, screen) is expected


def test_gates_see_the_rule_region_only() -> None:
    body = 'contains = ["b"]\nnot = [{ contains = ["a"] }]'
    assert matches(body, "a\nb\n", region="bottom_lines(1)")
    assert not matches(body, "a\nb\n")


MANIFEST = parse_manifest(
    """
id = "t"

[[rules]]
id = "low_working"
state = "working"
priority = 10
visible_working = true
contains = ["work"]

[[rules]]
id = "first_blocked"
state = "blocked"
priority = 50
visible_blocker = true
contains = ["block"]

[[rules]]
id = "second_blocked_same_priority"
state = "blocked"
priority = 50
visible_blocker = true
contains = ["block"]

[[rules]]
id = "mismatched_visible_flags"
state = "idle"
priority = 40
visible_working = true
visible_blocker = true
contains = ["mask"]

[[rules]]
id = "stateless"
priority = 30
contains = ["nostate"]

[[rules]]
id = "viewer"
state = "unknown"
priority = 60
skip_state_update = true
contains = ["viewer"]

[[rules]]
id = "title_idle"
state = "idle"
priority = 5
region = "osc_title"
visible_idle = true
regex = ['^\\x{2733} ']

[[rules]]
id = "progress_working"
state = "working"
priority = 6
region = "osc_progress"
regex = ['^4;1']
"""
)

# (id, (screen, osc_title, osc_progress), state, winning rule, flags)
SELECTION: list[tuple[str, tuple[str, str, str], str, str | None, str]] = [
    ("no-match-falls-back", ("", "", ""), "idle", None, ""),
    ("single-match", ("work", "", ""), "working", "low_working", "W"),
    ("higher-priority-wins", ("work block", "", ""), "blocked", "first_blocked", "B"),
    ("tie-first-in-file-wins", ("block", "", ""), "blocked", "first_blocked", "B"),
    ("visible-masked-by-state", ("mask", "", ""), "idle", "mismatched_visible_flags", ""),
    ("absent-state-is-unknown", ("nostate", "", ""), "unknown", "stateless", ""),
    ("skip-rule", ("viewer block", "", ""), "unknown", "viewer", "S"),
    ("osc-title-region", ("", "✳ Claude", ""), "idle", "title_idle", "I"),
    ("osc-progress-region", ("", "", "4;1;-1"), "working", "progress_working", ""),
    ("screen-beats-osc", ("work", "✳ Claude", "4;1;"), "working", "low_working", "W"),
]


@pytest.mark.parametrize(
    ("inputs", "state", "winner", "flags"),
    [s[1:] for s in SELECTION],
    ids=[s[0] for s in SELECTION],
)
def test_rule_selection(
    inputs: tuple[str, str, str], state: str, winner: str | None, flags: str
) -> None:
    evaluation = evaluate(MANIFEST, DetectionInput(*inputs))
    detection = evaluation.detection
    assert detection.state == state
    assert (evaluation.winner.id if evaluation.winner else None) == winner
    got = "".join(
        letter
        for letter, on in (
            ("I", detection.visible_idle),
            ("B", detection.visible_blocker),
            ("W", detection.visible_working),
            ("S", detection.skip_state_update),
        )
        if on
    )
    assert got == flags
    expected_reason = DEFAULT_KNOWN_AGENT_IDLE_FALLBACK if winner is None else None
    assert evaluation.fallback_reason == expected_reason
    assert len(evaluation.rule_results) == len(MANIFEST.rules)
    assert [r.rule for r in evaluation.rule_results] == list(MANIFEST.rules)


def test_every_rule_is_evaluated_and_recorded() -> None:
    evaluation = evaluate(MANIFEST, DetectionInput("work block", "✳ x", ""))
    matched = [r.rule.id for r in evaluation.rule_results if r.matched]
    assert matched == ["low_working", "first_blocked", "second_blocked_same_priority", "title_idle"]
    title_result = evaluation.rule_results[6]
    assert title_result.region_text == "✳ x"


def test_no_manifest_is_idle_fallback() -> None:
    evaluation = evaluate(None, DetectionInput("Working..."))
    assert evaluation.detection == AgentDetection("idle", False, False, False, False)
    assert evaluation.winner is None
    assert evaluation.fallback_reason == DEFAULT_KNOWN_AGENT_IDLE_FALLBACK
    assert evaluation.rule_results == ()


DETECT = [
    ("unknown-agent", False, True, "block", AgentDetection("unknown")),
    ("unknown-agent-without-manifest", False, False, "block", AgentDetection("unknown")),
    ("known-without-manifest", True, False, "block", AgentDetection("idle")),
    ("known-with-manifest", True, True, "block", AgentDetection("blocked", visible_blocker=True)),
    ("known-no-match", True, True, "nothing", AgentDetection("idle")),
    ("skip", True, True, "viewer", AgentDetection("unknown", skip_state_update=True)),
]


@pytest.mark.parametrize(
    ("known", "with_manifest", "screen", "expected"),
    [d[1:] for d in DETECT],
    ids=[d[0] for d in DETECT],
)
def test_detect_entry_point(
    known: bool, with_manifest: bool, screen: str, expected: AgentDetection
) -> None:
    manifest = MANIFEST if with_manifest else None
    inp = DetectionInput(screen)
    assert detect(known, manifest, inp) == expected
    if known and with_manifest:
        assert evaluate(manifest, inp).detection == expected


def test_detection_input_defaults_to_empty_osc() -> None:
    inp = DetectionInput("x")
    assert (inp.osc_title, inp.osc_progress) == ("", "")
