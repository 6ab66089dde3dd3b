"""Predictive local echo (:mod:`herdr.client.predict`): guesses, epochs, confirmation,
expiry and the adaptive switch, on pane mirrors as the attach stream builds them."""

from __future__ import annotations

import pytest

from herdr.client.ansi import strip_ansi
from herdr.client.mirror import PaneMirror
from herdr.client.predict import (
    HIDE_BELOW_S,
    MAX_EXPIRY_S,
    MIN_EXPIRY_S,
    SHOW_ABOVE_S,
    Predictor,
    cell,
    expiry,
    hard_expiry,
)

W, H = 40, 3
P = "p1"


def pane(
    first: str, cursor: tuple[int, int] | None, *, scroll: int = 0, alt: bool = False
) -> PaneMirror:
    rows = (first, "", "")
    return PaneMirror(rows=rows, cursor=cursor, size=(W, H), scroll=(scroll, H), alt=alt)


def at_prompt(text: str = "$ ") -> PaneMirror:
    return pane(text, (len(strip_ansi(text)), 0))


def confirmed_run(mode: str = "always") -> Predictor:
    """A predictor whose epoch the server has confirmed: 'a' typed and echoed."""
    pred = Predictor(mode)  # type: ignore[arg-type]
    assert pred.typed(P, at_prompt(), b"a", 0.0) is False  # tentative: not drawn
    assert pred.observe(P, at_prompt("$ a"), 0.05) is False
    assert pred.pending == [] and pred.confirmed == pred.epoch
    return pred


def text_of(overlay: tuple[tuple[str, ...], tuple[int, int] | None] | None) -> str:
    assert overlay is not None
    return strip_ansi(overlay[0][0]).rstrip()


def test_first_guess_of_an_epoch_is_not_drawn_until_the_server_echoes_one() -> None:
    pred = confirmed_run()
    assert pred.typed(P, at_prompt("$ a"), b"b", 0.1) is True  # drawn at once
    overlay = pred.overlay(P, at_prompt("$ a"))
    assert text_of(overlay) == "$ ab" and overlay is not None and overlay[1] == (4, 0)
    assert pred.typed(P, at_prompt("$ a"), b"cd", 0.11) is True  # typing ahead of the echo
    assert text_of(pred.overlay(P, at_prompt("$ a"))) == "$ abcd"
    # the server echoes b and c: only d is still a guess, drawn over the server's rows
    assert pred.observe(P, at_prompt("$ abc"), 0.15) is True
    assert [g.char for g in pred.pending] == ["d"]
    assert text_of(pred.overlay(P, at_prompt("$ abc"))) == "$ abcd"
    assert pred.observe(P, at_prompt("$ abcd"), 0.2) is True
    assert pred.pending == [] and pred.overlay(P, at_prompt("$ abcd")) is None


def test_a_typed_space_is_confirmed_by_the_cursor_not_by_its_blank_cell() -> None:
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b" b", 0.1)
    # rows before the echo (another row changed): the space's cell is blank already
    assert pred.observe(P, at_prompt("$ a"), 0.11) is False
    assert [g.char for g in pred.pending] == [" ", "b"]
    assert text_of(pred.overlay(P, at_prompt("$ a"))) == "$ a b"
    pred.observe(P, at_prompt("$ a "), 0.12)  # the space echoed: the cursor moved on
    assert [g.char for g in pred.pending] == ["b"]
    assert text_of(pred.overlay(P, at_prompt("$ a "))) == "$ a b"


def test_a_prompt_that_never_echoes_shows_nothing() -> None:
    pred = confirmed_run()
    assert pred.typed(P, at_prompt("$ a"), b"\r", 0.1) is False  # Enter: a new epoch
    assert pred.stale
    prompt = at_prompt("Password: ")
    pred.observe(P, prompt, 0.2)  # the rows moved: guessing may resume
    for i, key in enumerate(b"secret"):
        assert pred.typed(P, prompt, bytes([key]), 0.3 + i / 100) is False
        assert pred.shown() == [] and pred.overlay(P, prompt) is None
    assert pred.observe(P, prompt, 0.3 + MIN_EXPIRY_S + 0.1) is False  # expired, unseen
    assert pred.pending == []


def test_a_password_with_a_space_stays_hidden_after_enter() -> None:
    """A typed space is echoed when the cursor moves past it on its row; that drops
    the space but proves nothing of its run (Enter moved the cursor to the next row)."""
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b"\r", 0.1)
    prompt = at_prompt("[sudo] password: ")
    pred.observe(P, prompt, 0.2)
    pred.typed(P, prompt, b"ab cd", 0.3)
    pred.typed(P, prompt, b"\r", 0.35)
    after = pane("[sudo] password: ", (0, 1))
    pred.observe(P, after, 0.4)
    assert pred.overlay(P, after) is None and pred.shown() == []


def test_guesses_are_confirmed_in_order() -> None:
    """vim's normal mode on an empty line: ``j`` moves down, the space right; the
    space's cell and the cursor say nothing about ``j``, which never echoed."""
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ vim"), b"\r", 0.1)
    empty = PaneMirror(rows=("", "text", ""), cursor=(0, 0), size=(W, H))
    pred.observe(P, empty, 0.2)
    pred.typed(P, empty, b"j ", 0.3)
    moved = PaneMirror(rows=("", "text", ""), cursor=(1, 1), size=(W, H))
    pred.observe(P, moved, 0.35)
    assert pred.overlay(P, moved) is None
    # a later guess whose cell matches waits for the earlier one of its run
    pred2 = confirmed_run()
    pred2.typed(P, at_prompt("$ a"), b"\r", 0.1)
    pred2.observe(P, at_prompt("$ "), 0.2)
    pred2.typed(P, at_prompt("$ "), b"xy", 0.3)
    assert pred2.observe(P, pane("$  y", (2, 0)), 0.31) is False
    assert pred2.confirmed < pred2.epoch and [g.char for g in pred2.pending] == ["x", "y"]


def test_a_scroll_back_drops_the_guesses() -> None:
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b"x", 0.1)
    back = pane("old output", None, scroll=5)  # the wheel: the pane shows its history
    assert pred.overlay(P, back) is None
    assert pred.observe(P, back, 0.15) is True and pred.pending == []


def test_backspace_and_a_key_in_one_read_redraw() -> None:
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b"x", 0.1)
    assert pred.typed(P, at_prompt("$ a"), b"\x7fy", 0.12) is True  # same count, new char
    assert text_of(pred.overlay(P, at_prompt("$ a"))) == "$ ay"


def test_a_contradicted_guess_and_those_after_it_are_dropped() -> None:
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b"jk", 0.1)
    assert len(pred.shown()) == 2
    epoch = pred.epoch
    # the program drew something else where j was guessed (vim's normal mode moved)
    assert pred.observe(P, pane("$ aX", (4, 0)), 0.12) is True
    assert pred.pending == [] and pred.epoch == epoch + 1
    # the next guess belongs to the new epoch: not drawn until one of it is confirmed
    assert pred.typed(P, pane("$ aX", (4, 0)), b"z", 0.13) is False


def test_an_unconfirmed_guess_expires() -> None:
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b"q", 1.0)
    assert pred.deadline() == pytest.approx(1.0 + hard_expiry(pred.srtt))  # quiet so far
    pred.observe(P, at_prompt("$ a"), 1.01)  # rows came (another row): the soft limit
    assert pred.deadline() == pytest.approx(1.0 + expiry(pred.srtt))
    assert pred.observe(P, at_prompt("$ a"), 1.0 + expiry(pred.srtt) / 2) is False  # waits
    assert pred.shown()
    assert pred.observe(P, at_prompt("$ a"), 1.0 + expiry(pred.srtt) + 0.01) is True
    assert pred.pending == [] and pred.deadline() is None


def test_a_quiet_pane_keeps_a_guess_until_the_hard_expiry() -> None:
    """No rows since the key (a loaded machine, a slow link): the guess waits for its
    echo past the soft expiry, and a key never echoed still goes at the hard one."""
    pred = Predictor("always")
    pred.typed(P, at_prompt(), b"a", 0.0)  # tentative; the timer alone looks at it
    assert pred.deadline() == pytest.approx(hard_expiry(None))
    assert pred.observe(P, at_prompt(), expiry(None) + 0.1, moved=False) is False
    assert [g.char for g in pred.pending] == ["a"]
    pred.observe(P, at_prompt("$ a"), expiry(None) + 0.2)  # the late echo confirms it
    assert pred.pending == [] and pred.confirmed == pred.epoch
    pred.typed(P, at_prompt("$ a"), b"Q", 1.0)  # drawn; the pane never answers
    assert (
        pred.observe(P, at_prompt("$ a"), 1.0 + hard_expiry(pred.srtt) - 0.01, moved=False) is False
    )
    assert pred.observe(P, at_prompt("$ a"), 1.0 + hard_expiry(pred.srtt) + 0.01, moved=False)
    assert pred.pending == []


@pytest.mark.parametrize(
    ("mirror", "why"),
    [
        (pane("$ ab cd", (3, 0)), "text right of the cursor"),
        (pane("$", (W - 1, 0)), "the last column wraps"),
        (pane("$ ", None), "the program hides its cursor"),
        (pane("$ ", (2, 0), scroll=5), "the pane is scrolled back"),
        (pane("$ \x1b[7m \x1b[0mright", (2, 0)), "styled text further right"),
    ],
)
def test_no_guess_where_an_echo_could_move_other_cells(mirror: PaneMirror, why: str) -> None:
    pred = confirmed_run()
    assert pred.typed(P, mirror, b"x", 0.1) is False, why
    assert pred.pending == [] and pred.stale


def test_backspace_takes_back_a_guess_not_echoed_yet() -> None:
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b"xy", 0.1)
    assert pred.typed(P, at_prompt("$ a"), b"\x7f", 0.11) is True
    assert text_of(pred.overlay(P, at_prompt("$ a"))) == "$ ax"
    assert pred.typed(P, at_prompt("$ a"), b"\x7f", 0.12) is True
    assert pred.pending == []
    # nothing left to take back: the next backspace is a key like any other
    assert pred.typed(P, at_prompt("$ a"), b"\x7f", 0.13) is False and pred.stale


@pytest.mark.parametrize("data", [b"\r", b"\t", b"\x1b", b"\x03", "é".encode(), b"a\rb"], ids=repr)
def test_other_keys_end_the_run(data: bytes) -> None:
    pred = confirmed_run()
    epoch = pred.epoch
    pred.typed(P, at_prompt("$ a"), data, 0.1)
    assert pred.epoch > epoch and pred.stale
    assert all(g.char == "a" for g in pred.pending)  # only what came before the key
    assert pred.typed(P, at_prompt("$ a"), b"z", 0.11) is False  # waits for the rows


def test_guessing_resumes_only_when_the_panes_own_rows_move() -> None:
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b"\x1b", 0.1)  # an arrow key, say: not guessed
    pred.observe(P, at_prompt("$ a"), 0.2, moved=False)  # a neighbour's rows, a timer
    assert pred.stale and pred.typed(P, at_prompt("$ a"), b"b", 0.21) is False
    assert pred.pending == []
    pred.observe(P, at_prompt("$ a"), 0.3)  # this pane's rows: the key was answered
    assert not pred.stale
    pred.typed(P, at_prompt("$ a"), b"b", 0.31)
    assert [g.char for g in pred.pending] == ["b"]


def test_interrupt_hides_nothing_already_guessed_but_starts_a_new_epoch() -> None:
    pred = confirmed_run()
    pred.typed(P, at_prompt("$ a"), b"b", 0.1)
    assert pred.interrupt() is False and pred.shown()  # b is still on its way
    assert pred.stale


def test_another_pane_size_or_screen_drops_the_guesses() -> None:
    for other_pane, mirror in [
        ("p2", at_prompt("$ a")),
        (P, PaneMirror(rows=("$ a", "", "", ""), cursor=(3, 0), size=(W, 4))),
        (P, pane("$ a", (3, 0), alt=True)),
    ]:
        pred = confirmed_run()
        pred.typed(P, at_prompt("$ a"), b"b", 0.1)
        assert pred.observe(other_pane, mirror, 0.11) is True
        assert pred.pending == []


def test_never_guesses_nothing() -> None:
    pred = Predictor("never")
    assert pred.typed(P, at_prompt(), b"abc", 0.0) is False
    assert pred.pending == [] and pred.observe(P, at_prompt("$ abc"), 0.1) is False


def test_adaptive_draws_only_while_the_echo_is_slow() -> None:
    pred = Predictor("adaptive")
    mirror, now = at_prompt(), 0.0
    text = "$ "

    def key(char: str, rtt: float) -> bool:
        nonlocal mirror, now, text
        drawn = pred.typed(P, mirror, char.encode(), now)
        now += rtt
        text += char
        mirror = at_prompt(text)
        pred.observe(P, mirror, now)
        now += 0.05
        return drawn

    assert not any(key(c, 0.001) for c in "abcde")  # a fast link: never drawn
    assert pred.srtt is not None and pred.srtt < HIDE_BELOW_S
    drawn = [key(c, 0.080) for c in "fghijklmnopq"]
    assert pred.srtt > SHOW_ABOVE_S and drawn[-1] and not drawn[0]
    while pred.srtt >= HIDE_BELOW_S:
        key("r", 0.001)
        text = "$ "
        mirror = at_prompt(text)
        pred.observe(P, mirror, now)
    assert not pred.drawing() and not key("s", 0.001)


def test_overlay_keeps_the_rows_styles() -> None:
    pred = confirmed_run()
    styled = pane("\x1b[32m$\x1b[0m a", (3, 0))
    pred.typed(P, styled, b"b", 0.1)
    overlay = pred.overlay(P, styled)
    assert overlay is not None
    assert overlay[0][0].startswith("\x1b[32m$") and strip_ansi(overlay[0][0]).rstrip() == "$ ab"
    assert overlay[0][1:] == styled.rows[1:]
    assert pred.overlay("p2", styled) is None  # another pane: not for it


@pytest.mark.parametrize(("srtt", "underlined"), [(0.05, False), (0.2, True)])
def test_guesses_are_underlined_on_a_very_slow_link(srtt: float, underlined: bool) -> None:
    pred = confirmed_run()
    pred.srtt = srtt
    pred.typed(P, at_prompt("$ a"), b"b", 0.1)
    overlay = pred.overlay(P, at_prompt("$ a"))
    assert overlay is not None and text_of(overlay) == "$ ab"
    assert ("\x1b[4mb\x1b[24m" in overlay[0][0]) is underlined


@pytest.mark.parametrize(
    ("srtt", "expected"),
    [(None, MIN_EXPIRY_S), (0.05, MIN_EXPIRY_S), (0.4, 0.9), (5.0, MAX_EXPIRY_S)],
)
def test_expiry(srtt: float | None, expected: float) -> None:
    assert expiry(srtt) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("row", "x", "expected"),
    [("$ ab", 2, "a"), ("$ ab", 9, " "), ("\x1b[1mX\x1b[0mY", 1, "Y"), ("宽z", 2, "z")],
)
def test_cell(row: str, x: int, expected: str) -> None:
    assert cell(row, x) == expected
