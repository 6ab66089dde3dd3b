"""ANSI-aware width and clipping: cut by display cells, keep styles, drop the rest."""

from __future__ import annotations

import subprocess
import sys
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.client.ansi import (
    ansi_width,
    char_width,
    clip_ansi,
    color_sgr,
    fit,
    slice_ansi,
    strip_ansi,
    text_width,
    truncate,
)


@pytest.mark.parametrize(
    ("text", "width"),
    [("abc", 3), ("日本", 4), ("a日b", 4), ("🚀x", 3), ("e\u0301", 1), ("", 0), ("\x07a", 1)],
)
def test_text_width(text: str, width: int) -> None:
    assert text_width(text) == width


def test_char_width_zero_for_combining_and_controls() -> None:
    assert char_width("\u0301") == 0
    assert char_width("\x1b") == 0
    assert char_width("日") == 2


class ClipCase(NamedTuple):
    test_id: str
    row: str
    width: int
    plain: str


CLIP_CASES = [
    ClipCase("pad_plain", "ab", 5, "ab   "),
    ClipCase("cut_plain", "abcdef", 3, "abc"),
    ClipCase("styled_cut", "\x1b[31mredred\x1b[0m tail", 4, "redr"),
    ClipCase("wide_fits", "日本", 4, "日本"),
    ClipCase("wide_cut_pads", "日本", 3, "日 "),
    ClipCase("wide_at_one", "日", 1, " "),
    ClipCase("combining_kept", "e\u0301x", 1, "e\u0301"),
    ClipCase("cursor_moves_dropped", "a\x1b[2Jb\x1b[10;10Hc", 5, "abc  "),
    ClipCase("osc_dropped", "a\x1b]0;evil title\x07b", 3, "ab "),
    ClipCase("controls_dropped", "a\rb\nc\x08", 4, "abc "),
    ClipCase("empty", "", 3, "   "),
]


@pytest.mark.parametrize("case", CLIP_CASES, ids=[c.test_id for c in CLIP_CASES])
def test_clip_ansi(case: ClipCase) -> None:
    out = clip_ansi(case.row, case.width)
    assert ansi_width(out) == case.width
    assert strip_ansi(out) == case.plain
    assert "\x1b[2J" not in out and "\x1b]" not in out and "\r" not in out


def test_clip_keeps_styles_and_resets_before_padding() -> None:
    out = clip_ansi("\x1b[1;31mhi", 5)
    assert out == "\x1b[1;31mhi\x1b[0m   "


def test_slice_reemits_styles_in_force() -> None:
    row = "\x1b[32mgreen\x1b[0m plain \x1b[44mblue"
    out = slice_ansi(row, 2, 3)
    assert out == "\x1b[32meen\x1b[0m"
    assert slice_ansi(row, 6, 5) == "plain"
    assert slice_ansi(row, 12, 2) == "\x1b[44mbl\x1b[0m"


def test_slice_wide_char_cut_at_left_edge() -> None:
    assert strip_ansi(slice_ansi("日本語", 1, 4)) == " 本 "


def test_truncate_and_fit() -> None:
    assert truncate("workspace", 5) == "work…"
    assert truncate("日本語", 4) == "日…"
    assert fit("ab", 4) == "ab  "
    assert fit("日本語", 5) == "日本…"
    assert text_width(fit("日本語", 4)) == 4


@pytest.mark.parametrize(
    ("value", "params"),
    [
        ("cyan", "36"),
        ("bright-red", "91"),
        ("#89b4fa", "38;2;137;180;250"),
        ("rgb(1, 2, 3)", "38;2;1;2;3"),
        ("reset", "39"),
        ("nonsense", "39"),
    ],
)
def test_color_sgr(value: str, params: str) -> None:
    assert color_sgr(value) == params


_ROWS = st.lists(
    st.sampled_from(
        ["a", "b", " ", "日", "🚀", "\u0301", "\x1b[31m", "\x1b[0m", "\x1b[2J", "\x07"]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_ROWS, st.integers(min_value=0, max_value=30), st.integers(min_value=0, max_value=30))
def test_slices_are_always_exactly_the_width(row: str, start: int, width: int) -> None:
    out = slice_ansi(row, start, width)
    assert ansi_width(out) == width
    assert "\x1b[2J" not in out and "\x07" not in out


# Borders, bars and spinners are measured without wcwidth's tables (imported lazily for
# any other non-ASCII); the answers are wcwidth's.
@pytest.mark.parametrize(
    "ch",
    [
        *"─│┼╭█▌░⠋⣿",  # the narrow ranges
        *"·●○◉—…→›▸✓",  # the rest of herdr's chrome
        *"é\u0301中🙂",  # asked of wcwidth
    ],
    ids=lambda ch: f"U+{ord(ch):04X}",
)
def test_char_width_is_wcwidths(ch: str) -> None:
    from wcwidth import wcwidth

    assert char_width(ch) == max(wcwidth(ch), 0)


def test_client_import_and_a_border_frame_leave_wcwidth_unloaded() -> None:
    code = (
        "import sys\n"
        "import herdr.client.app\n"
        "from herdr.client.ansi import ansi_width\n"
        "assert ansi_width('\\x1b[1m╭──┤ ⠋ agent ├──╮\\x1b[0m │ █▌ ok') == 25\n"
        "print('wcwidth' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"
