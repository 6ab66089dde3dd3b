"""The host-terminal input parser: table-driven sequences plus stream properties."""

from __future__ import annotations

from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.client.input import (
    ALT,
    CAPS_LOCK,
    CTRL,
    SHIFT,
    SUPER,
    Focus,
    InputEvent,
    InputParser,
    Key,
    Mouse,
    Paste,
    Unknown,
    encode_mouse_sgr,
)


def parse(data: bytes) -> list[InputEvent]:
    parser = InputParser()
    return parser.feed(data) + parser.flush_pending(end_paste=True)


def keys(data: bytes) -> list[tuple[str, int]]:
    return [(e.key, e.mods) for e in parse(data) if isinstance(e, Key)]


class KeyCase(NamedTuple):
    test_id: str
    data: bytes
    key: str
    mods: int
    text: str = ""


KEY_CASES = [
    KeyCase("letter", b"a", "a", 0, "a"),
    KeyCase("upper_is_shift", b"B", "b", SHIFT, "B"),
    KeyCase("digit", b"7", "7", 0, "7"),
    KeyCase("question", b"?", "?", 0, "?"),
    KeyCase("space", b" ", "space", 0, " "),
    KeyCase("enter", b"\r", "enter", 0),
    KeyCase("tab", b"\t", "tab", 0),
    KeyCase("backspace_del", b"\x7f", "backspace", 0),
    KeyCase("ctrl_b", b"\x02", "b", CTRL),
    KeyCase("ctrl_h", b"\x08", "h", CTRL),
    KeyCase("ctrl_j", b"\n", "j", CTRL),
    KeyCase("ctrl_space", b"\x00", "space", CTRL),
    KeyCase("ctrl_backslash", b"\x1c", "\\", CTRL),
    KeyCase("utf8", "é".encode(), "é", 0, "é"),
    KeyCase("utf8_wide", "日".encode(), "日", 0, "日"),
    KeyCase("emoji", "🚀".encode(), "🚀", 0, "🚀"),
    KeyCase("alt_x", b"\x1bx", "x", ALT),
    KeyCase("alt_shift_x", b"\x1bX", "x", ALT | SHIFT),
    KeyCase("alt_ctrl_b", b"\x1b\x02", "b", ALT | CTRL),
    KeyCase("alt_enter", b"\x1b\r", "enter", ALT),
    KeyCase("alt_utf8", b"\x1b\xc3\xa9", "é", ALT),
    KeyCase("up", b"\x1b[A", "up", 0),
    KeyCase("down_app_mode", b"\x1bOB", "down", 0),
    KeyCase("ctrl_left", b"\x1b[1;5D", "left", CTRL),
    KeyCase("shift_up", b"\x1b[1;2A", "up", SHIFT),
    KeyCase("alt_up_double_esc", b"\x1b\x1b[A", "up", ALT),
    KeyCase("home", b"\x1b[H", "home", 0),
    KeyCase("end_tilde", b"\x1b[4~", "end", 0),
    KeyCase("delete", b"\x1b[3~", "delete", 0),
    KeyCase("ctrl_delete", b"\x1b[3;5~", "delete", CTRL),
    KeyCase("pageup", b"\x1b[5~", "pageup", 0),
    KeyCase("f1_ss3", b"\x1bOP", "f1", 0),
    KeyCase("f4_ss3", b"\x1bOS", "f4", 0),
    KeyCase("shift_f1", b"\x1b[1;2P", "f1", SHIFT),
    KeyCase("f5", b"\x1b[15~", "f5", 0),
    KeyCase("f12", b"\x1b[24~", "f12", 0),
    KeyCase("shift_tab", b"\x1b[Z", "tab", SHIFT),
    # kitty keyboard protocol
    KeyCase("kitty_ctrl_b", b"\x1b[98;5u", "b", CTRL),
    KeyCase("kitty_esc", b"\x1b[27u", "esc", 0),
    KeyCase("kitty_shift_enter", b"\x1b[13;2u", "enter", SHIFT),
    KeyCase("kitty_ctrl_shift_a_alternate", b"\x1b[97:65;6u", "a", CTRL | SHIFT),
    KeyCase("kitty_shifted_punct", b"\x1b[47:63;2u", "?", 0),
    KeyCase("kitty_text_field", b"\x1b[97;1;97u", "a", 0, "a"),
    KeyCase("kitty_super", b"\x1b[107;9u", "k", SUPER),
    KeyCase("kitty_capslock_kept", b"\x1b[98;69u", "b", CTRL | CAPS_LOCK),
    KeyCase("kitty_f13", b"\x1b[57376u", "f13", 0),
    KeyCase("kitty_left_shift", b"\x1b[57441;2u", "left_shift", SHIFT),
    KeyCase("kitty_kp_enter", b"\x1b[57414u", "kp_enter", 0),
    KeyCase("kitty_f3", b"\x1b[13~", "f3", 0),
    # xterm modifyOtherKeys
    KeyCase("mok_ctrl_b", b"\x1b[27;5;98~", "b", CTRL),
    KeyCase("mok_shift_enter", b"\x1b[27;2;13~", "enter", SHIFT),
    KeyCase("mok_ctrl_shift_b", b"\x1b[27;6;66~", "b", CTRL | SHIFT),
]


@pytest.mark.parametrize("case", KEY_CASES, ids=[c.test_id for c in KEY_CASES])
def test_key_sequences(case: KeyCase) -> None:
    events = parse(case.data)
    assert len(events) == 1, events
    event = events[0]
    assert isinstance(event, Key)
    assert (event.key, event.mods) == (case.key, case.mods)
    assert event.raw == case.data  # pass-through needs the exact bytes
    if case.text:
        assert event.text == case.text


def test_kitty_release_and_repeat_kinds() -> None:
    press, repeat, release = parse(b"\x1b[97;1:1u\x1b[97;1:2u\x1b[97;1:3u")
    assert isinstance(press, Key) and press.kind == "press"
    assert isinstance(repeat, Key) and repeat.kind == "repeat"
    assert isinstance(release, Key) and release.kind == "release"


class MouseCase(NamedTuple):
    test_id: str
    data: bytes
    kind: str
    button: str
    x: int
    y: int
    mods: int = 0


MOUSE_CASES = [
    MouseCase("left_press", b"\x1b[<0;10;5M", "press", "left", 9, 4),
    MouseCase("left_release", b"\x1b[<0;10;5m", "release", "left", 9, 4),
    MouseCase("right_press", b"\x1b[<2;1;1M", "press", "right", 0, 0),
    MouseCase("middle", b"\x1b[<1;3;4M", "press", "middle", 2, 3),
    MouseCase("drag_left", b"\x1b[<32;20;7M", "drag", "left", 19, 6),
    MouseCase("motion_no_button", b"\x1b[<35;2;2M", "move", "none", 1, 1),
    MouseCase("wheel_up", b"\x1b[<64;5;5M", "wheel", "wheel_up", 4, 4),
    MouseCase("wheel_down", b"\x1b[<65;5;5M", "wheel", "wheel_down", 4, 4),
    MouseCase("ctrl_click", b"\x1b[<16;1;1M", "press", "left", 0, 0, CTRL),
    MouseCase("shift_alt_click", b"\x1b[<12;1;1M", "press", "left", 0, 0, SHIFT | ALT),
    MouseCase("big_coords", b"\x1b[<0;300;120M", "press", "left", 299, 119),
    MouseCase("x10_press", b"\x1b[M !!", "press", "left", 0, 0),
    MouseCase("x10_release", b"\x1b[M#!!", "release", "none", 0, 0),
]


@pytest.mark.parametrize("case", MOUSE_CASES, ids=[c.test_id for c in MOUSE_CASES])
def test_mouse(case: MouseCase) -> None:
    (event,) = parse(case.data)
    assert isinstance(event, Mouse)
    assert (event.kind, event.button, event.x, event.y, event.mods) == case[2:]
    assert event.raw == case.data


@pytest.mark.parametrize(
    "data",
    [b"\x1b[<0;10;5M", b"\x1b[<64;1;2M", b"\x1b[<32;3;3M", b"\x1b[<2;4;4m", b"\x1b[<16;9;9M"],
)
def test_mouse_sgr_roundtrip(data: bytes) -> None:
    (event,) = parse(data)
    assert isinstance(event, Mouse)
    assert encode_mouse_sgr(event, event.x, event.y) == data


def test_bracketed_paste_is_one_event_even_with_escapes_inside() -> None:
    events = parse(b"x\x1b[200~line1\r\n\x1b[A\x02 \xe6\x97\xa5\x1b[201~y")
    assert [type(e) for e in events] == [Key, Paste, Key]
    paste = events[1]
    assert isinstance(paste, Paste)
    assert paste.data == b"line1\r\n\x1b[A\x02 \xe6\x97\xa5"
    assert paste.text == "line1\r\n\x1b[A\x02 日"


def test_paste_end_marker_split_across_reads() -> None:
    parser = InputParser()
    out: list[InputEvent] = []
    for chunk in (b"\x1b[20", b"0~ab\x1b", b"[20", b"1", b"~", b"z"):
        out += parser.feed(chunk)
    assert out == [Paste(b"ab"), Key("z", 0, b"z", "z")]


def test_open_paste_survives_a_pause_and_end_paste_delivers_it() -> None:
    parser = InputParser()
    assert parser.feed(b"\x1b[200~abc") == []
    assert parser.flush_pending() == []  # 25 ms of silence must not end a paste
    assert parser.in_paste
    assert parser.flush_pending(end_paste=True) == [Paste(b"abc")]
    assert not parser.pending


def test_focus_events() -> None:
    assert parse(b"\x1b[I\x1b[O") == [Focus(True), Focus(False)]


def test_lone_escape_waits_for_flush() -> None:
    parser = InputParser()
    assert parser.feed(b"\x1b") == []
    assert parser.pending
    assert parser.flush_pending() == [Key("esc", 0, b"\x1b")]
    assert not parser.pending


def test_escape_sequence_split_across_reads_is_one_key() -> None:
    parser = InputParser()
    assert parser.feed(b"\x1b") == []
    assert parser.feed(b"[1;5") == []
    assert parser.feed(b"A") == [Key("up", CTRL, b"\x1b[1;5A")]


@pytest.mark.parametrize(
    ("pending", "expected"),
    [
        (b"\x1b[", [("[", ALT)]),
        (b"\x1bO", [("o", ALT | SHIFT)]),
        (b"\x1b\x1b", [("esc", ALT)]),
        (b"\xe6\x97", []),
    ],
    ids=["alt_bracket", "alt_O", "alt_esc", "cut_utf8"],
)
def test_flush_decides_cut_sequences(pending: bytes, expected: list[tuple[str, int]]) -> None:
    parser = InputParser()
    assert parser.feed(pending) == []
    events = parser.flush_pending()
    assert [(e.key, e.mods) for e in events if isinstance(e, Key)] == expected
    assert not parser.pending


@pytest.mark.parametrize(
    "data",
    [
        b"\x1b[?1;2c",  # DA1 reply
        b"\x1b[?1u",  # kitty flags reply
        b"\x1b[12;40R",  # cursor position report
        b"\x1b]11;rgb:0000/0000/0000\x07",  # OSC colour reply
        b"\x1b]11;rgb:0000/0000/0000\x1b\\",
        b"\x1bP>|kitty\x1b\\",  # XTVERSION (DCS)
        b"\x1b[?2026;2$y",  # DECRPM
        b"\x1b[201~",  # stray paste end
        b"\xff",
        b"\x80",
    ],
)
def test_replies_and_garbage_are_unknown(data: bytes) -> None:
    events = parse(data)
    assert events and all(isinstance(e, Unknown) for e in events)
    assert b"".join(e.raw for e in events if isinstance(e, Unknown)) == data


def test_broken_csi_resumes_at_the_offending_byte() -> None:
    events = parse(b"\x1b[12\x02x")
    assert isinstance(events[0], Unknown)
    assert [(e.key, e.mods) for e in events[1:] if isinstance(e, Key)] == [("b", CTRL), ("x", 0)]


def test_overlong_sequence_is_cut_not_buffered_forever() -> None:
    parser = InputParser()
    events = parser.feed(b"\x1b[" + b"1;" * 2000 + b"A")
    assert events and isinstance(events[0], Unknown)
    assert not parser.pending


def test_run_of_escapes_does_not_recurse() -> None:
    events = parse(b"\x1b" * 50_000)
    assert len(events) >= 25_000
    assert all(isinstance(e, Key) and e.key == "esc" for e in events)


def test_raw_bytes_cover_the_whole_stream() -> None:
    data = b"ab\x1b[A\x02\x1b[98;5u\x1bx\xe6\x97\xa5\x1b[<0;1;1M"
    events = parse(data)
    assert b"".join(e.raw for e in events if isinstance(e, Key | Mouse)) == data


# --------------------------------------------------------------------------- properties

_INTERESTING = st.sampled_from(
    [
        b"\x1b",
        b"[",
        b"O",
        b"\x1b[",
        b"\x1b[200~",
        b"\x1b[201~",
        b"\x1b[<0;1;1M",
        b"\x1b[1;5A",
        b"\x1b[98;5u",
        b"\x1b[27;5;98~",
        b"\x1b]0;x\x07",
        b"\x1bP",
        b"\x1b\\",
        b";",
        b"~",
        b"u",
        b"M",
        b"\xe6\x97\xa5",
        b"\xe6",
        b"\x97",
        b"\x02",
        b"a",
    ]
)
_STREAMS = st.one_of(
    st.binary(max_size=300),
    st.lists(_INTERESTING | st.binary(max_size=4), max_size=40).map(b"".join),
)


@settings(max_examples=300, deadline=None)
@given(_STREAMS)
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    parser = InputParser()
    parser.feed(data)
    parser.flush_pending()
    parser.flush_pending(end_paste=True)
    assert not parser.pending


@settings(max_examples=300, deadline=None)
@given(_STREAMS, st.lists(st.integers(min_value=0, max_value=400), max_size=8))
def test_any_split_yields_the_same_events(data: bytes, cuts: list[int]) -> None:
    whole = parse(data)
    points = sorted({min(c, len(data)) for c in cuts})
    parser = InputParser()
    split: list[InputEvent] = []
    last = 0
    for point in [*points, len(data)]:
        split += parser.feed(data[last:point])
        last = point
    split += parser.flush_pending(end_paste=True)
    assert split == whole


@settings(max_examples=200, deadline=None)
@given(_STREAMS)
def test_byte_at_a_time_equals_whole(data: bytes) -> None:
    parser = InputParser()
    events: list[InputEvent] = []
    for i in range(len(data)):
        events += parser.feed(data[i : i + 1])
    events += parser.flush_pending(end_paste=True)
    assert events == parse(data)
