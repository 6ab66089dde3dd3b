"""The app's side of mouse selection: press, drag, release, double-click → OSC 52.

Only for panes whose program did not ask for the mouse (those get the events, as
before). A left press starts a selection (and focuses the pane), a drag extends it, the
release copies it when ``ui.copy_on_select`` is on; a double click selects the word
under the pointer. The selection stays drawn (reverse video) until the next press,
until keys are typed into its pane, or until its pane scrolls.
The text comes from the server (``pane.selection.read``), so a selection that was
dragged past what the pane shows still copies whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from herdr.client import mouse_select as ms
from herdr.client.input import Mouse

if TYPE_CHECKING:
    from herdr.client.app import App


def handle(app: App, event: Mouse, hit: tuple[str, int, int] | None, now: float) -> bool:
    """True when the event was a selection's (nothing else should handle it)."""
    sel = app.mouse_sel
    if event.kind == "press" and event.button == "left":
        return _press(app, hit, now)
    if sel is None or sel.done:
        return False
    if event.kind == "drag":
        if hit is not None and hit[0] == sel.pane_id:
            point = _point(app, hit)
            if point is not None and point != sel.cursor:
                app.mouse_sel = ms.drag(sel, point)
                app.schedule_draw()
        return True
    if event.kind == "release":
        if sel.anchor == sel.cursor:
            app.mouse_sel = None  # a plain click selects nothing
        else:
            app.mouse_sel = replace(sel, done=True)
            _copy(app, app.mouse_sel)
        app.schedule_draw()
        return True
    return False


def _point(app: App, hit: tuple[str, int, int]) -> ms.Point | None:
    mirror = app.panes.get(hit[0])
    if mirror is None:
        return None
    return ms.top_row(mirror.size, mirror.scroll) + hit[2], hit[1]


def _press(app: App, hit: tuple[str, int, int] | None, now: float) -> bool:
    had = app.mouse_sel is not None
    app.mouse_sel = None
    if had:
        app.schedule_draw()
    if hit is None or app.copy is not None:
        return False
    point = _point(app, hit)
    mirror = app.panes.get(hit[0])
    if point is None or mirror is None:
        return False
    last, app.last_click = app.last_click, (hit[0], point, now)
    if hit[0] != app.focused_pane_id():
        app.request("pane.focus", {"pane_id": hit[0]})
    double = last is not None and last[:2] == (hit[0], point)
    if double and last is not None and now - last[2] <= ms.DOUBLE_CLICK_S:
        app.last_click = None
        row = mirror.rows[hit[2]] if hit[2] < len(mirror.rows) else ""
        span = ms.word_at(row, hit[1])
        if span is not None:
            app.mouse_sel = ms.MouseSelection(
                hit[0], (point[0], span[0]), (point[0], span[1]), done=True
            )
            _copy(app, app.mouse_sel)
            app.schedule_draw()
        return True
    app.mouse_sel = ms.start(hit[0], point)
    return True


def _copy(app: App, sel: ms.MouseSelection) -> None:
    if not app.settings.copy_on_select:
        return
    app.spawn(_read_and_copy(app, sel))


async def _read_and_copy(app: App, sel: ms.MouseSelection) -> None:
    span = sel.normalised()
    params = {
        "pane_id": sel.pane_id,
        "anchor": {"row": span.start_line, "col": span.start_col},
        "cursor": {"row": span.end_line, "col": span.end_col},
    }
    try:
        envelope = await app.conn.call("pane.selection.read", params)
    except (OSError, ValueError) as exc:
        app.notice(f"copy: {exc}")
        return
    result = envelope.get("result")
    text = result.get("text") if isinstance(result, dict) else None
    if not isinstance(text, str):
        error = envelope.get("error")
        app.notice(f"copy: {error.get('message') if isinstance(error, dict) else 'no text'}")
        return
    app.put_clipboard(text, span.lines)
