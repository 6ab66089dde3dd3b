"""The TUI's client-local effects: toasts, window titles, right-click routing and the
agent view, driven through the app's own message handlers onto a real pipe."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from herdr.api.attach_messages import Input, Rows, Toast, WindowTitle, decode_state
from herdr.client.ansi import ansi_width, strip_ansi
from herdr.client.app import TITLE_RESTORE, TITLE_SAVE, App
from herdr.client.input import Mouse
from herdr.client.settings import UiSettings
from herdr.client.toast import Toast as Shown
from herdr.client.toast import make_toast, overlay
from herdr.client.view import Frame


def _read_all(fd: int) -> bytes:
    os.set_blocking(fd, False)
    out = b""
    try:
        while chunk := os.read(fd, 65536):
            out += chunk
    except (BlockingIOError, OSError):
        pass
    return out


def _doc(**extra: Any) -> Any:
    panes: list[dict[str, Any]] = [
        {
            "pane_id": "w1:p1",
            "workspace_id": "w1",
            "tab_id": "w1:t1",
            "agent": "claude",
            "agent_status": "working",
            "tokens": {"prio": "b"},
        },
        {
            "pane_id": "w1:p2",
            "workspace_id": "w1",
            "tab_id": "w1:t1",
            "agent": "codex",
            "agent_status": "blocked",
        },
        {
            "pane_id": "w2:p1",
            "workspace_id": "w2",
            "tab_id": "w2:t1",
            "agent": "pi",
            "agent_status": "done",
        },
    ]
    for pane in panes:
        pane.update(extra.pop(pane["pane_id"], {}))
    return decode_state(
        {
            "workspaces": [
                {"workspace_id": "w1", "label": "one", "active_tab_id": "w1:t1"},
                {"workspace_id": "w2", "label": "two", "active_tab_id": "w2:t1"},
            ],
            "tabs": [
                {"tab_id": "w1:t1", "workspace_id": "w1", "label": "1"},
                {"tab_id": "w2:t1", "workspace_id": "w2", "label": "1"},
            ],
            "panes": panes,
            "layouts": {
                "w1:t1": {
                    "focused_pane_id": "w1:p1",
                    "panes": [["w1:p1", 0, 0, 30, 20], ["w1:p2", 31, 0, 29, 20]],
                },
                "w2:t1": {"focused_pane_id": "w2:p1", "panes": [["w2:p1", 0, 0, 60, 20]]},
            },
            "focused": ["w1", "w1:t1", "w1:p1"],
            "area": [60, 20],
            **extra,
        }
    )


def _app(tmp_path: Path, **settings: Any) -> tuple[App, int]:
    read_end, write_end = os.pipe()
    app = App(str(tmp_path / "none.sock"), settings=UiSettings(**settings), fd_out=write_end)
    app.cols, app.rows = 90, 24
    return app, read_end


def _screen(app: App) -> str:
    assert app.frame is not None
    return "\n".join(strip_ansi(row) for row in app.frame.rows)


# ----------------------------------------------------------------------------- pure overlay


@pytest.mark.parametrize(
    ("position", "x", "y"),
    [
        ("top-left", 1, 1),
        ("top-right", 40 - 12 - 1, 1),
        ("bottom-left", 1, 10 - 4 - 1),
        ("bottom-right", 40 - 12 - 1, 10 - 4 - 1),
    ],
    ids=["top-left", "top-right", "bottom-left", "bottom-right"],
)
def test_overlay_corners(position: str, x: int, y: int) -> None:
    frame = Frame(40, tuple("." * 40 for _ in range(10)))
    toast = Shown("hello", "body", position)
    out = overlay(frame, toast)
    rows = [strip_ansi(r) for r in out.rows]
    assert all(ansi_width(r) == 40 for r in out.rows)  # every row keeps its width
    assert rows[y][x] == "╭" and rows[y + 3][x + 11] == "╯"  # MIN_WIDTH wide
    assert "hello" in rows[y + 1] and "body" in rows[y + 2]
    assert rows[0 if y > 1 else 9] == "." * 40  # the rest of the frame is untouched


def test_overlay_skips_a_frame_too_small() -> None:
    frame = Frame(10, ("." * 10,) * 3)
    assert overlay(frame, Shown("hello")) is frame


def test_make_toast_sanitises_and_defaults() -> None:
    toast = make_toast("a\x1b[31mb\x07", "x\x9b\ny", "middle", "top-left")
    assert toast == Shown("a[31mb", "x y", "top-left")
    assert make_toast("\x1b\x07", "", None, "bottom-right") is None


# ----------------------------------------------------------------------------- the app


def test_toast_is_drawn_rings_and_expires(tmp_path: Path) -> None:
    app, out = _app(tmp_path)

    async def scenario() -> None:
        app._done = asyncio.get_running_loop().create_future()
        app.apply_state(_doc())
        app.show_toast(Toast(title="build failed", body="3 tests", sound="request", seconds=0.2))
        assert _read_all(out) == b"\a"
        app.draw()
        assert "build failed" in _screen(app) and "3 tests" in _screen(app)
        for _ in range(100):
            if app.toast is None:
                break
            await asyncio.sleep(0.05)
        app.draw()
        assert app.toast is None and "build failed" not in _screen(app)

    asyncio.run(scenario())


def test_no_bell_when_the_bell_is_off_or_sound_is_none(tmp_path: Path) -> None:
    app, out = _app(tmp_path, bell=False)

    async def scenario() -> None:
        app.show_toast(Toast(title="a", sound="done"))
        app2, out2 = _app(tmp_path)
        app2.show_toast(Toast(title="b", sound="none"))
        assert _read_all(out) == b"" and _read_all(out2) == b""

    asyncio.run(scenario())


def test_terminal_delivery_is_one_clean_osc9(tmp_path: Path) -> None:
    app, out = _app(tmp_path)
    app.show_toast(Toast(title="t\x1b\\x", body="b\x07", delivery="terminal"))
    assert _read_all(out) == b"\x1b]9;t\\x: b\x1b\\"
    assert app.toast is None


def test_window_title_is_saved_set_sanitised_and_restored(tmp_path: Path) -> None:
    app, out = _app(tmp_path)
    app.set_window_title(WindowTitle(title="w1\x1b]2;x\x07"))
    assert _read_all(out) == TITLE_SAVE + b"\x1b]2;w1]2;x\x1b\\"
    app.set_window_title(WindowTitle(title="again"))
    assert _read_all(out) == b"\x1b]2;again\x1b\\"  # saved once
    app.set_window_title(WindowTitle(title=None))
    assert _read_all(out) == TITLE_RESTORE
    app.set_window_title(WindowTitle(title=None))
    assert _read_all(out) == b""  # nothing of ours to restore


def _mouse_rows(pane_id: str) -> Rows:
    return Rows(pane_id=pane_id, size=(30, 20), rows=[(0, "$ ")], mouse=1000, full=True)


@pytest.mark.parametrize(
    ("routing", "button", "forwarded"),
    [(None, "right", False), ("pane", "right", True), (None, "left", True)],
    ids=["herdr_keeps_right_clicks", "pane_gets_right_clicks", "left_always_forwarded"],
)
def test_right_click_routing(
    tmp_path: Path, routing: str | None, button: str, forwarded: bool
) -> None:
    app, _out = _app(tmp_path)
    sent: list[Any] = []
    app.conn.send = sent.append  # type: ignore[method-assign,assignment]
    requests: list[tuple[str, dict[str, Any]]] = []
    app.request = lambda method, params, **_: requests.append((method, params))  # type: ignore[method-assign]
    extra = {"w1:p2": {"right_click": routing}} if routing else {}
    app.apply_state(_doc(**extra))
    app.apply_rows(_mouse_rows("w1:p1"))
    app.apply_rows(_mouse_rows("w1:p2"))
    app.draw()
    assert app.frame is not None
    area = app.frame.pane_area
    x, y = area.x + 31 + 2, area.y + 2  # inside w1:p2 (not focused)
    app.mouse(Mouse("press", button, x, y, 0, b""))
    inputs = [m for m in sent if isinstance(m, Input)]
    assert bool(inputs) == forwarded
    if not forwarded:
        assert requests == [("pane.focus", {"pane_id": "w1:p2"})]  # herdr's click focuses


def test_agent_view_replaces_the_sidebar_agent_list(tmp_path: Path) -> None:
    app, _out = _app(tmp_path, sidebar_width=30)
    app.cols = 120  # below 100 columns the sidebar shows its marks only
    view = {
        "source": "example.views",
        "label": "Needs me",
        "filter": {"op": "in", "field": "status", "values": ["blocked", "done"]},
        "sort": [{"field": "agent", "order": "desc"}],
    }
    app.apply_state(_doc(agent_view=view))
    built = app.build_view()
    assert built.agents_title == "Needs me" and built.agent_panel_sort == "view"
    assert [a.pane_id for a in built.agents] == ["w2:p1", "w1:p2"]  # every workspace
    app.draw()
    screen = _screen(app)
    assert "Needs me" in screen and "Agents" not in screen
    app.apply_state(_doc())
    built = app.build_view()
    assert built.agents_title == "Agents" and [a.pane_id for a in built.agents] == [
        "w1:p1",
        "w1:p2",
    ]
