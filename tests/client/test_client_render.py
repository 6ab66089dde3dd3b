"""Row-diff renderer and host terminal setup/restore."""

from __future__ import annotations

import itertools
import re

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.client.ansi import strip_ansi
from herdr.client.compose import Frame, PaneView, ViewState, compose, pane_area
from herdr.client.render import (
    SYNC_BEGIN,
    SYNC_END,
    HostModes,
    keyboard_mirror,
    kitty_keyboard_push,
    modify_other_keys,
    render,
    restore_sequence,
    setup_sequence,
)
from herdr.runtime import layout as L
from herdr.terminal.emulator import Emulator

CUP = re.compile(rb"\x1b\[(\d+);1H")


def frame(rows: list[str], cursor: tuple[int, int] | None = None) -> Frame:
    width = max((len(r) for r in rows), default=0)
    return Frame(width, tuple(r.ljust(width) for r in rows), cursor)


def rows_written(data: bytes) -> list[int]:
    return [int(m.group(1)) - 1 for m in CUP.finditer(data)]


def test_identical_frames_emit_nothing() -> None:
    f = frame(["abc", "def"], cursor=(1, 1))
    assert render(f, f) == b""
    assert render(f, msgspec.structs.replace(f, rows=tuple(f.rows))) == b""


def test_only_changed_rows_are_written_inside_sync() -> None:
    old = frame(["aaaa", "bbbb", "cccc", "dddd"])
    new = frame(["aaaa", "bXbb", "cccc", "dddY"])
    out = render(old, new)
    assert out.startswith(SYNC_BEGIN) and out.endswith(SYNC_END)
    assert rows_written(out) == [1, 3]
    assert b"aaaa" not in out and b"cccc" not in out


def test_resize_and_first_frame_redraw_everything() -> None:
    small = frame(["ab", "cd"])
    big = frame(["abc", "def", "ghi"])
    assert rows_written(render(None, big)) == [0, 1, 2]
    assert rows_written(render(small, big)) == [0, 1, 2]
    assert b"\x1b[2J" in render(small, big)
    assert rows_written(render(big, big, force=True)) == [0, 1, 2]


def test_cursor_only_change_moves_the_cursor() -> None:
    old = frame(["abc", "def"], cursor=(0, 0))
    new = msgspec.structs.replace(old, cursor=(2, 1))
    out = render(old, new)
    assert rows_written(out) == []
    assert b"\x1b[2;3H\x1b[?25h" in out
    hidden = render(new, msgspec.structs.replace(new, cursor=None))
    assert b"\x1b[?25l" in hidden and b"\x1b[?25h" not in hidden


def test_blank_runs_become_erase_commands() -> None:
    row = "ab\x1b[0m" + " " * 20 + "cd\x1b[0m" + " " * 30
    out = render(None, Frame(54, (row,)))
    assert b"\x1b[20X\x1b[20C" in out and b"\x1b[K" in out
    assert b" " * 20 not in out


def _screen(data: list[bytes], cols: int, rows: int) -> tuple[list[str], tuple[int, int]]:
    emu = Emulator(cols, rows)
    for chunk in data:
        emu.feed(chunk)
    return emu.text_rows(), emu.cursor


def _expected(f: Frame) -> list[str]:
    return [strip_ansi(r).rstrip() for r in f.rows]


def test_emulator_shows_exactly_the_composed_frame_after_diffs() -> None:
    base = ViewState(100, 24)
    area = pane_area(base)
    tree: L.Node[str] = L.Split("right", 0.4, L.Leaf("a"), L.Leaf("b"))
    geo = L.compute(tree, L.Rect(0, 0, area.width, area.height))

    def view(step: int) -> ViewState:
        panes = tuple(
            PaneView(
                pid,
                rect,
                tuple(
                    f"\x1b[3{y % 7}m{pid}{step if pid == 'b' else 0}\x1b[0m 日本 " + "z" * (y % 9)
                    for y in range(rect.height)
                ),
                title=f"t{step}",
                cursor=(step % 5, 2),
            )
            for pid, rect in geo.panes.items()
        )
        return msgspec.structs.replace(base, panes=panes, focused_pane_id="b")

    frames = [compose(view(step)) for step in range(4)]
    writes = [render(None, frames[0])]
    writes += [render(a, b) for a, b in itertools.pairwise(frames)]
    text, cursor = _screen(writes, 100, 24)
    assert [t.rstrip() for t in text] == _expected(frames[-1])
    assert cursor == frames[-1].cursor
    assert all(len(w) < len(writes[0]) for w in writes[1:])  # diffs are smaller


_CELLS = st.sampled_from(["a", "b", " ", "日", "\x1b[31m", "\x1b[0m", "\x1b[44m"])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.lists(_CELLS, max_size=30).map("".join), min_size=6, max_size=6),
        min_size=1,
        max_size=4,
    )
)
def test_any_frame_sequence_renders_to_the_last_frame(sequence: list[list[str]]) -> None:
    from herdr.client.ansi import clip_ansi

    frames = [Frame(24, tuple(clip_ansi(r, 24) for r in rows)) for rows in sequence]
    writes = [render(None, frames[0])]
    writes += [render(a, b) for a, b in itertools.pairwise(frames)]
    text, _ = _screen(writes, 24, 6)
    assert [t.rstrip() for t in text] == _expected(frames[-1])


# --------------------------------------------------------------------------- host modes


@pytest.mark.parametrize(
    "modes",
    [
        HostModes(),
        HostModes(kitty_flags=1),
        HostModes(alt_screen=False, mouse=False),
        HostModes(kitty_flags=31, focus_events=False),
    ],
    ids=["default", "kitty", "no_alt_no_mouse", "kitty_all"],
)
def test_restore_undoes_every_mode_set(modes: HostModes) -> None:
    setup, restore = setup_sequence(modes), restore_sequence(modes)
    for mode in re.findall(rb"\x1b\[\?(\d+)h", setup):
        if mode == b"25":
            continue  # cursor: setup hides it, restore shows it
        assert b"\x1b[?" + mode + b"l" in restore, mode
    if b"\x1b[?25l" in setup:
        assert b"\x1b[?25h" in restore
    if re.search(rb"\x1b\[>\d+u", setup):
        assert re.search(rb"\x1b\[<\d*u", restore)
    assert restore.endswith(b"\x1b[?1049l") == modes.alt_screen


def test_restore_without_knowing_the_modes_covers_mirrors() -> None:
    restore = restore_sequence()
    assert b"\x1b[<" in restore  # kitty flags pushed for a pane are popped
    assert b"\x1b[>4m" in restore  # modifyOtherKeys reset
    for mode in (b"1000", b"1002", b"1003", b"1006", b"2004", b"1004", b"1049", b"2026"):
        assert b"\x1b[?" + mode + b"l" in restore
    assert kitty_keyboard_push(1) == b"\x1b[>1u"
    assert modify_other_keys(2) == b"\x1b[>4;2m"


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        pytest.param((0, 0), (0, 0), b"", id="unchanged"),
        pytest.param((0, 0), (1, 0), b"\x1b[>1u", id="push"),
        pytest.param((1, 0), (31, 0), b"\x1b[<1u\x1b[>31u", id="replace"),
        pytest.param((5, 0), (0, 0), b"\x1b[<1u", id="pop"),
        pytest.param((0, 0), (0, 2), b"\x1b[>4;2m", id="modify-other-keys"),
        pytest.param((1, 2), (0, 0), b"\x1b[<1u\x1b[>4;0m", id="both-off"),
    ],
)
def test_keyboard_mirror(before: tuple[int, int], after: tuple[int, int], expected: bytes) -> None:
    assert keyboard_mirror(before, after) == expected


_BASE = Frame(20, ("a" * 20, "b" * 20, " " * 20, "d" * 20), (3, 1))
ROW_HINTS = {
    "one-row": (("a" * 19 + "x", *_BASE.rows[1:]), (4, 0), [0]),
    "two-rows-unordered": (("x" * 20, "b" * 20, "\x1b[31m" + "y" * 20, "d" * 20), (0, 2), [2, 0]),
    "repeated-row": (("a" * 20, "z" * 20, " " * 20, "d" * 20), (3, 1), [1, 1]),
    "cursor-only": (_BASE.rows, (5, 1), []),
    "cursor-hidden": (_BASE.rows, None, []),
    "nothing": (_BASE.rows, (3, 1), []),
    "hint-names-an-unchanged-row": (_BASE.rows, (3, 1), [3]),
    "wide-and-blank-run": (("漢字" + " " * 16, *_BASE.rows[1:]), (2, 0), [0]),
}


@pytest.mark.parametrize(("rows", "cursor", "hint"), list(ROW_HINTS.values()), ids=list(ROW_HINTS))
def test_render_with_a_row_hint_writes_the_same_bytes(
    rows: tuple[str, ...], cursor: tuple[int, int] | None, hint: list[int]
) -> None:
    """The patch path names the rows it changed; the bytes are render's without it."""
    new = Frame(20, rows, cursor)
    assert render(_BASE, new, rows=hint) == render(_BASE, new)
    assert render(_BASE, new, rows=hint, force=True) == render(_BASE, new, force=True)
    assert render(None, new, rows=hint) == render(None, new)
