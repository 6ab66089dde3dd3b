"""The Emulator adapter and the read sources, driven with byte strings (no PTY)."""

from __future__ import annotations

import gc
import random
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.terminal import views
from herdr.terminal.emulator import (
    DEFAULT_SCROLLBACK_BYTES,
    DEFAULT_SCROLLBACK_LINES,
    Emulator,
    InputModes,
)


def emu(cols: int = 20, rows: int = 5) -> Emulator:
    return Emulator(cols, rows)


@pytest.mark.parametrize(
    ("query", "reply"),
    [
        pytest.param(b"ab\x1b[6n", b"\x1b[1;3R", id="cpr"),
        pytest.param(b"\x1b[c", b"\x1b[?62;22c", id="da1"),
        pytest.param(b"\x1b[>c", b"\x1b[>1;0;0c", id="da2"),
        pytest.param(b"\x1b[5n", b"\x1b[0n", id="status"),
        pytest.param(b"\x1b[?2004h\x1b[?2004$p", b"\x1b[?2004;1$y", id="decrqm-set"),
        pytest.param(b"\x1b[?2004$p", b"\x1b[?2004;2$y", id="decrqm-reset"),
    ],
)
def test_replies_go_to_callback(query: bytes, reply: bytes) -> None:
    replies: list[bytes] = []
    e = Emulator(80, 24, on_reply=replies.append)
    e.feed(query)
    assert replies == [reply]


def test_reply_callback_errors_do_not_escape_feed() -> None:
    def boom(_data: bytes) -> None:
        raise RuntimeError("pty gone")

    e = emu()
    e.set_on_reply(boom)
    e.feed(b"\x1b[6nok")
    assert e.text_rows()[0] == "ok"


def test_no_callback_means_replies_are_dropped() -> None:
    e = emu()
    e.feed(b"\x1b[6nx")
    assert e.text_rows()[0] == "x"


def test_alternate_screen_keeps_primary() -> None:
    e = emu()
    e.feed(b"primary\r\nscreen")
    assert not e.alternate_screen
    e.feed(b"\x1b[?1049h\x1b[2J\x1b[HFULLSCREEN")
    assert e.alternate_screen
    assert e.text_rows()[0] == "FULLSCREEN"
    e.feed(b"\x1b[?1049l")
    assert not e.alternate_screen
    assert e.text_rows()[:2] == ["primary", "screen"]


def test_title_and_progress() -> None:
    e = emu()
    e.feed("\x1b]0;✳ Claude\x07\x1b]9;4;3;\x1b\\".encode())
    assert e.title == "✳ Claude"
    assert e.osc.title == "✳ Claude"
    assert e.osc.progress == "4;3;"
    assert e.library_title() == "✳ Claude"


def test_input_modes() -> None:
    e = emu()
    assert e.input_modes() == InputModes(False, False, False, False, 0, False)
    e.feed(b"\x1b[?1h\x1b[?2004h\x1b[?1000h\x1b[?1006h\x1b[?1004h")
    assert e.input_modes() == InputModes(False, True, True, True, 1000, True)
    e.feed(b"\x1b[?1003h")
    assert e.input_modes().mouse_tracking == 1003
    assert e.mode(2004)
    assert not e.mode(2026)


def test_scrollback_is_bounded_in_bytes_and_far_out_in_rows() -> None:
    """herdr's limit is bytes; a binding line cap makes the library trim row by row
    (slow), so the rows cap sits where only narrow panes reach it."""
    e = emu(cols=40, rows=10)
    assert e.scrollback_limits == (DEFAULT_SCROLLBACK_LINES, DEFAULT_SCROLLBACK_BYTES)
    assert DEFAULT_SCROLLBACK_LINES >= 20_000
    e.feed(b"".join(b"line %05d\r\n" % i for i in range(12_000)))
    # The library's default byte cap would keep only a page or two (~230 rows); the
    # old 10 000-line cap would stop at 10 000.
    assert e.scrollback_rows == 12_000 - 10 + 1
    assert e.total_rows == e.scrollback_rows + 10


@pytest.mark.parametrize(
    ("cols", "limit_bytes"), [(40, 1_000_000), (80, 2_000_000), (200, 2_000_000)]
)
def test_the_byte_cap_bounds_the_rows_kept(cols: int, limit_bytes: int) -> None:
    e = Emulator(cols, 10, scrollback_bytes=limit_bytes)
    e.feed(b"".join(b"line %05d\r\n" % i for i in range(20_000)))
    kept = e.scrollback_rows
    assert 0 < kept < 20_000
    # about one row of cells per row kept (8 bytes a cell), never past the cap
    assert kept * cols * 8 <= limit_bytes
    assert kept * cols * 8 >= limit_bytes // 3


def test_at_80_columns_the_bytes_bind_before_the_rows() -> None:
    e = Emulator(80, 24)
    e.feed(b"".join(b"line %06d\r\n" % i for i in range(60_000)))
    kept = e.scrollback_rows
    assert 10_000 < kept < DEFAULT_SCROLLBACK_LINES  # bounded by the 10 MB, not by rows


def test_a_line_cap_still_applies_when_asked() -> None:
    e = Emulator(40, 10, scrollback_lines=500)
    assert e.scrollback_limits == (500, DEFAULT_SCROLLBACK_BYTES)
    e.feed(b"".join(b"line %05d\r\n" % i for i in range(2_000)))
    assert 500 <= e.scrollback_rows < 2_000 - 10  # at least the cap, page-granular


def test_the_default_cap_is_the_servers_default() -> None:
    from herdr.config.server_settings import ServerSettings

    assert ServerSettings().scrollback_limit_bytes == DEFAULT_SCROLLBACK_BYTES


def test_resize_reflows_and_counts() -> None:
    e = emu(cols=10, rows=4)
    e.feed(b"0123456789ABCDE")
    assert e.text_rows()[:2] == ["0123456789", "ABCDE"]
    seq, rev = e.content_seq, e.revision
    e.resize(20, 4)
    assert (e.cols, e.rows) == (20, 4)
    assert e.text_rows()[0] == "0123456789ABCDE"
    assert e.content_seq > seq
    assert e.revision > rev
    e.resize(20, 4)  # no-op
    assert e.content_seq == seq + 1


def test_counters_grow_on_feed() -> None:
    e = emu()
    e.feed(b"")
    assert e.content_seq == 0
    e.feed(b"x")
    e.feed(b"y")
    assert (e.content_seq, e.revision) == (2, 2)


def test_cursor() -> None:
    e = emu()
    e.feed("日本x\r\nab".encode())
    assert e.cursor == (2, 1)
    e.feed(b"\x1b[3;5H")
    assert e.cursor == (4, 2)
    assert e.cursor_visible
    e.feed(b"\x1b[?25l")
    assert not e.cursor_visible


def test_changed_rows_compare_text(monkeypatch: pytest.MonkeyPatch) -> None:
    e = emu()
    first = e.take_changed_rows()
    assert set(first) == {0, 1, 2, 3, 4}
    assert e.take_changed_rows() == {}
    e.feed(b"\x1b[31mred\x1b[0m")
    changed = e.take_changed_rows()
    assert list(changed) == [0]
    assert "\x1b[38;5;1mred" in changed[0]
    e.feed(b"\r\x1b[31mred\x1b[0m")  # identical rewrite: dirty but unchanged
    assert e.take_changed_rows() == {}
    e.feed(b"\x1b[3;1Hz")
    assert list(e.take_changed_rows()) == [2]
    e.forget_sent_rows()
    e.feed(b"!")
    assert list(e.take_changed_rows()) == [2]

    calls = 0
    real = Emulator._run_formatter

    def counting(self: Emulator, *args: object, **kwargs: object) -> str:
        nonlocal calls
        calls += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Emulator, "_run_formatter", counting)
    e.feed(b"\x1b[1;1Ha\x1b[2;1Hb\x1b[5;1Hc")
    assert sorted(e.take_changed_rows()) == [0, 1, 4]
    assert calls == 1  # one formatter call per pane, not per row


def test_ansi_rows_shape() -> None:
    e = emu(cols=10, rows=4)
    e.feed(b"\x1b[1;44mAB\x1b[0m\r\n\r\nplain")
    rows = e.ansi_rows()
    assert len(rows) == 4
    assert rows[0].startswith("\x1b[0m\x1b[1m\x1b[48;5;4mAB")
    assert rows[1] == ""
    assert rows[2].startswith("plain")
    assert rows[3] == ""


def test_bottom_rows() -> None:
    e = emu(cols=10, rows=4)
    e.feed(b"a\r\nb\r\nc\r\nd")
    assert e.bottom_rows(2) == ["c", "d"]
    assert e.bottom_rows(99) == ["a", "b", "c", "d"]
    assert e.bottom_rows(0) == []
    e.feed(b"\x1b[2J\x1b[Htop")
    assert e.bottom_rows(2) == ["", ""]


# -- read sources over a real emulator ----------------------------------------


def test_detection_text_is_bottom_of_whole_buffer() -> None:
    e = emu(cols=20, rows=4)
    assert views.detection_text(e) == ""
    e.feed(b"".join(b"line %d   \r\n" % i for i in range(50)))
    e.feed(b"prompt> ")
    assert views.detection_text(e) == "line 47\nline 48\nline 49\nprompt>\n"


def test_detection_text_drops_trailing_blank_rows_without_extending() -> None:
    e = emu(cols=20, rows=4)
    e.feed(b"".join(b"old %d\r\n" % i for i in range(10)))
    e.feed(b"\x1b[2J\x1b[Hnew")
    assert views.detection_text(e) == "new\n"


def test_detection_text_cells() -> None:
    e = emu(cols=20, rows=3)
    e.feed("a\x1b[3Cb 日本 👨‍👩‍👧 é\u0301\r\n".encode())
    assert views.detection_text(e) == "a   b 日本 👨‍👩‍👧 é\u0301\n"


def test_detection_text_on_alternate_screen() -> None:
    e = emu(cols=20, rows=3)
    e.feed(b"shell\r\n\x1b[?1049h\x1b[H\x1b[2Jagent ui")
    assert views.detection_text(e) == "agent ui\n"


def test_reads_ignore_viewport_scrolling() -> None:
    e = emu(cols=20, rows=4)
    e.feed(b"".join(b"line %d\r\n" % i for i in range(30)) + b"end")
    detection, visible, rows = views.detection_text(e), views.visible(e), e.ansi_rows()
    e.take_changed_rows()
    e.scroll_viewport(-10)
    assert e.scroll_offset == 10
    assert e.viewport_text() == "line 17\nline 18\nline 19\nline 20"
    assert views.detection_text(e) == detection == "line 27\nline 28\nline 29\nend\n"
    assert views.visible(e) == visible
    assert e.ansi_rows() == rows
    e.feed(b"!")
    assert e.take_changed_rows() == {3: "end!"}  # still tracked while scrolled
    e.scroll_to_bottom()
    assert e.scroll_offset == 0


def test_visible_and_recent() -> None:
    e = emu(cols=10, rows=3)
    e.feed(b"".join(b"r%d\r\n" % i for i in range(20)))
    e.feed(b"0123456789abcde")  # soft-wraps onto a second row
    assert views.visible(e) == "r19\n0123456789\nabcde\n"
    assert views.visible(e, lines=1) == "abcde\n"
    assert views.recent(e, 5) == "r17\nr18\nr19\n0123456789\nabcde\n"
    assert views.recent_unwrapped(e, 5) == "r17\nr18\nr19\n0123456789abcde\n"
    assert views.recent(e).startswith("r0\n")
    assert views.recent(e, 0) == ""


def test_ansi_read_sources() -> None:
    e = emu(cols=10, rows=3)
    e.feed(b"x\r\n\x1b[32mgreen\x1b[0m")
    assert "\x1b[38;5;2mgreen" in views.visible(e, ansi=True)
    assert views.visible(e, 1, ansi=True).startswith("\x1b[0m\x1b[38;5;2mgreen")
    assert "\x1b[38;5;2mgreen" in views.recent(e, ansi=True)
    assert "\x1b[38;5;2mgreen" in views.recent_unwrapped(e, ansi=True)


# -- robustness ----------------------------------------------------------------


def _hostile_stream(rng: random.Random, size: int) -> list[bytes]:
    fragments = [
        b"\x1b[",
        b"\x1b]",
        b"\x1bP",
        b"\x1b_G",
        b"\x07",
        b"\x1b\\",
        b"\x1b[?1049h",
        b"\x1b[?1049l",
        b"\x1b[1;2;3g",
        b"\x1b[999;999H",
        b"\x1b[38;2;300;-1;5m",
        b"\x1b]0;" + b"t" * 5000,
        b"\x1b[6n",
        b"\x1b[?2026h",
        "日本❯⠋🚀".encode(),
        b"\xff\xfe\xc3",
        b"\r\n",
    ]
    chunks: list[bytes] = []
    total = 0
    while total < size:
        if rng.random() < 0.5:
            chunk = rng.randbytes(rng.randint(1, 4096))
        else:
            chunk = b"".join(rng.choice(fragments) for _ in range(rng.randint(1, 64)))
        chunks.append(chunk)
        total += len(chunk)
    return chunks


def test_two_megabytes_of_hostile_bytes_and_resizes() -> None:
    rng = random.Random(20240601)
    replies: list[bytes] = []
    e = Emulator(80, 24, on_reply=replies.append)
    for index, chunk in enumerate(_hostile_stream(rng, 2 * 1024 * 1024)):
        e.feed(chunk)
        if index % 25 == 0:
            e.resize(rng.randint(1, 300), rng.randint(1, 120))
        if index % 50 == 0:
            e.take_changed_rows()
    assert isinstance(views.detection_text(e), str)
    assert len(e.ansi_rows()) == e.rows
    e.resize(80, 24)
    e.feed(b"\x1b[?1049l\x1bc still alive")
    assert "still alive" in views.visible(e)


def test_closed_emulator_ignores_feed() -> None:
    e = emu()
    e.close()
    assert e.closed
    e.feed(b"ignored")
    e.close()


def test_emulator_is_collected() -> None:
    e = emu()
    e.set_on_reply(lambda _b: None)
    ref = weakref.ref(e)
    del e
    gc.collect()
    assert ref() is None


_STYLES = ["", "\x1b[1m", "\x1b[31m", "\x1b[44m", "\x1b[4;32m", "\x1b[7m", "\x1b[0m"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_STYLES), st.text("ab 日✓-", max_size=12), st.booleans()),
        max_size=30,
    ),
    st.integers(0, 5),
    st.integers(0, 5),
)
def test_ansi_row_ranges_match_whole_screen(
    pieces: list[tuple[str, str, bool]], first: int, span: int
) -> None:
    """A range read gives the very strings a whole-screen read gives (styles carried
    over a line break included): the dirty-row path relies on it."""
    e = emu(cols=12, rows=6)
    e.feed("".join(s + t + ("\r\n" if nl else "") for s, t, nl in pieces).encode())
    whole = e.ansi_rows()
    last = first + span
    assert e.ansi_rows(first, last) == whole[first : min(last, 5) + 1]


def test_input_modes_cache_follows_escape_sequences() -> None:
    e = emu()
    assert not e.input_modes().bracketed_paste
    e.feed(b"plain text, no escapes")
    assert not e.input_modes().bracketed_paste
    e.feed(b"x\x1b[?2004hy")
    assert e.input_modes().bracketed_paste
    e.feed(b"more text")
    assert e.input_modes().bracketed_paste
    e.feed(b"\x1b[?2004l")
    assert not e.input_modes().bracketed_paste
    e.feed(b"\x1b[?1049h")
    assert e.input_modes().alternate_screen
