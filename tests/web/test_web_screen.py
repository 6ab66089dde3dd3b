"""Styled rows → the page's runs: colours as the terminal said them, no escape leaks."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.terminal.emulator import Emulator
from herdr.web.screen import Style, apply_sgr, frame, row_runs

SGR_CASES = [
    ("reset", "0", {"b": 1}, {}),
    ("empty-is-reset", "", {"fg": 1}, {}),
    ("bold-red", "1;31", {}, {"b": 1, "fg": 1}),
    ("bright-fg", "92", {}, {"fg": 10}),
    ("bright-bg", "101", {}, {"bg": 9}),
    ("256-fg", "38;5;200", {}, {"fg": 200}),
    ("256-bg-colon", "48:5:17", {}, {"bg": 17}),
    ("truecolor", "38;2;1;2;255", {}, {"fg": "#0102ff"}),
    ("truecolor-colon-cs", "48:2::10:20:30", {}, {"bg": "#0a141e"}),
    ("truncated-extended", "38;5", {}, {}),
    ("default-fg", "39", {"fg": 3, "bg": 4}, {"bg": 4}),
    ("unbold-clears-faint", "22", {"b": 1, "d": 1, "i": 1}, {"i": 1}),
    ("inverse-underline", "7;4", {}, {"r": 1, "u": 1}),
    ("then-more", "38;5;1;1", {}, {"fg": 1, "b": 1}),
]


@pytest.mark.parametrize(
    ("raw", "before", "after"), [c[1:] for c in SGR_CASES], ids=[c[0] for c in SGR_CASES]
)
def test_apply_sgr(raw: str, before: dict[str, Any], after: dict[str, Any]) -> None:
    style = dict(before)
    apply_sgr(style, raw)
    assert style == after


ROW_CASES = [
    ("plain", "hello", [["hello", 0]]),
    ("styled", "\x1b[1mA\x1b[0mB", [["A", 1], ["B", 0]]),
    ("merges-same-style", "\x1b[31ma\x1b[0m\x1b[31mb", [["ab", 1]]),
    ("drops-osc8", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", [["link", 0]]),
    ("drops-cursor-moves", "a\x1b[2Jb\x1b[5;5Hc", [["abc", 0]]),
    ("drops-controls", "a\x07\x08b\rc", [["abc", 0]]),
    ("wide", "中文", [["中文", 0]]),
]


@pytest.mark.parametrize(("row", "runs"), [c[1:] for c in ROW_CASES], ids=[c[0] for c in ROW_CASES])
def test_row_runs(row: str, runs: list[list[Any]]) -> None:
    styles: dict[Style, int] = {(): 0}
    assert row_runs(row, styles) == runs


def test_frame_from_the_emulators_own_rows() -> None:
    emulator = Emulator(20, 3)
    try:
        emulator.feed(b"\x1b[1;31mred\x1b[0m ok\r\n\x1b[38;2;1;2;3mrgb\x1b[0m")
        shot = frame(emulator.ansi_rows(), cols=emulator.cols, cursor=(3, 1))
    finally:
        emulator.close()
    styles = shot["styles"]
    assert styles[0] == {}
    assert shot["rows"] == 3 and shot["cols"] == 20 and shot["cursor"] == [3, 1]
    first, second, third = shot["lines"]
    assert "".join(text for text, _ in first).rstrip() == "red ok"
    assert styles[first[0][1]] == {"b": 1, "fg": 1}
    assert styles[second[0][1]] == {"fg": "#010203"}
    assert "".join(text for text, _ in third).strip() == ""
