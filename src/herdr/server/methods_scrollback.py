"""``pane.link.activate``, ``pane.edit_scrollback`` and ``pane.clear`` (protocol 22).

As herdr 0.9 does: a link is an OSC 8 hyperlink under the cell, else a web URL in the
row's text; the server answers it with ``handled: false`` for the client to open, unless
a server-side opener is configured (:mod:`herdr.server.link_opener`). Editing the
scrollback opens ``$EDITOR`` on a private copy in a new pane split below the source and
zoomed, like herdr's overlay; the copy is removed when that pane's process ends.
``pane.clear`` clears herdr's screen and scrollback only; the program gets no input.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from herdr.config.safe_paths import UnsafePathError
from herdr.runtime import model as m
from herdr.runtime.events import OUTPUT_CHECK_KIND
from herdr.runtime.links import editor_argv, url_at_cell
from herdr.server.core import ApiError, Result
from herdr.server.link_opener import open_link
from herdr.server.panes import PaneHost, Terminal
from herdr.server.scrollback_file import remove_quietly, write_private_text
from herdr.server.wiring import Call
from herdr.terminal.emulator import Emulator
from herdr.vocab import ErrorCode

__all__ = ["pane_clear", "pane_edit_scrollback", "pane_link_activate"]

STALE_CONTENT = ErrorCode.STALE_CONTENT.value
PANE_CLEAR_FAILED = "pane_clear_failed"
EDIT_SCROLLBACK_FAILED = "edit_scrollback_failed"
SCROLLBACK_DIR = "scrollback"


def _live_emulator(host: PaneHost, loc: m.PaneLoc) -> tuple[Terminal, Emulator] | None:
    term = host.terminal(loc)
    if term is None or term.emulator.closed:
        return None
    return term, term.emulator


def _no_link() -> Result:
    return {"type": "pane_link_activated", "handled": False, "url": None}


def link_at(emulator: Emulator, row: int, col: int) -> str | None:
    """The OSC 8 target of the viewport cell, else the web URL in that row's text."""
    if not (0 <= row < emulator.rows and 0 <= col < emulator.cols):
        return None
    uri = emulator.hyperlink_at(col, row)
    if uri:
        return uri
    rows = emulator.viewport_text().split("\n")
    rows += [""] * (emulator.rows - len(rows))
    return url_at_cell(rows, emulator.row_wraps, row, col, emulator.cols)


async def pane_link_activate(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    loc = host.session.pane(p["pane_id"])
    live = _live_emulator(host, loc)
    if live is None:
        return _no_link()
    term, emulator = live
    offset = p.get("offset_from_bottom")
    if offset is not None and offset != emulator.scroll_offset:
        raise ApiError(STALE_CONTENT, "pane viewport changed before link activation")
    revision = p.get("content_revision")
    if revision is not None and revision != term.revision:
        raise ApiError(STALE_CONTENT, "pane content changed before link activation")
    url = link_at(emulator, p["viewport_row"], p["col"])
    if url is None:
        return _no_link()
    if await call.server.plugins.handle_link(url, loc.pane_id, call.id) is not None:
        return {"type": "pane_link_activated", "handled": True, "url": url}  # a plugin's
    handled = await open_link(host.env, url)
    return {"type": "pane_link_activated", "handled": handled, "url": url}


def _notify_output(host: PaneHost, term: Terminal, loc: m.PaneLoc) -> None:
    """What new output would trigger: attach row pushes, waits, the output event."""
    for callback in list(term.on_output):
        callback()
    if host.bus.wants(OUTPUT_CHECK_KIND):
        host.check_output_soon(term)
    if host.bus.wants("pane_output_changed"):
        host.emit(
            "pane_output_changed",
            {"pane_id": loc.pane_id, "workspace_id": loc.workspace_id, "revision": term.revision},
        )


def pane_clear(call: Call) -> Result:
    host = call.server.panes
    loc = host.session.pane(call.params["pane_id"])
    live = _live_emulator(host, loc)
    if live is None:
        raise ApiError(PANE_CLEAR_FAILED, f"pane {loc.pane_id} has no terminal to clear")
    term, emulator = live
    if not emulator.clear_screen_and_history():
        raise ApiError(PANE_CLEAR_FAILED, "the pane is on the alternate screen")
    _notify_output(host, term, loc)
    return {"type": "ok"}


def pane_edit_scrollback(call: Call) -> Result:
    host = call.server.panes
    session = host.session
    loc = session.pane(call.params["pane_id"])
    live = _live_emulator(host, loc)
    if live is None:
        raise ApiError(EDIT_SCROLLBACK_FAILED, f"pane {loc.pane_id} has no scrollback")
    _, emulator = live
    text = emulator.screen_text(0, emulator.total_rows - 1, unwrap=True)
    directory = os.path.join(str(host.info.state_dir), SCROLLBACK_DIR)
    try:
        path = write_private_text(directory, text + "\n" if text else "")
    except (OSError, UnsafePathError) as exc:
        raise ApiError(EDIT_SCROLLBACK_FAILED, f"cannot write the scrollback: {exc}") from None
    argv = editor_argv({**host.env, **loc.pane.env}, path)
    before = session.focused_ids()
    was_zoomed = loc.tab.zoomed
    try:
        editor = session.split_pane(
            loc.pane_id,
            direction="down",
            focus=True,
            cwd=host.working_dir(loc),
            command=argv,
        )
    except BaseException:
        remove_quietly(path)
        raise
    session.zoom(editor.pane_id, "on")
    try:
        term = host.start(editor)
    except OSError as exc:
        session.close_pane(editor.pane_id)
        remove_quietly(path)
        if was_zoomed and len(loc.tab.panes) > 1:
            session.zoom(loc.pane_id, "on")
        host.resize_tab(loc.workspace, loc.tab)
        raise ApiError(EDIT_SCROLLBACK_FAILED, f"cannot start the editor: {exc}") from None
    _clean_up_on_exit(host, term, path, loc.pane.terminal_id, was_zoomed)
    host.resize_tab(editor.workspace, editor.tab)
    host.emit("pane_created", {"pane": dict(host.pane_record(editor))})
    host.emit_layout(editor.workspace, editor.tab)
    host.emit_focus_changes(before)
    return {"type": "ok"}


def _clean_up_on_exit(
    host: PaneHost, term: Terminal, path: str, source_terminal: str, was_zoomed: bool
) -> None:
    """When the editor's process ends: remove the copy, then (once the pane has closed)
    give focus and the zoom state back to the source pane if the user is still there."""
    state: dict[str, Any] = {"done": False}

    def restore() -> None:
        session = host.session
        source = session.find_terminal(source_terminal)
        focused = session.focused_pane()
        if source is None or focused is None or focused.tab is not source.tab:
            return
        if session.find_terminal(term.terminal_id) is not None:
            return  # the editor pane is still there (stopped, not exited)
        before = session.focused_ids()
        session.focus_pane(source.pane_id)
        if was_zoomed and len(source.tab.panes) > 1 and not source.tab.zoomed:
            session.zoom(source.pane_id, "on")
            host.resize_tab(source.workspace, source.tab)
            host.emit_layout(source.workspace, source.tab)
        host.emit_focus_changes(before)

    def on_output() -> None:
        if state["done"] or (term.exit_status is None and not term.closing):
            return
        state["done"] = True
        remove_quietly(path)
        if not term.closing:
            asyncio.get_running_loop().call_soon(restore)

    term.on_output.add(on_output)
