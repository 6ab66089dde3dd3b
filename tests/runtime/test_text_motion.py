"""Copy-mode text logic on fixed rows: vi word/WORD motions, line and paragraph
motions, literal smartcase search with cell columns (wide glyphs take two)."""

from __future__ import annotations

import pytest

from herdr.runtime import text_motion as tm
from herdr.runtime.text_motion import TextRow

# Row 0..5 (absolute rows as given, first_row 0).
ROWS = [
    TextRow("foo.bar  baz_1"),  # 0
    TextRow("  (x) y"),  # 1
    TextRow(""),  # 2
    TextRow("界面 ok,go"),  # 3: 界 cols 0-1, 面 2-3, space 4, o 5, k 6, ',' 7, g 8, o 9
    TextRow("wrapped-wo", wrapped=True),  # 4: soft-wraps into row 5
    TextRow("rd end"),  # 5
]

WORD_CASES = [
    # (motion, from, to) -- None: nowhere to go (the server keeps the cursor)
    ("next_word_start", (0, 0), (0, 3)),  # foo -> .
    ("next_word_start", (0, 3), (0, 4)),  # . -> bar
    ("next_word_start", (0, 4), (0, 9)),  # bar -> baz_1 (blanks skipped)
    ("next_word_start", (0, 9), (1, 2)),  # crosses the line end, skips indent
    ("next_word_start", (1, 2), (1, 3)),  # ( -> x
    ("next_word_start", (1, 6), (3, 0)),  # crosses a blank row
    ("next_word_start", (3, 0), (3, 5)),  # 界面 is one word, wide glyphs
    ("next_word_start", (3, 1), (3, 5)),  # right half of 界 is the same glyph
    ("next_word_start", (3, 5), (3, 7)),  # ok -> ,
    ("next_word_start", (4, 7), (4, 8)),  # - -> wo
    ("next_word_start", (4, 8), (5, 3)),  # "wo"+"rd" is one word across the soft wrap
    ("next_word_start", (5, 3), None),  # last word: nowhere to go
    ("next_word_start", (0, 40), (1, 2)),  # past the text = the line end
    ("previous_word_start", (0, 9), (0, 4)),
    ("previous_word_start", (0, 4), (0, 3)),
    ("previous_word_start", (0, 3), (0, 0)),
    ("previous_word_start", (0, 0), None),
    ("previous_word_start", (1, 2), (0, 9)),  # back over the line end
    ("previous_word_start", (3, 0), (1, 6)),  # back over the blank row
    ("previous_word_start", (3, 5), (3, 0)),  # to the wide word's first cell
    ("previous_word_start", (5, 3), (4, 8)),  # the wrapped word starts on row 4
    ("previous_word_start", (2, 0), (1, 6)),  # from a blank row
    ("next_word_end", (0, 0), (0, 2)),
    ("next_word_end", (0, 2), (0, 3)),  # the . alone
    ("next_word_end", (0, 3), (0, 6)),
    ("next_word_end", (0, 6), (0, 13)),
    ("next_word_end", (0, 13), (1, 2)),  # ( on the next line
    ("next_word_end", (3, 0), (3, 2)),  # end of 界面 is 面's first cell
    ("next_word_end", (4, 8), (5, 1)),  # across the soft wrap
    ("next_word_end", (5, 5), None),
    ("next_big_word_start", (0, 0), (0, 9)),  # foo.bar is one WORD
    ("next_big_word_start", (0, 9), (1, 2)),
    ("next_big_word_start", (1, 2), (1, 6)),  # (x) is one WORD
    ("next_big_word_start", (3, 5), (4, 0)),  # ok,go -> next line
    ("next_big_word_start", (4, 0), (5, 3)),  # wrapped-wo|rd is one WORD
    ("previous_big_word_start", (0, 9), (0, 0)),
    ("previous_big_word_start", (1, 6), (1, 2)),
    ("previous_big_word_start", (5, 3), (4, 0)),
    ("previous_big_word_start", (0, 2), (0, 0)),
    ("next_big_word_end", (0, 0), (0, 6)),
    ("next_big_word_end", (1, 2), (1, 4)),
    ("next_big_word_end", (3, 0), (3, 2)),
    ("next_big_word_end", (3, 5), (3, 9)),
    ("next_big_word_end", (4, 0), (5, 1)),
]


@pytest.mark.parametrize(
    ("motion", "start", "end"),
    WORD_CASES,
    ids=[f"{m}-{s[0]}.{s[1]}" for m, s, _ in WORD_CASES],
)
def test_word_motions(motion: str, start: tm.Point, end: tm.Point | None) -> None:
    assert tm.word_motion(ROWS, 0, start, motion) == end


def test_word_motion_rows_are_absolute() -> None:
    """Rows handed in from the middle of the pane keep their absolute numbers."""
    window = ROWS[3:]
    assert tm.word_motion(window, 3, (3, 0), "next_word_start") == (3, 5)
    assert tm.word_motion(window, 3, (4, 8), "next_word_end") == (5, 1)
    assert tm.word_motion(window, 3, (1, 0), "next_word_start") is None  # not in the window


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("", 0, 0),
        ("   ", 0, 0),
        ("abc", 0, 2),
        ("  abc  ", 2, 4),
        ("界面", 0, 2),  # the last glyph starts at col 2
        ("  界x", 2, 4),
        ("e\u0301x", 0, 1),  # a combining mark takes no column
        ("\tx", 1, 1),  # a tab the emulator kept is one cell
    ],
    ids=["empty", "blank", "ascii", "indented", "wide", "wide-indented", "combining", "tab"],
)
def test_line_motions(text: str, first: int, last: int) -> None:
    assert tm.first_non_blank_col(text) == first
    assert tm.line_end_col(text) == last


PARA = ["a", "b", "", "c", "d", "   ", "e"]


@pytest.mark.parametrize(
    ("row", "step", "found"),
    [
        (0, 1, 2),
        (2, 1, 5),  # from a blank row to the next one
        (3, 1, 5),  # a whitespace-only row is blank
        (6, 1, None),  # no blank row below
        (6, -1, 5),
        (4, -1, 2),
        (1, -1, None),
    ],
    ids=["down", "down-from-blank", "down-whitespace", "down-none", "up", "up-far", "up-none"],
)
def test_paragraph_row(row: int, step: int, found: int | None) -> None:
    assert tm.paragraph_row(PARA, 0, row, step) == found


def test_paragraph_row_window_offset_and_reach() -> None:
    assert tm.paragraph_row(PARA[3:], 3, 4, -1) is None  # the blank row 2 is not handed in
    assert tm.paragraph_row(PARA[3:], 3, 3, 1) == 5
    far = ["x"] * (tm.PARAGRAPH_REACH + 5) + [""]
    assert tm.paragraph_row(far, 0, 0, 1) is None  # past the reach: stay


COLS = 4  # the width SEARCH_ROWS were printed at (only wrapped rows need it)
SEARCH_ROWS = [
    TextRow("Foo foo FOO"),  # 0
    TextRow("界foo"),  # 1: 界 0-1, foo 2-4
    TextRow("xxfo", wrapped=True),  # 2
    TextRow("o end"),  # 3: "foo" spans rows 2-3
    TextRow("e\u0301foo"),  # 4: é (e + mark) col 0, foo 1-3
]

SearchCase = tuple[
    str,
    tm.Direction,
    tm.Point,
    tuple[tm.Point, tm.Point] | None,
    list[tuple[tm.Point, tm.Point]] | None,
    int | None,
]


SEARCH_CASES: list[SearchCase] = [
    # (query, direction, cursor, previous, matches, current)
    (
        "foo",
        "forward",
        (0, 0),
        None,
        [
            ((0, 0), (0, 2)),
            ((0, 4), (0, 6)),
            ((0, 8), (0, 10)),
            ((1, 2), (1, 4)),
            ((2, 2), (3, 0)),
            ((4, 1), (4, 3)),
        ],
        1,
    ),
    ("Foo", "forward", (0, 0), None, [((0, 0), (0, 2))], 0),  # smartcase: wraps to itself
    ("FOO", "backward", (4, 0), None, [((0, 8), (0, 10))], 0),
    ("foo", "backward", (1, 2), None, None, 2),  # last match ending before (1,2)
    ("foo", "forward", (0, 0), ((1, 2), (1, 4)), None, 4),  # after the previous match
    ("foo", "backward", (0, 0), ((1, 2), (1, 4)), None, 2),
    ("foo", "forward", (4, 1), None, None, 0),  # past the last: wraps to the first
    ("foo", "backward", (0, 0), None, None, 5),  # before the first: wraps to the last
    ("界f", "forward", (0, 0), None, [((1, 0), (1, 2))], 0),
    ("o e", "forward", (0, 0), None, [((3, 0), (3, 2))], 0),
    ("\u0301", "forward", (0, 0), None, [], None),  # half a glyph is never a match
    ("zzz", "forward", (0, 0), None, [], None),
]


@pytest.mark.parametrize(
    "case",
    SEARCH_CASES,
    ids=[f"{q!r}-{d}-{c[0]}.{c[1]}-{'prev' if p else 'cur'}" for q, d, c, p, _, _ in SEARCH_CASES],
)
def test_search(case: SearchCase) -> None:
    query, direction, cursor, previous, matches, current = case
    window = tm.search(
        SEARCH_ROWS, query, direction, cursor, previous=previous, limit=100, cols=COLS
    )
    if matches is not None:
        assert window.matches == matches
        assert window.total == len(matches)
    assert window.current == current
    assert window.current_global == current


@pytest.mark.parametrize(
    ("cursor_row", "first", "target"),
    [(0, 0, 1), (500, 498, 501), (998, 994, 999), (999, 0, 0), (2000, 0, 0)],
    ids=["top", "middle", "bottom", "last-wraps", "past-the-end-wraps"],
)
def test_search_window_is_capped_around_the_current_match(
    cursor_row: int, first: int, target: int
) -> None:
    """The first match *after* the cursor is current; the window centres on it."""
    rows = [TextRow(f"hit {i}") for i in range(1000)]
    window = tm.search(rows, "hit", "forward", (cursor_row, 0), previous=None, limit=6, cols=COLS)
    assert window.total == 1000
    assert window.matches == [((r, 0), (r, 2)) for r in range(first, first + 6)]
    assert window.current_global == target
    assert window.current == target - first


def test_search_empty_query_finds_nothing() -> None:
    assert (
        tm.search(SEARCH_ROWS, "", "forward", (0, 0), previous=None, limit=10, cols=COLS).total == 0
    )


def test_cells_put_wide_and_combining_glyphs_in_cells() -> None:
    assert [(c.col, c.end_col, c.text) for c in tm.cells("a界e\u0301")] == [
        (0, 0, "a"),
        (1, 2, "界"),
        (3, 3, "e\u0301"),
    ]


def test_a_word_longer_than_the_rows_ends_where_they_end() -> None:
    """A soft-wrapped blob is one word; the motion stops at the last row handed in."""
    rows = [TextRow("x" * 50, wrapped=True) for _ in range(tm.WORD_REACH)]
    last = (tm.WORD_REACH - 1, 49)
    assert tm.word_motion(rows, 0, (0, 0), "next_word_end") == last
    assert tm.word_motion(rows, 0, (0, 0), "next_big_word_start") is None
    assert tm.word_motion(rows, 0, last, "previous_word_start") == (0, 0)


@pytest.mark.parametrize(
    ("rows", "query", "matches"),
    [
        # "ab" then two blank cells the emulator trimmed, wrapped before "cd"
        ([TextRow("ab", wrapped=True), TextRow("cd")], "bc", []),
        ([TextRow("ab", wrapped=True), TextRow("cd")], "b  c", [((0, 1), (1, 0))]),
        ([TextRow("abcd", wrapped=True), TextRow("ef")], "de", [((0, 3), (1, 0))]),
        ([TextRow("a界", wrapped=True), TextRow("界b")], "界界", [((0, 1), (1, 1))]),
        (
            [TextRow("abcd", wrapped=True), TextRow("abcd", wrapped=True), TextRow("ab")],
            "dab",
            [((0, 3), (1, 1)), ((1, 3), (2, 1))],
        ),
    ],
    ids=["trimmed-blanks-kept", "blanks-match", "ascii-wrap", "wide-wrap", "two-wraps"],
)
def test_search_across_soft_wraps(
    rows: list[TextRow], query: str, matches: list[tuple[tm.Point, tm.Point]]
) -> None:
    window = tm.search(rows, query, "forward", (0, 0), previous=None, limit=10, cols=4)
    assert window.matches == matches


def test_search_counts_every_match_but_keeps_only_the_window() -> None:
    rows = [TextRow("a" * 200) for _ in range(2000)]
    window = tm.search(rows, "a", "backward", (1000, 0), previous=None, limit=1024, cols=200)
    assert window.total == 400_000
    assert len(window.matches) == 1024
    assert window.current_global == 999 * 200 + 199  # the last match ending before the cursor
    assert window.current is not None
    assert window.matches[window.current] == ((999, 199), (999, 199))
