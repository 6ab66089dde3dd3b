"""Native session ids and paths are data: what the validator accepts and refuses."""

from __future__ import annotations

import pytest

from herdr.persist.session_refs import id_problem, may_be_an_option, path_problem

UUID = "0199a1b2-3c4d-7e8f-9a0b-1c2d3e4f5a6b"

# (id, value, accepted, words the refusal must contain)
IDS = [
    ("uuid", UUID, True, ""),
    ("ulid", "01J9Z8Y7X6W5V4T3S2R1Q0P9N8", True, ""),
    ("letta-default", "default:agent-5f1c", True, ""),
    ("inner-dash", "abc-def--ghi", True, ""),
    ("shell-meta", "a;b$(c)`d`'e'\"f\"|g&h<i>", True, ""),  # quoted by the shell line
    ("unicode-letters", "sesión-日本語-ü", True, ""),
    ("max-length", "x" * 512, True, ""),
    ("empty", "", False, "1..512"),
    ("too-long", "x" * 513, False, "1..512"),
    ("very-long", "x" * 100_000, False, "got 100000"),
    ("codex-bypass-flag", "--dangerously-bypass-approvals-and-sandbox", False, "'-'"),
    ("single-dash", "-", False, "'-'"),
    ("short-flag", "-c", False, "'-'"),
    ("space", "abc def", False, "whitespace"),
    ("leading-space", " abc", False, "whitespace"),
    ("trailing-space", "abc ", False, "whitespace"),
    ("space-then-flag", "x --yolo", False, "whitespace"),
    ("tab", "abc\tdef", False, "U+0009"),
    ("newline", "abc\ndef", False, "U+000A"),
    ("carriage-return", "abc\r", False, "U+000D"),
    ("esc", "abc\x1b[2Jdef", False, "U+001B"),
    ("nul", "abc\x00def", False, "U+0000"),
    ("del", "abc\x7f", False, "U+007F"),
    ("c1-csi", "abc\x9bdef", False, "U+009B"),
    ("nbsp", "abc\u00a0def", False, "whitespace"),
    ("ideographic-space", "abc\u3000def", False, "whitespace"),
    ("line-separator", "abc\u2028def", False, "whitespace"),
    ("bidi-override", "abc\u202edef", False, "U+202E"),
    ("zero-width-space", "abc\u200bdef", False, "U+200B"),
    ("bom", "\ufeffabc", False, "U+FEFF"),
    ("lone-surrogate", "abc\ud800", False, "U+D800"),
    ("private-use", "abc\ue000", False, "U+E000"),
]


@pytest.mark.parametrize(
    ("value", "accepted", "words"), [row[1:] for row in IDS], ids=[row[0] for row in IDS]
)
def test_session_ids(value: str, accepted: bool, words: str) -> None:
    problem = id_problem(value)
    if accepted:
        assert problem is None
    else:
        assert problem is not None
        assert problem.startswith("agent_session_id ")
        assert words in problem


PATHS = [
    ("absolute", "/home/u/.pi/agent/sessions/--home-u--/2026.jsonl", True, ""),
    ("spaces", "/Users/me/My Sessions/a b.jsonl", True, ""),
    ("relative", "sessions/a.jsonl", True, ""),  # not absolute: refused at restore
    ("max-length", "/" + "p" * 4095, True, ""),
    ("too-long", "/" + "p" * 4096, False, "1..4096"),
    ("empty", "", False, "1..4096"),
    ("flag", "--session-dir=/tmp/x", False, "'-'"),
    ("newline", "/a\n/b", False, "U+000A"),
    ("tab", "/a\tb", False, "U+0009"),
    ("esc", "/a\x1b]0;x\x07", False, "U+001B"),
    ("nul", "/a\x00b", False, "U+0000"),
    ("line-separator", "/a\u2028b", False, "whitespace"),
    ("bidi-override", "/a\u202eb", False, "U+202E"),
]


@pytest.mark.parametrize(
    ("value", "accepted", "words"), [row[1:] for row in PATHS], ids=[row[0] for row in PATHS]
)
def test_session_paths(value: str, accepted: bool, words: str) -> None:
    problem = path_problem(value)
    if accepted:
        assert problem is None
    else:
        assert problem is not None
        assert problem.startswith("agent_session_path ")
        assert words in problem


def test_the_field_name_is_part_of_the_message() -> None:
    assert (id_problem("-x", "session id '-x'") or "").startswith("session id '-x' must not")


@pytest.mark.parametrize(
    ("item", "option"),
    [("-", True), ("-x", True), ("--x", True), ("x-", False), ("", False), ("/-x", False)],
    ids=["dash", "short", "long", "trailing-dash", "empty", "path"],
)
def test_may_be_an_option(item: str, option: bool) -> None:
    assert may_be_an_option(item) is option
