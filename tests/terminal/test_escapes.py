"""Which chunks may change input modes, and the modifyOtherKeys level, split anywhere."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from herdr.terminal.emulator import Emulator
from herdr.terminal.escapes import EscapeWatch


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        pytest.param([b"plain"], [False], id="plain-text"),
        pytest.param([b"a\x1b[?2004hb"], [True], id="whole-sequence"),
        pytest.param([b"a\x1b[?20", b"04h"], [True, True], id="split-csi"),
        pytest.param([b"a\x1b[?2004h", b"text"], [True, False], id="finished-then-text"),
        pytest.param([b"\x1b", b"[?1", b"000h", b"x"], [True, True, True, False], id="three-way"),
        pytest.param([b"\x1b]0;title", b" more\x07", b"x"], [True, True, False], id="split-osc"),
        pytest.param([b"\x1b(", b"B", b"x"], [True, True, False], id="split-charset"),
        pytest.param([b"\x9b?25l"], [True], id="c1-csi"),
    ],
)
def test_mode_changes_possible(chunks: list[bytes], expected: list[bool]) -> None:
    watch = EscapeWatch()
    assert [watch.feed(c) for c in chunks] == expected


@pytest.mark.parametrize(
    ("data", "level"),
    [
        pytest.param(b"\x1b[>4;2m", 2, id="level-2"),
        pytest.param(b"\x1b[>4;1m", 1, id="level-1"),
        pytest.param(b"\x1b[>4;2m\x1b[>4m", 0, id="reset-no-param"),
        pytest.param(b"\x1b[>4;2m\x1b[>4;0m", 0, id="reset-zero"),
        pytest.param(b"\x1b[>4;2m\x1bc", 0, id="full-reset"),
        pytest.param(b"\x1b[4;2m", 0, id="not-private"),
        pytest.param(b"\x1b[>4;7m", 2, id="clamped"),
    ],
)
def test_modify_other_keys(data: bytes, level: int) -> None:
    watch = EscapeWatch()
    watch.feed(data)
    assert watch.modify_other_keys == level


@given(st.integers(1, 9), st.integers(0, 12))
def test_modify_other_keys_split_anywhere(first: int, second: int) -> None:
    data = b"ab\x1b[>4;2mcd"
    cuts = sorted({min(first, len(data)), min(first + second, len(data))})
    parts = [data[: cuts[0]], data[cuts[0] : cuts[-1]], data[cuts[-1] :]]
    watch = EscapeWatch()
    for part in parts:
        watch.feed(part)
    assert watch.modify_other_keys == 2


def test_emulator_reports_keyboard_modes() -> None:
    e = Emulator(20, 5)
    assert (e.input_modes().kitty_flags, e.input_modes().modify_other_keys) == (0, 0)
    e.feed(b"\x1b[>5u")
    assert e.input_modes().kitty_flags == 5
    e.feed(b"\x1b[?1049h")  # the alternate screen keeps its own kitty stack
    assert e.input_modes().kitty_flags == 0
    e.feed(b"\x1b[?1049l\x1b[<u\x1b[>4;")
    e.feed(b"2m")
    modes = e.input_modes()
    assert (modes.kitty_flags, modes.modify_other_keys) == (0, 2)
