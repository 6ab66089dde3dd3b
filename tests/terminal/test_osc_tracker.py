"""Passive OSC title/progress capture (detection-spec §3.2), table-driven."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herdr.terminal.osc import MAX_BODY_BYTES, OscTracker, sanitize_osc_text

E = b"\x1b"
BEL = b"\x07"
ST = b"\x1b\\"

# (id, chunks, expected title, expected progress)
CASES: list[tuple[str, list[bytes], str, str]] = [
    ("osc0-bel", [E + b"]0;hello" + BEL], "hello", ""),
    ("osc2-st", [E + b"]2;world" + ST], "world", ""),
    ("osc1-ignored", [E + b"]1;icon" + BEL], "", ""),
    ("no-semicolon-ignored", [E + b"]0" + BEL], "", ""),
    ("progress-bel", [E + b"]9;4;3;" + BEL], "", "4;3;"),
    ("progress-st", [E + b"]9;4;0;" + ST], "", "4;0;"),
    ("progress-notification", [E + b"]9;build done" + BEL], "", "build done"),
    ("progress-empty", [E + b"]9;4;1;" + BEL, E + b"]9;" + BEL], "", ""),
    ("last-title-wins", [E + b"]0;a" + BEL + E + b"]2;b" + BEL], "b", ""),
    ("empty-clears", [E + b"]0;a" + BEL, E + b"]0;" + BEL], "", ""),
    ("only-controls-clears", [E + b"]0;a" + BEL, E + b"]0;\x01\x02" + BEL], "", ""),
    ("controls-stripped", [E + b"]0;a\tb\x7fc\xc2\x85d" + BEL], "abcd", ""),
    ("lossy-utf8", [E + b"]0;\xffok" + BEL], "\ufffdok", ""),
    ("utf8-title", ["\x1b]0;✳ Claude Code\x07".encode()], "✳ Claude Code", ""),
    ("split-everywhere", [b"x\x1b", b"]", b"0", b";ti", b"tle\x1b", b"\\"], "title", ""),
    ("split-utf8", [b"\x1b]0;\xe2\x9c", b"\xb3 hi\x07"], "✳ hi", ""),
    ("esc-esc-then-osc", [b"\x1b\x1b]0;t\x07"], "t", ""),
    ("csi-is-not-osc", [b"\x1b[0;1m\x1b[2J]0;no\x07"], "", ""),
    ("dcs-skipped", [b"\x1bP\x1b]0;inside\x07\x1b\\", E + b"]0;after" + BEL], "after", ""),
    ("apc-skipped", [b"\x1b_G\x1b]0;inside" + BEL + ST + E + b"]0;ok" + BEL], "ok", ""),
    ("pm-sos-skipped", [b"\x1b^x\x1b\\\x1bXy\x1b\\\x1b]0;ok\x07"], "ok", ""),
    ("string-bel-does-not-end-dcs", [b"\x1bPx\x07\x1b]0;in\x07\x1b\\"], "", ""),
    ("esc-inside-osc-kept", [b"\x1b]0;a\x1bb\x07"], "ab", ""),
    ("title-capped-256", [E + b"]0;" + b"x" * 300 + BEL], "x" * 256, ""),
    ("body-at-cap-kept", [E + b"]0;" + b"y" * (MAX_BODY_BYTES - 2) + BEL], "y" * 256, ""),
    (
        "oversized-discarded-previous-kept",
        [E + b"]0;keep" + BEL, E + b"]0;" + b"z" * MAX_BODY_BYTES + b"\x1b]0;no" + BEL],
        "keep",
        "",
    ),
    (
        "oversized-split-across-chunks",
        [E + b"]0;keep" + BEL, E + b"]0;" + b"z" * 3000, b"z" * 3000, b"z" + ST, E + b"]9;p" + BEL],
        "keep",
        "p",
    ),
]


@pytest.mark.parametrize(
    ("chunks", "title", "progress"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_osc_tracker(chunks: list[bytes], title: str, progress: str) -> None:
    tracker = OscTracker()
    for chunk in chunks:
        tracker.feed(chunk)
    assert tracker.title == title
    assert tracker.progress == progress


@pytest.mark.parametrize(
    ("chunks", "title", "progress"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_osc_tracker_byte_by_byte(chunks: list[bytes], title: str, progress: str) -> None:
    tracker = OscTracker()
    for byte in b"".join(chunks):
        tracker.feed(bytes([byte]))
    assert (tracker.title, tracker.progress) == (title, progress)


def test_clear_retained_keeps_display_title_and_parse_state() -> None:
    tracker = OscTracker()
    tracker.feed(b"\x1b]0;old\x07\x1b]9;4;1;\x07\x1b]0;ne")
    tracker.clear_retained()
    assert (tracker.title, tracker.progress, tracker.terminal_title) == ("", "", "old")
    tracker.feed(b"w\x07")
    assert (tracker.title, tracker.terminal_title) == ("new", "new")


@pytest.mark.parametrize(
    ("payload", "limit", "expected"),
    [
        (b"abc", 2, "ab"),
        (b"\x00a\x1fb\x9f", 10, "ab\ufffd"),
        ("\u0085x".encode(), 10, "x"),
        (b"", 5, ""),
    ],
)
def test_sanitize(payload: bytes, limit: int, expected: str) -> None:
    assert sanitize_osc_text(payload, limit) == expected


_ALPHABET = [
    b"\x1b",
    b"]",
    b"0;",
    b"2;",
    b"9;",
    b"\x07",
    b"\\",
    b"P",
    b"_",
    b"a",
    b"\xe2\x9c\xb3",
    b"[",
]


@given(
    st.lists(st.sampled_from(_ALPHABET), max_size=60),
    st.lists(st.integers(min_value=0, max_value=200), max_size=8),
)
def test_split_points_do_not_matter(pieces: list[bytes], cuts: list[int]) -> None:
    data = b"".join(pieces)
    whole = OscTracker()
    whole.feed(data)
    split = OscTracker()
    start = 0
    for cut in sorted(c % (len(data) + 1) for c in cuts):
        split.feed(data[start:cut])
        start = cut
    split.feed(data[start:])
    assert (split.title, split.progress) == (whole.title, whole.progress)
