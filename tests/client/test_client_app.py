"""The TUI app's pure-ish parts: host terminal restore, view building, attention bell."""

from __future__ import annotations

import asyncio
import base64
import os
import pty
import termios
from pathlib import Path
from typing import Any

from herdr.api.attach_messages import Input, Rows, Scroll, StateDoc, decode_state
from herdr.client.app import App
from herdr.client.mirror import PaneMirror
from herdr.client.render import ALT_SCREEN_OFF, MOUSE_OFF
from herdr.client.settings import UiSettings, load_ui_settings
from herdr.client.terminal import HostTerminal
from herdr_testing import HerdrEnv


def _read_all(fd: int) -> bytes:
    os.set_blocking(fd, False)
    out = b""
    try:
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            out += chunk
    except (BlockingIOError, OSError):
        pass
    return out


def test_host_terminal_raw_mode_and_restore() -> None:
    master, slave = pty.openpty()
    try:
        before = termios.tcgetattr(slave)
        assert before[3] & termios.ICANON
        host = HostTerminal(slave, slave)
        host.enter()
        assert not termios.tcgetattr(slave)[3] & termios.ICANON
        assert b"\x1b[?1049h" in _read_all(master)
        host.restore()
        host.restore()  # idempotent
        after = termios.tcgetattr(slave)
        assert after[3] & termios.ICANON and after[3] & termios.ECHO
        restored = _read_all(master)
        assert ALT_SCREEN_OFF in restored and MOUSE_OFF in restored
    finally:
        os.close(master)
        os.close(slave)


def _doc(status: str, tab: str = "w1:t2") -> StateDoc:
    pane = {
        "pane_id": "w1:p2",
        "workspace_id": "w1",
        "tab_id": tab,
        "agent": "claude",
        "agent_status": status,
    }
    return decode_state(
        {
            "workspaces": [
                {
                    "workspace_id": "w1",
                    "label": "proj",
                    "agent_status": status,
                    "active_tab_id": "w1:t1",
                }
            ],
            "tabs": [
                {"tab_id": "w1:t1", "workspace_id": "w1", "label": "1", "agent_status": "unknown"},
                {"tab_id": "w1:t2", "workspace_id": "w1", "label": "2", "agent_status": status},
            ],
            "panes": [
                {"pane_id": "w1:p1", "workspace_id": "w1", "tab_id": "w1:t1", "cwd": "/tmp/proj"},
                pane,
            ],
            "layouts": {
                "w1:t1": {
                    "zoomed": False,
                    "focused_pane_id": "w1:p1",
                    "panes": [["w1:p1", 0, 0, 50, 20]],
                },
                "w1:t2": {
                    "zoomed": False,
                    "focused_pane_id": "w1:p2",
                    "panes": [["w1:p2", 0, 0, 50, 20]],
                },
            },
            "focused": ["w1", "w1:t1", "w1:p1"],
            "area": [50, 20],
        }
    )


def _app(tmp_path: Path, **settings: Any) -> tuple[App, int]:
    read_end, write_end = os.pipe()
    app = App(str(tmp_path / "none.sock"), settings=UiSettings(**settings), fd_out=write_end)
    return app, read_end


def test_bell_when_a_background_agent_needs_attention(tmp_path: Path) -> None:
    app, out = _app(tmp_path)
    app.apply_state(_doc("working"))
    assert app.tab_id == "w1:t1"
    app.apply_state(_doc("blocked"))
    assert _read_all(out) == b"\a"
    app.apply_state(_doc("done"))
    assert _read_all(out) == b"\a"


def test_no_bell_for_the_shown_tab_or_when_off(tmp_path: Path) -> None:
    app, out = _app(tmp_path)
    app.apply_state(_doc("working", tab="w1:t1"))
    app.apply_state(_doc("blocked", tab="w1:t1"))
    assert _read_all(out) == b""
    quiet, out2 = _app(tmp_path, bell=False)
    quiet.apply_state(_doc("working"))
    quiet.apply_state(_doc("done"))
    assert _read_all(out2) == b""


def test_view_shows_the_client_tab_with_agent_states(tmp_path: Path) -> None:
    app, _out = _app(tmp_path)
    app.apply_state(_doc("done"))
    app.panes["w1:p1"] = PaneMirror(rows=("$ ls",))
    view = app.build_view()
    assert view.active_tab_id == "w1:t1"
    assert [p.pane_id for p in view.panes] == ["w1:p1"]
    assert view.panes[0].rows == ("$ ls",)
    assert view.panes[0].title == "proj"
    assert [(a.agent, a.agent_status, a.seen) for a in view.agents] == [("claude", "done", False)]
    assert view.tabs[1].agent_status == "done"
    app.tab_id = "w1:t2"
    assert [p.pane_id for p in app.build_view().panes] == ["w1:p2"]


def test_ui_settings_from_config(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        "[ui]\nsidebar_width = 30\nbell_on_attention = false\n"
        "[ui.toast]\ndelivery = 'terminal'\n[keys]\nprefix = 'ctrl+a'\n"
    )
    settings = load_ui_settings(path)
    assert settings.sidebar_width == 30
    assert settings.bell is False
    assert settings.osc9 is True
    assert settings.keys == {"prefix": "ctrl+a"}
    assert load_ui_settings(tmp_path / "missing.toml").bell is True


def test_bare_herdr_needs_a_terminal(herdr_env: HerdrEnv) -> None:
    done = herdr_env.cli()
    assert done.returncode == 1
    assert "needs a terminal" in done.stderr
    assert not herdr_env.socket_path().exists()  # nothing was started


def _rows(pane_id: str, kitty: int = 0, mok: int = 0) -> Rows:
    return Rows(
        pane_id=pane_id,
        size=(50, 20),
        rows=[(0, "$ ")],
        cursor=(2, 0),
        mouse=0,
        app_cursor=False,
        kitty=kitty,
        mok=mok,
        full=True,
    )


def test_host_keyboard_follows_the_focused_pane(tmp_path: Path) -> None:
    """Kitty flags and modifyOtherKeys of the focused pane are mirrored onto the host,
    so shift+enter and friends arrive in the encoding that pane's program asked for."""
    app, out = _app(tmp_path)
    app.cols, app.rows = 80, 24
    app.apply_state(_doc("idle"))
    app.apply_rows(_rows("w1:p1", kitty=1))
    app.apply_rows(_rows("w1:p2", mok=2))
    app.draw()
    assert b"\x1b[>1u" in _read_all(out)
    app.draw()
    assert b"\x1b[>1u" not in _read_all(out)  # mirrored once, not per frame
    app.tab_id = "w1:t2"  # the focused pane is now one that uses modifyOtherKeys
    app.draw()
    written = _read_all(out)
    assert written.index(b"\x1b[<1u") < written.index(b"\x1b[>4;2m")
    app.apply_rows(_rows("w1:p2"))
    app.draw()
    assert b"\x1b[>4;0m" in _read_all(out)


def test_copy_mode_scrolls_copies_with_osc52_and_returns_to_the_bottom(tmp_path: Path) -> None:
    app, out = _app(tmp_path)
    sent: list[Any] = []
    app.conn.send = sent.append  # type: ignore[method-assign,assignment]

    async def scenario() -> None:
        app.apply_state(_doc("working"))
        rows = [(y, f"\x1b[1mrow{y}\x1b[0m") for y in range(20)]
        app.apply_rows(
            Rows(
                pane_id="w1:p1",
                size=(50, 20),
                rows=rows,
                cursor=(3, 19),
                full=True,
                offset=0,
                total=120,
            )
        )
        app.handle_events(app.parser.feed(b"\x02["))
        assert app.machine.mode == "copy" and app.copy is not None
        assert app.build_view().copy_position == "[0/100]"
        app.handle_events(app.parser.feed(b"0Vky"))  # two rows on screen: copied here
        assert app.copy is None and app.machine.mode == "terminal"
        data = _read_all(out)
        start = data.index(b"\x1b]52;c;") + 7
        assert base64.b64decode(data[start : data.index(b"\x07", start)]) == b"row18\nrow19"
        assert app.copied == "row18\nrow19" and app.message == "copied 2 lines"
        assert sent[-1] == Scroll(pane_id="w1:p1", delta=10_000)
        assert not any(isinstance(m, Input) for m in sent)  # no key reached the pane
        # wheel up over the focused pane enters copy mode and scrolls
        sent.clear()
        app.frame = None
        app.copy_wheel("w1:p1", up=True)
        assert app.machine.mode == "copy"
        assert sent == [Scroll(pane_id="w1:p1", delta=-3)]
        app.copy_wheel("w1:p1", up=False)  # back at the bottom: copy mode ends
        assert app.copy is None and app.machine.mode == "terminal"
        await asyncio.sleep(0)

    asyncio.run(scenario())
