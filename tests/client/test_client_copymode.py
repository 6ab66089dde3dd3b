"""Copy mode as pure functions: keys → cursor/scroll/selection, selection → text, OSC 52."""

from __future__ import annotations

import base64

import pytest

from herdr.client import copymode as cm
from herdr.client.actions import Command, CopyKey, ModeChanged, SendBytes
from herdr.client.ansi import strip_ansi, text_width
from herdr.client.compose import ViewState, compose
from herdr.client.input import CTRL, SHIFT, InputParser, Key
from herdr.client.keynames import KeySpec, spec_of
from herdr.client.modes import KeyMachine

W, H = 20, 10
TOTAL = 100  # rows 0..89 are scrollback, 90..99 the live screen


def _state(offset: int = 0, cursor: tuple[int, int] | None = (2, 9)) -> cm.CopyState:
    return cm.enter("w1:p1", (W, H), TOTAL, offset, cursor)


def _spec(name: str) -> KeySpec:
    """``k``, ``G``, ``$``, ``C-u``, ``pageup``… the way the parser reports them."""
    raw = {
        "pageup": b"\x1b[5~",
        "pagedown": b"\x1b[6~",
        "up": b"\x1b[A",
        "down": b"\x1b[B",
        "left": b"\x1b[D",
        "right": b"\x1b[C",
        "enter": b"\r",
        "esc": b"\x1b",
    }.get(name)
    if raw is None and name.startswith("C-"):
        raw = bytes([ord(name[2]) & 0x1F])
    parser = InputParser()
    events = parser.feed(raw if raw is not None else name.encode())
    events += parser.flush_pending(end_paste=False)
    key = events[0]
    assert isinstance(key, Key)
    return spec_of(key)


def _run(
    keys: str, state: cm.CopyState | None = None, rows: tuple[str, ...] = ()
) -> tuple[cm.CopyState, list[cm.Effect]]:
    state = state or _state()
    effects: list[cm.Effect] = []
    for name in keys.split():
        state, more = cm.handle_key(state, _spec(name), rows)
        effects += more
    return state, effects


def _scrolled(effects: list[cm.Effect]) -> int:
    return sum(e.delta for e in effects if isinstance(e, cm.Scroll))


@pytest.mark.parametrize(
    ("keys", "line", "col", "top", "scroll"),
    [
        ("k", 98, 2, 90, 0),  # the cursor moves inside the viewport
        ("k k k k k k k k k", 90, 2, 90, 0),  # to the first viewport row: no scroll yet
        ("k k k k k k k k k k", 89, 2, 89, -1),  # past it: the viewport follows
        ("up up", 97, 2, 90, 0),
        ("j", 99, 2, 90, 0),  # the last row is the floor
        ("C-u", 94, 2, 85, -5),  # half a page: view and cursor move together
        ("C-u C-d", 99, 2, 90, 0),
        ("C-b", 90, 2, 81, -9),
        ("pageup pageup", 81, 2, 72, -18),
        ("C-b C-f", 99, 2, 90, 0),
        ("g", 0, 0, 0, -90),  # the top of the scrollback
        ("g G", 99, 0, 90, 0),
        ("h h h", 99, 0, 90, 0),
        ("l l left", 99, 3, 90, 0),
        ("l " * 30, 99, W - 1, 90, 0),
        ("C-y", 98, 2, 89, -1),  # the view scrolls; the cursor stays in it
        ("H", 90, 2, 90, 0),
        ("L", 99, 2, 90, 0),
        ("x z", 99, 2, 90, 0),  # unbound keys do nothing
    ],
)
def test_keys_move_cursor_and_viewport(
    keys: str, line: int, col: int, top: int, scroll: int
) -> None:
    state, effects = _run(keys)
    assert (state.line, state.col, state.top) == (line, col, top)
    assert _scrolled(effects) == scroll
    assert not any(isinstance(e, (cm.Copy, cm.Leave)) for e in effects)


def test_enter_from_a_scrolled_viewport_and_position() -> None:
    state = _state(offset=30, cursor=None)
    assert (state.top, state.line, state.col) == (60, 69, 0)
    assert state.position() == "[30/90]"
    assert state.cursor() == (0, 9)
    state, effects = _run("g", state)
    assert state.position() == "[90/90]" and _scrolled(effects) == -60


def test_sync_follows_the_server_viewport() -> None:
    state = _state()
    # new output while pinned: the server's offset grows with the total, same top
    moved = cm.sync(state, (W, H), TOTAL + 5, 5)
    assert moved.top == 90 and moved.line == 99 and moved.cursor() == (2, 9)
    assert cm.sync(state, (W, H), TOTAL, 0) is state
    smaller = cm.sync(state, (8, 4), TOTAL, 0)
    assert (smaller.width, smaller.height, smaller.col, smaller.top) == (8, 4, 2, 96)


ROWS = (
    "\x1b[31mfoo\x1b[0m bar_baz, qux",
    "   indented",
    "中文 wide",
    "",
)


@pytest.mark.parametrize(
    ("start", "keys", "col", "line"),
    [
        (0, "w", 4, 0),
        (0, "w w", 11, 0),  # punctuation is its own word
        (0, "w w w", 13, 0),
        (0, "w w w w", 3, 1),  # off the end: the next row's first word
        (0, "$", 15, 0),
        (1, "^", 3, 1),
        (1, "0", 0, 1),
        (2, "w", 5, 2),  # a wide character counts as word text
        (2, "$ b", 5, 2),
        (1, "b", 13, 0),  # back across rows to the previous word
    ],
)
def test_line_and_word_motions(start: int, keys: str, col: int, line: int) -> None:
    state = cm.CopyState("p", W, len(ROWS), len(ROWS), 0, start, 0)
    if keys == "b":
        state = cm.CopyState("p", W, len(ROWS), len(ROWS), 0, start, 3)
    state, _ = _run(keys, state, ROWS)
    assert (state.col, state.line) == (col, line)


def test_selection_and_copy_effects() -> None:
    state, effects = _run("v k k h y")
    assert effects[-2:] == [cm.Copy(cm.Selection(97, 1, 99, 2)), cm.Leave()]
    state, effects = _run("V k enter")
    assert effects[0] == cm.Copy(cm.Selection(98, 2, 99, 2, linewise=True))
    state, _ = _run("v v")
    assert state.anchor is None  # v again ends the selection
    state, _ = _run("v V")
    assert state.linewise and state.anchor == (99, 2)  # switches kind
    assert _run("y")[1] == [cm.Leave()]  # nothing selected: just leave
    for key in ("q", "esc", "C-c"):
        assert _run(key)[1] == [cm.Leave()]


@pytest.mark.parametrize(
    ("sel", "text"),
    [
        (cm.Selection(0, 4, 0, 6), "bar"),  # styled row: plain text, no escapes
        (cm.Selection(0, 4, 1, 4), "bar_baz, qux\n   in"),
        (cm.Selection(0, 0, 1, 0, linewise=True), "foo bar_baz, qux\n   indented"),
        (cm.Selection(2, 1, 2, 2), "中文"),  # half of a wide character takes it whole
        (cm.Selection(2, 0, 2, 0), "中"),
        (cm.Selection(2, 3, 3, 5), "文 wide\n"),  # an empty row stays an empty line
        (cm.Selection(1, 8, 2, 0, linewise=True), "   indented\n中文 wide"),
        (cm.Selection(0, 16, 0, 19), ""),  # past the text: trailing blanks trimmed
    ],
)
def test_selected_text(sel: cm.Selection, text: str) -> None:
    assert cm.selected_text(ROWS, 0, sel) == text


def test_selected_text_with_an_offset_and_padding() -> None:
    assert cm.selected_text(("a   ", "b  \x1b[0m "), 50, cm.Selection(50, 0, 51, 9)) == "a\nb"


def test_osc52_encoding() -> None:
    seq = cm.osc52("héllo\n中")
    assert seq.startswith(b"\x1b]52;c;") and seq.endswith(b"\x07")
    assert base64.b64decode(seq[7:-1]).decode() == "héllo\n中"


def test_paint_reverses_the_selection_and_draws_the_cursor() -> None:
    rows = ("\x1b[31mred\x1b[0m text", "中文 ok", "plain")
    state = cm.CopyState("p", 10, 3, 3, 0, 1, 4, anchor=(0, 4))
    painted = cm.paint(rows, state)
    assert len(painted) == 3
    for before, after in zip(rows, painted, strict=True):
        assert strip_ansi(after).rstrip() == strip_ansi(before).rstrip()  # text unchanged
    assert all(text_width(strip_ansi(row)) == 10 for row in painted[:2])
    assert painted[2] == rows[2]  # untouched rows are the same strings
    assert "\x1b[31m" in painted[0] and painted[0].startswith("\x1b[31mred")
    assert cm.SELECT_SGR + "text" in painted[0]  # from the anchor to the row's end
    # row 1: 中文 (cells 0-3) selected up to the cursor, which sits on " " (cell 4)
    assert painted[1].startswith(cm.SELECT_SGR + "中文")
    assert cm.CURSOR_IN_SELECTION_SGR + " " in painted[1]
    alone = cm.paint(rows, cm.CopyState("p", 10, 3, 3, 0, 1, 1))
    assert cm.CURSOR_SGR + "中" in alone[1]  # the right half selects the whole character
    assert cm.paint(rows, cm.CopyState("p", 10, 3, 3, 0, 7, 0)) == rows  # cursor off screen


def test_key_machine_copy_mode_routes_keys() -> None:
    machine = KeyMachine()
    parser = InputParser()
    actions = machine.handle_all(parser.feed(b"\x02["))
    assert actions == [ModeChanged("prefix"), ModeChanged("copy"), Command("copy_mode")]
    actions = machine.handle_all(parser.feed(b"kq"))
    assert actions == [CopyKey(KeySpec("k")), CopyKey(KeySpec("q"))]
    assert not any(isinstance(x, SendBytes) for x in actions)
    assert machine.mode == "copy"  # the app leaves the mode (on Leave)
    assert machine.set_mode("terminal") == [ModeChanged("terminal")]
    assert machine.handle_all(parser.feed(b"k")) == [SendBytes(b"k")]


def test_shifted_and_control_keys_map() -> None:
    assert _spec("G") == KeySpec("g", SHIFT)
    assert _spec("C-u") == KeySpec("u", CTRL)


def test_tab_bar_shows_the_copy_badge_and_position() -> None:
    view = ViewState(100, 10, mode="copy", copy_position="[3/40]")
    text = "\n".join(strip_ansi(row) for row in compose(view).rows)
    assert "COPY" in text and "[3/40]" in text
    assert "COPY" not in "\n".join(strip_ansi(r) for r in compose(ViewState(100, 10)).rows)
