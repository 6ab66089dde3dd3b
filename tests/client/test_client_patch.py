"""The rows-only fast path (``App._patch`` → ``compose.patch``) draws what the full path
draws: the same bytes on the terminal and the same frame, case by case.

Each case runs twice on a fresh client, once as shipped and once with the fast path
turned off, from the same state document and stream lines; the terminal output of the
two runs must be byte-identical. The typing cases must also have taken the fast path.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from herdr.api.attach_messages import Rows, State, StateDoc, decode_state, encode_line
from herdr.api.attach_messages import Toast as ToastLine
from herdr.client.ansi import strip_ansi
from herdr.client.app import App
from herdr.client.compose import compose
from herdr.client.settings import UiSettings

COLS, ROWS = 120, 30
LEFT = (0, 0, 50, 28)  # pane rects in the pane area (with the header row above)
RIGHT = (51, 0, 50, 28)


def _doc(
    *,
    label: str = "proj",
    zoomed: bool = False,
    focused: str = "w1:p1",
    right: bool = True,
    revision: int = 0,
    p2: bool = True,
    p3: bool = True,
) -> StateDoc:
    panes = [["w1:p1", *LEFT]]
    if right and not zoomed:
        panes.append(["w1:p2", *RIGHT])
    if zoomed:
        panes = [[focused, 0, 0, 101, 28]]
    return decode_state(
        {
            "workspaces": [
                {"workspace_id": "w1", "label": label, "active_tab_id": "w1:t1"},
            ],
            "tabs": [{"tab_id": "w1:t1", "workspace_id": "w1", "label": "1"}],
            "panes": [
                {"pane_id": "w1:p1", "workspace_id": "w1", "tab_id": "w1:t1", "cwd": "/a"},
                {"pane_id": "w1:p2", "workspace_id": "w1", "tab_id": "w1:t1", "cwd": "/b"},
            ][: 2 if p2 else 1]
            + [  # a pane in a tab not shown (its revision moves as it prints)
                {"pane_id": "w1:p3", "workspace_id": "w1", "tab_id": "w1:t2", "revision": revision}
            ][: 1 if p3 else 0],
            "layouts": {
                "w1:t1": {"zoomed": zoomed, "focused_pane_id": focused, "panes": panes},
            },
            "focused": ["w1", "w1:t1", focused],
            "area": [101, 28],
        }
    )


def _rows(
    pane_id: str,
    rows: list[tuple[int, str]],
    *,
    cursor: tuple[int, int] | None = (0, 0),
    full: bool = False,
    size: tuple[int, int] = (50, 28),
    **modes: Any,
) -> bytes:
    return encode_line(
        Rows(pane_id=pane_id, size=size, rows=rows, cursor=cursor, full=full, **modes)
    )


def _screen(pane_id: str, text: str) -> bytes:
    return _rows(pane_id, [(y, f"{text} {y}") for y in range(28)], full=True)


def _typed(text: str, y: int = 0) -> bytes:
    return _rows("w1:p1", [(y, f"$ {text}")], cursor=(2 + len(text), y))


Step = bytes | Callable[[App], None]

TYPING: list[Step] = [_typed("l"), _typed("ls"), _typed("ls -l")]
CASES: dict[str, list[Step]] = {
    "typing": TYPING,
    "typing-several-lines-in-one-read": [_typed("a") + _typed("ab") + _typed("abc", 1)],
    "wide-char-and-styles": [
        _rows("w1:p1", [(0, "$ 漢字\x1b[31mred\x1b[0m ok")], cursor=(12, 0)),
        _rows("w1:p1", [(0, "$ 漢字\x1b[1;32m" + "x" * 60)], cursor=(49, 0)),
    ],
    "row-scrolled": [
        _rows("w1:p1", [(y, f"line {y + 1}") for y in range(28)], cursor=(0, 27), offset=3),
        _typed("next", 27),
    ],
    "neighbour-pane-output": [
        _rows("w1:p2", [(5, "out 5"), (6, "\x1b[7mout 6")], cursor=None),
        _typed("x"),
    ],
    "both-panes-one-read": [
        _rows("w1:p2", [(0, "out 0"), (3, "out 3")], cursor=None)
        + _typed("a")
        + _rows("w1:p2", [(0, "out 0 again")], cursor=None),
        _typed("ab") + _rows("w1:p2", [(y, f"scrolled {y}") for y in range(28)], cursor=None),
    ],
    "full-update": [_typed("x"), _screen("w1:p1", "redrawn")],
    "new-height": [_rows("w1:p1", [(0, "short")], size=(50, 20)), _typed("y")],
    "cursor-hidden-then-back": [
        _rows("w1:p1", [(0, "$ hidden")], cursor=None),
        _typed("shown"),
    ],
    "app-cursor-and-keyboard-modes": [
        _rows("w1:p1", [(0, "$ vim")], app_cursor=True, kitty=1, mok=2),
        _typed("q"),
    ],
    "pane-not-shown": [_rows("w1:p9", [(0, "elsewhere")]), _typed("z")],
    # a document that changes nothing shown (a revision moved): typing stays patched
    "unchanged-document": [
        _typed("a"),
        encode_line(State(state=_doc(revision=1))),
        _typed("ab") + encode_line(State(state=_doc(revision=2))) + _typed("abc"),
        encode_line(State(state=_doc(revision=3))),
        _typed("abcd"),
    ],
    # rows of a pane, then a document that closed it, in one read
    "rows-then-its-pane-closed": [
        _typed("a"),
        _rows("w1:p2", [(0, "bye")]) + encode_line(State(state=_doc(right=False, p2=False))),
        _typed("ab"),
    ],
    "rows-then-hidden-pane-closed": [
        _typed("a"),
        _rows("w1:p3", [(0, "bye")]) + encode_line(State(state=_doc(p3=False))),
        _typed("ab"),
    ],
    "sidebar-change": [
        _typed("a"),
        encode_line(State(state=_doc(label="renamed"))),
        _typed("ab"),
    ],
    "zoom": [
        _typed("a"),
        encode_line(State(state=_doc(zoomed=True))),
        _typed("ab"),
        encode_line(State(state=_doc())),
        _typed("abc"),
    ],
    "focus-moves": [
        _typed("a"),
        encode_line(State(state=_doc(focused="w1:p2"))),
        _rows("w1:p2", [(0, "$ there")], cursor=(7, 0)),
        _typed("ab"),
    ],
    "message-shown": [_typed("a"), lambda app: app.notice("hello"), _typed("ab")],
    "help-overlay-open": [_typed("a"), lambda app: _keys(app, b"\x02?"), _typed("ab")],
    "prefix-pending": [lambda app: _keys(app, b"\x02"), _typed("a")],
    "toast": [
        lambda app: app.show_toast(ToastLine(title="built", body="ok", seconds=30)),
        _typed("a"),
    ],
    "copy-mode": [
        _typed("a"),
        lambda app: app.start_copy(),
        _typed("ab"),
        lambda app: _keys(app, b"k"),
        _typed("abc"),
        lambda app: app.leave_copy(),
        _typed("abcd"),
    ],
    "resize": [_typed("a"), lambda app: _resize(app, 100, 24), _typed("ab")],
}


def _guess(data: bytes) -> Step:
    """Keys typed into the focused pane, as the stdin path hands them to the predictor."""
    return lambda app: app._guess(app.focused_pane_id(), data)


def _expire(app: App) -> None:
    """The pending guesses' time runs out (their timer fires)."""
    if app.predictor is None:
        return  # the run without guessing
    assert app.predictor.pending
    app.predictor.pending = [g._replace(at=g.at - 60.0) for g in app.predictor.pending]
    app._predict_due()


def _shows(text: str, *, shown: bool = True) -> Step:
    """With guessing on: whether the frame drawn last shows ``text``."""

    def check(app: App) -> None:
        if app.predictor is not None and app.frame is not None:
            on_screen = any(text in strip_ansi(row) for row in app.frame.rows)
            assert on_screen == shown, (text, [strip_ansi(r) for r in app.frame.rows[:3]])

    return check


# predictive echo (remote attach, predictive_echo = "always"): guesses drawn over the rows
PREDICTED: dict[str, list[Step]] = {
    "predicted-typing": [
        _typed("a"),  # echoed before any guess: the first guess of the run is confirmed by it
        _guess(b"b"),
        _shows("$ ab", shown=False),  # the run's first guess waits for its echo
        _typed("ab"),
        _guess(b"c"),
        _shows("$ abc"),
        _guess(b"de"),
        _shows("$ abcde"),
        _typed("abc"),
        _shows("$ abcde"),
        _typed("abcde"),
    ],
    "predicted-then-expired": [
        _typed(""),  # at the prompt: the cursor after "$ "
        _guess(b"a"),
        _typed("a"),
        _guess(b"bc"),
        _shows("$ abc"),
        _expire,
        _shows("$ ab", shown=False),
    ],
    "predicted-with-neighbour-output": [
        _typed(""),  # at the prompt: the cursor after "$ "
        _guess(b"a"),
        _typed("a"),
        _guess(b"b"),
        _rows("w1:p2", [(5, "out 5")], cursor=None),
        _shows("$ ab"),
        _guess(b"\x7f"),
        _shows("$ ab", shown=False),
        _typed("ab"),
    ],
    "predicted-then-contradicted": [
        _typed(""),  # at the prompt: the cursor after "$ "
        _guess(b"a"),
        _typed("a"),
        _guess(b"b"),
        _shows("$ ab"),
        _typed("aX"),
        _shows("$ ab", shown=False),
    ],
}


def _keys(app: App, data: bytes) -> None:
    app.handle_events(app.parser.feed(data))


def _resize(app: App, cols: int, rows: int) -> None:
    app.cols, app.rows = cols, rows
    app.draw(force=True)


def _run(
    tmp_path: Path, steps: list[Step], *, fast: bool, predict: bool = False
) -> tuple[bytes, Any, int]:
    """The terminal output of ``steps``, the last frame and how many batches patched."""
    out_path = tmp_path / ("fast.out" if fast else "full.out")
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    patched = 0

    async def scenario() -> Any:
        nonlocal patched
        app = App(
            str(tmp_path / "none.sock"),
            settings=UiSettings(),
            fd_out=fd,
            predict="always" if predict else "never",
        )
        app._done = asyncio.get_running_loop().create_future()
        app.cols, app.rows = COLS, ROWS
        shipped = app._patch

        def counted(changed: dict[str, list[int] | None]) -> bool:
            nonlocal patched
            done = fast and shipped(changed)
            patched += done
            return done

        app._patch = counted  # type: ignore[method-assign]
        start = encode_line(State(state=_doc())) + _screen("w1:p1", "$") + _screen("w1:p2", "#")
        for step in [start, *steps]:
            if isinstance(step, bytes):
                app._on_stream_lines(step.rstrip(b"\n").split(b"\n"))
            else:
                step(app)
            await asyncio.sleep(0)  # scheduled draws run
        assert not app._done.done(), app.exit_detail
        return app.frame, compose(*app.view_parts())

    try:
        frame, full = asyncio.run(scenario())
    finally:
        os.close(fd)
    return out_path.read_bytes(), (frame, full), patched


@pytest.mark.parametrize("steps", list(CASES.values()), ids=list(CASES))
def test_fast_path_draws_what_the_full_path_draws(
    tmp_path: Path, steps: list[Step], request: pytest.FixtureRequest
) -> None:
    fast_bytes, (fast_frame, _), patched = _run(tmp_path, steps, fast=True)
    full_bytes, (full_frame, recomposed), _ = _run(tmp_path, steps, fast=False)
    assert fast_bytes == full_bytes
    assert fast_frame.rows == full_frame.rows and fast_frame.cursor == full_frame.cursor
    if request.node.callspec.id in (
        "typing",
        "typing-several-lines-in-one-read",
        "unchanged-document",
        "both-panes-one-read",
    ):
        assert patched == len(steps)  # every echo took the fast path
        assert fast_frame.rows == recomposed.rows and fast_frame.cursor == recomposed.cursor


@pytest.mark.parametrize("steps", list(PREDICTED.values()), ids=list(PREDICTED))
def test_guesses_are_drawn_alike_both_ways(tmp_path: Path, steps: list[Step]) -> None:
    """Predicted keys take the fast path too (every step patched) and draw what the
    full path draws; the guesses were on screen and are gone once echoed or expired."""
    fast_bytes, (fast_frame, _), patched = _run(tmp_path, steps, fast=True, predict=True)
    full_bytes, (full_frame, recomposed), _ = _run(tmp_path, steps, fast=False, predict=True)
    assert fast_bytes == full_bytes
    assert fast_frame.rows == full_frame.rows == recomposed.rows
    assert fast_frame.cursor == full_frame.cursor == recomposed.cursor
    assert patched >= sum(1 for step in steps if isinstance(step, bytes))
    _, (plain_frame, _), _ = _run(tmp_path, steps, fast=True)
    assert fast_frame.rows == plain_frame.rows  # nothing guessed is left at the end


def test_a_neighbours_rows_do_not_resume_guessing(tmp_path: Path) -> None:
    """After a key that was not guessed, only the focused pane's own rows resume
    guessing (while guesses are drawn, too)."""
    fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT, 0o600)

    def feed(app: App, data: bytes) -> None:
        app._on_stream_lines(data.rstrip(b"\n").split(b"\n"))

    async def scenario() -> None:
        app = App(str(tmp_path / "none.sock"), settings=UiSettings(), fd_out=fd, predict="always")
        app._done = asyncio.get_running_loop().create_future()
        app.cols, app.rows = COLS, ROWS
        feed(app, encode_line(State(state=_doc())) + _screen("w1:p1", "$") + _screen("w1:p2", "#"))
        feed(app, _typed(""))
        app._guess("w1:p1", b"a")
        feed(app, _typed("a"))
        app._guess("w1:p1", b"b")
        predictor = app.predictor
        assert predictor is not None and predictor.shown()
        predictor.interrupt()  # an arrow key, say
        feed(app, _rows("w1:p2", [(5, "out 5")], cursor=None))
        assert predictor.stale
        feed(app, _typed("ab", 0))
        assert not predictor.stale
        if app._predict_timer is not None:
            app._predict_timer.cancel()

    try:
        asyncio.run(scenario())
    finally:
        os.close(fd)


def test_overlays_and_chrome_changes_take_the_full_path(tmp_path: Path) -> None:
    """While something is drawn over the panes, no batch is patched."""
    steps: list[Step] = [lambda app: _keys(app, b"\x02?"), *TYPING]
    _, _, patched = _run(tmp_path, steps, fast=True)
    assert patched == 0


def test_a_frame_row_is_recomposed_once_per_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Side-by-side panes that both changed row 0 in one read: frame row 1 (the panes'
    row 0, under their title row) is built once, not once per pane."""
    from herdr.client import compose as compose_module

    built: list[int] = []
    shipped = compose_module._row

    def counted(plan: Any, widths: Any, sources: Any) -> str:
        built.append(id(plan))
        return shipped(plan, widths, sources)

    batch = _rows("w1:p2", [(0, "right")], cursor=None) + _typed("left")
    steps: list[Step] = [lambda app: built.clear(), batch]
    monkeypatch.setattr(compose_module, "_row", counted)
    _, _, patched = _run(tmp_path, steps, fast=True)
    assert patched == 1
    assert len(built) == 1
