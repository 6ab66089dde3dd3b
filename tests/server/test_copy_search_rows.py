"""``pane.copy_search``'s read of every row (``methods_copy._all_rows``) on a real
emulator: a long pane is read in slices with the loop free in between, and the answer
is always one revision's rows (the one-piece read's), whatever happens meanwhile."""

from __future__ import annotations

import asyncio

import pytest

from herdr.server import methods_copy as mc
from herdr.server.core import ApiError
from herdr.terminal.emulator import Emulator


class _Term:
    """What ``_all_rows`` reads of a pane's terminal: its emulator and revision."""

    def __init__(self, emulator: Emulator) -> None:
        self.emulator = emulator

    @property
    def revision(self) -> int:
        return self.emulator.revision


def _long_pane(lines: int, cols: int = 40) -> Emulator:
    em = Emulator(cols, 10)
    # every 7th line is longer than the pane: soft wraps all along the scrollback
    em.feed(
        b"".join(
            f"line {i} ".encode() + b"w" * (60 if i % 7 == 0 else 3) + b"\r\n" for i in range(lines)
        )
    )
    return em


def _one_piece(em: Emulator) -> list[object]:
    return list(mc._rows(em, 0, em.total_rows - 1))


async def _read_counting_turns(term: _Term) -> tuple[tuple[int, list[object]], int]:
    """``_all_rows`` while a callback counts the loop turns that ran meanwhile."""
    loop = asyncio.get_running_loop()
    turns = 0
    stop = False

    def tick() -> None:
        nonlocal turns
        if not stop:
            turns += 1
            loop.call_soon(tick)

    loop.call_soon(tick)
    result = await mc._all_rows(term)  # type: ignore[arg-type]
    stop = True
    return (result[0], list(result[1])), turns


async def _rows_equal_the_one_piece_read(lines: int) -> None:
    em = _long_pane(lines)
    term = _Term(em)
    (revision, rows), turns = await _read_counting_turns(term)
    assert rows == _one_piece(em)
    assert revision == em.revision
    assert any(row.wrapped for row in rows) == (lines > 0)  # type: ignore[attr-defined]
    slices = -(-em.total_rows // mc.slice_rows(40))
    assert turns >= slices - 1  # the loop ran between every two slices


@pytest.mark.parametrize("lines", [0, 5, mc.slice_rows(40) - 20, 3 * mc.slice_rows(40) + 100])
def test_rows_equal_the_one_piece_read(lines: int) -> None:
    asyncio.run(_rows_equal_the_one_piece_read(lines))


async def _a_short_pane_is_read_in_one_turn() -> None:
    term = _Term(_long_pane(50))
    _, turns = await _read_counting_turns(term)
    assert turns == 0


def test_a_short_pane_is_read_in_one_turn() -> None:
    asyncio.run(_a_short_pane_is_read_in_one_turn())


async def _output_between_slices_gives_the_new_revisions_rows() -> None:
    em = _long_pane(3 * mc.slice_rows(40))
    term = _Term(em)
    before = em.revision
    loop = asyncio.get_running_loop()
    loop.call_soon(em.feed, b"a new line arrived\r\n" * 30)
    revision, rows = await mc._all_rows(term)  # type: ignore[arg-type]
    assert revision == em.revision != before
    assert list(rows) == _one_piece(em)
    assert "a new line arrived" in rows[-12].text


def test_output_between_slices_gives_the_new_revisions_rows() -> None:
    asyncio.run(_output_between_slices_gives_the_new_revisions_rows())


async def _a_pane_closed_between_slices_is_pane_not_found() -> None:
    em = _long_pane(3 * mc.slice_rows(40))
    asyncio.get_running_loop().call_soon(em.close)
    with pytest.raises(ApiError) as caught:
        await mc._all_rows(_Term(em))  # type: ignore[arg-type]
    assert caught.value.code == "pane_not_found"


def test_a_pane_closed_between_slices_is_pane_not_found() -> None:
    asyncio.run(_a_pane_closed_between_slices_is_pane_not_found())


async def _an_unchanged_pane_is_not_read_again() -> None:
    term = _Term(_long_pane(mc.slice_rows(40) + 10))
    first = await mc._all_rows(term)  # type: ignore[arg-type]
    again = await mc._all_rows(term)  # type: ignore[arg-type]
    assert again[1] is first[1]
    term.emulator.feed(b"more\r\n")
    third = await mc._all_rows(term)  # type: ignore[arg-type]
    assert third[1] is not first[1] and third[0] == term.revision


def test_an_unchanged_pane_is_not_read_again() -> None:
    asyncio.run(_an_unchanged_pane_is_not_read_again())
