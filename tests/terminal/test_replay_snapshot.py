"""`Emulator.replay_snapshot`: a fresh emulator fed the snapshot reads the same (live handoff)."""

from __future__ import annotations

import pytest

from herdr.terminal.emulator import Emulator

LINES = b"".join(b"line %d\r\n" % i for i in range(40))

CASES = [
    pytest.param(b"hello\r\nworld", id="plain"),
    pytest.param(LINES + b"\x1b[31mred\x1b[0m tail\x1b[2;3H", id="scrollback-style-cursor"),
    pytest.param(b"\x1b[?2004h\x1b[?1h\x1b[?1004hmodes", id="modes"),
    pytest.param(b"\x1b[2;4rregion\x1b[3;1H", id="scroll-region"),
    pytest.param(b"prim1\r\nprim2\r\n\x1b[?1049h\x1b[Halt here\x1b[3;4H", id="alternate-screen"),
    pytest.param(b"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\ after", id="hyperlink"),
    pytest.param("日本語 wide\r\n".encode() * 3, id="wide-chars"),
]


def _state(em: Emulator) -> tuple[object, ...]:
    return (
        em.text_rows(),
        em.ansi_rows(),
        em.cursor,
        em.alternate_screen,
        em.input_modes(),
        em.screen_text(0, em.total_rows, ansi=True),
        em.total_rows,
    )


@pytest.mark.parametrize("data", CASES)
def test_snapshot_replays_to_the_same_state(data: bytes) -> None:
    old = Emulator(30, 8)
    old.feed(data)
    before = _state(old)
    revision = old.revision
    snapshot = old.replay_snapshot()
    assert _state(old) == before, "taking a snapshot must not change the terminal"
    assert old.revision == revision
    new = Emulator(30, 8)
    new.feed(snapshot)
    assert _state(new) == before


def test_primary_screen_survives_under_the_alternate_one() -> None:
    old = Emulator(20, 5)
    old.feed(b"prim1\r\nprim2\r\n\x1b[?1049h\x1b[Halt here")
    new = Emulator(20, 5)
    new.feed(old.replay_snapshot())
    old.feed(b"\x1b[?1049l")
    new.feed(b"\x1b[?1049l")
    assert new.text_rows() == old.text_rows() == ["prim1", "prim2", "", "", ""]
