"""The interactive TUI client: stdin → keys → server; attach stream → frame → stdout.

One asyncio loop. Input bytes are parsed (:class:`InputParser`), mapped to actions by
the mode machine (:class:`KeyMachine`) and carried out: pane input and pastes go on the
attach connection, commands (split, close, zoom, focus, tabs…) go through the public
socket methods on short connections of their own. The attach stream brings the state
document and the styled rows of visible panes; each batch builds a :class:`ViewState`,
composes a frame and writes only the rows that changed.

Presentation is the client's: its active workspace and tab, sidebar, mode, selection.
The server hears the view (for seen/done) and the pane-area size.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import tomllib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import orjson

from herdr.api import peercred
from herdr.api.limits import MAX_SIZE_CELLS
from herdr.client import actions as a
from herdr.client import copymode as cm
from herdr.client.bindings import Bindings, help_entries, load_bindings
from herdr.client.compose import compose
from herdr.client.input import InputParser, Mouse, encode_mouse_sgr
from herdr.client.keynames import KeySpec
from herdr.client.modes import KeyMachine
from herdr.client.prompt import Prompt, PromptKind, open_prompt
from herdr.client.render import HostModes, keyboard_mirror, render
from herdr.client.targets import cycle_agent, notification_target
from herdr.client.terminal import HostTerminal, write_all
from herdr.client.view import (
    AgentStatus,
    AgentView,
    Frame,
    PaneView,
    TabView,
    ViewState,
    WorkspaceView,
    pane_area,
)
from herdr.config.paths import config_file
from herdr.runtime.layout import Rect

ESC_TIMEOUT_S = 0.03
PASTE_CHUNK = 128 * 1024
MAX_READ_LINES = 10_000  # pane.read's cap: longer copies use the rows on screen
TO_BOTTOM = 10_000  # a scroll delta that always reaches the live bottom
READ_LIMIT = 64 * 1024 * 1024
_STATUSES = ("working", "blocked", "done", "idle", "unknown")

ExitReason = Literal["detached", "empty", "server_stopped", "server_lost", "error"]
# a visible pane without its contents: id, rect, title, agent, status, seen
_Slot = tuple[str, Rect, str, str, AgentStatus, bool]
# (state document, client-side key, view without panes, slots, focused pane id)
_ViewCache = tuple[Any, tuple[Any, ...], ViewState, tuple[_Slot, ...], str | None]


@dataclass
class UiSettings:
    """The ``[ui]`` keys the client honours (lenient: bad values keep defaults)."""

    sidebar_width: int = 26
    sidebar_visible: bool = True
    sidebar_collapsed_mode: Literal["compact", "hidden"] = "compact"
    tab_bar_position: Literal["top", "bottom"] = "top"
    hide_tab_bar_when_single_tab: bool = False
    status_indicators: Literal["dots", "symbols"] = "dots"
    agent_panel_sort: Literal["spaces", "priority"] = "spaces"
    mouse: bool = True
    scroll_lines: int = 3
    bell: bool = True
    osc9: bool = False
    keys: Mapping[str, object] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def load_ui_settings(path: Path) -> UiSettings:
    settings = UiSettings()
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return settings
    except (OSError, ValueError) as exc:
        settings.warnings.append(f"cannot read {path}: {exc}")
        return settings
    ui = doc.get("ui") if isinstance(doc.get("ui"), dict) else {}
    assert isinstance(ui, dict)
    width = ui.get("sidebar_width")
    if isinstance(width, int) and not isinstance(width, bool) and 8 <= width <= 80:
        settings.sidebar_width = width
    if ui.get("sidebar_start_collapsed") is True:
        settings.sidebar_visible = False
    if ui.get("sidebar_collapsed_mode") in ("compact", "hidden"):
        settings.sidebar_collapsed_mode = ui["sidebar_collapsed_mode"]
    if ui.get("tab_bar_position") in ("top", "bottom"):
        settings.tab_bar_position = ui["tab_bar_position"]
    if isinstance(ui.get("hide_tab_bar_when_single_tab"), bool):
        settings.hide_tab_bar_when_single_tab = ui["hide_tab_bar_when_single_tab"]
    if ui.get("status_indicators") in ("dots", "symbols"):
        settings.status_indicators = ui["status_indicators"]
    if ui.get("agent_panel_sort") in ("spaces", "priority"):
        settings.agent_panel_sort = ui["agent_panel_sort"]
    if isinstance(ui.get("mouse_capture"), bool):
        settings.mouse = ui["mouse_capture"]
    lines = ui.get("mouse_scroll_lines")
    if isinstance(lines, int) and not isinstance(lines, bool) and 1 <= lines <= 100:
        settings.scroll_lines = lines
    sound = ui.get("sound")
    if isinstance(sound, dict) and isinstance(sound.get("enabled"), bool):
        settings.bell = sound["enabled"]
    if isinstance(ui.get("bell_on_attention"), bool):
        settings.bell = ui["bell_on_attention"]
    toast = ui.get("toast")
    if isinstance(toast, dict) and toast.get("delivery") == "terminal":
        settings.osc9 = True
    keys = doc.get("keys")
    if isinstance(keys, dict):
        settings.keys = keys
    return settings


def _status(value: Any) -> AgentStatus:
    return value if value in _STATUSES else "unknown"


class _StreamProtocol(asyncio.Protocol):
    """The attach connection: complete lines go to ``on_lines`` from ``data_received``.

    No reader task in between: the rows of a keystroke's echo are applied and drawn in
    the callback that received them.
    """

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.first: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.on_lines: Callable[[list[bytes]], None] | None = None
        self.on_lost: Callable[[str], None] | None = None
        self.queued: list[bytes] = []  # lines that arrived before on_lines was set
        self.lost: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        end = buffer.rfind(b"\n")
        if end < 0:
            if len(buffer) > READ_LIMIT:
                self._lose("attach stream line too long")
            return
        lines = bytes(buffer[:end]).split(b"\n")
        del buffer[: end + 1]
        if not self.first.done():
            self.first.set_result(lines.pop(0))
        if self.on_lines is None:
            self.queued += lines
        elif lines:
            self.on_lines(lines)

    def connection_lost(self, exc: Exception | None) -> None:
        self._lose(str(exc) if exc else "the server closed the connection")

    def _lose(self, detail: str) -> None:
        if self.transport is not None:
            self.transport.abort()
        if not self.first.done():
            self.first.set_result(b"")
        if self.lost is None:
            self.lost = detail
            if self.on_lost is not None:
                self.on_lost(detail)


class UntrustedServer(ConnectionError):
    """The socket is served by another user (neither us nor root); nothing was sent."""


_T = TypeVar("_T")
BUSY_RETRY_DELAYS_S = (0.005, 0.01, 0.02, 0.04, 0.08, 0.12, 0.16, 0.2, 0.2, 0.2)


async def retry_busy(connect: Callable[[], Awaitable[_T]]) -> _T:
    """Retry a connect that found the server's listen backlog full (EAGAIN) for ~1 s,
    as the CLI does, instead of failing an attach or a command under a request flood."""
    for delay in BUSY_RETRY_DELAYS_S:
        try:
            return await connect()
        except BlockingIOError:
            await asyncio.sleep(delay)
    return await connect()


def check_server(sock: peercred.SockOpt, path: str) -> None:
    uid = peercred.untrusted_server_uid(sock)
    if uid is not None:
        raise UntrustedServer(f"server_untrusted: {peercred.untrusted_message(path, uid)}")


class Connection:
    """The attach stream plus short request connections for commands.

    Each connection checks the server's uid before it sends anything.
    """

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path
        self.stream: _StreamProtocol | None = None
        self._seq = 0

    async def attach(self, params: dict[str, Any]) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        transport, stream = await retry_busy(
            lambda: loop.create_unix_connection(_StreamProtocol, self.socket_path)
        )
        self.stream = stream
        try:
            check_server(transport.get_extra_info("socket"), self.socket_path)
        except BaseException:
            transport.abort()
            raise
        self.send({"id": "tui:attach", "method": "client.attach", "params": params})
        line = await stream.first
        if not line:
            raise ConnectionError(stream.lost or "the server closed the connection")
        doc: dict[str, Any] = json.loads(line)
        if "error" in doc:
            err = doc["error"]
            raise ConnectionError(f"{err.get('code')}: {err.get('message')}")
        return doc

    def listen(
        self, on_lines: Callable[[list[bytes]], None], on_lost: Callable[[str], None]
    ) -> None:
        """Hand every later line of the attach stream to ``on_lines`` (as it arrives)."""
        stream = self.stream
        assert stream is not None
        stream.on_lines = on_lines
        stream.on_lost = on_lost
        queued, stream.queued = stream.queued, []
        if queued:
            on_lines(queued)
        if stream.lost is not None:
            on_lost(stream.lost)

    def send(self, msg: dict[str, Any]) -> None:
        transport = self.stream.transport if self.stream is not None else None
        if transport is not None and not transport.is_closing():
            transport.write(orjson.dumps(msg) + b"\n")

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One public request on its own connection; returns the envelope."""
        self._seq += 1
        reader, writer = await retry_busy(
            lambda: asyncio.open_unix_connection(self.socket_path, limit=READ_LIMIT)
        )
        try:
            check_server(writer.get_extra_info("socket"), self.socket_path)
            request = {"id": f"tui:{self._seq}", "method": method, "params": params}
            writer.write(json.dumps(request).encode() + b"\n")
            await writer.drain()
            line = await reader.readline()
            envelope: dict[str, Any] = json.loads(line) if line else {}
            return envelope
        finally:
            writer.close()

    def close(self) -> None:
        stream = self.stream
        if stream is not None and stream.transport is not None:
            stream.on_lines = None
            stream.on_lost = None
            with contextlib.suppress(Exception):
                stream.transport.close()


class App:
    """The TUI client; :meth:`run` returns why it ended."""

    def __init__(
        self,
        socket_path: str,
        *,
        settings: UiSettings | None = None,
        session_label: str = "default",
        fd_in: int = 0,
        fd_out: int = 1,
        config_path: Path | None = None,
    ) -> None:
        self.config_path = config_path
        self.settings = settings or UiSettings()
        bindings, errors = load_bindings(self.settings.keys)
        self.bindings: Bindings = bindings
        self.message = "; ".join(str(e) for e in errors)[:200]
        if self.settings.warnings:
            self.message = "; ".join(self.settings.warnings)[:200]
        self.machine = KeyMachine(bindings)
        self.help = help_entries(bindings)
        self.parser = InputParser()
        self.conn = Connection(socket_path)
        self.session_label = session_label
        self.host = HostTerminal(fd_in, fd_out, HostModes(mouse=self.settings.mouse))
        self.fd_in = fd_in
        self.fd_out = fd_out
        self.doc: dict[str, Any] | None = None
        self.pane_rows: dict[str, tuple[str, ...]] = {}
        self.pane_cursor: dict[str, tuple[int, int] | None] = {}
        self.pane_mouse: dict[str, int] = {}
        self.pane_size: dict[str, tuple[int, int]] = {}
        self.pane_scroll: dict[str, tuple[int, int]] = {}  # (offset, total) per pane
        self.copy: cm.CopyState | None = None  # copy mode on the focused pane
        self.copied = ""  # the last text put on the host clipboard (tests read it)
        self._copy_paint: tuple[tuple[str, ...], cm.CopyState, tuple[str, ...]] | None = None
        self.pane_app_cursor: dict[str, bool] = {}
        self.host_app_cursor = False  # DECCKM mirrored from the focused pane
        # (kitty flags, modifyOtherKeys level) per pane and as mirrored on the host: the
        # host then encodes keys as the focused program asked, and they pass unchanged
        self.pane_keyboard: dict[str, tuple[int, int]] = {}
        self.host_keyboard = (0, 0)
        self.ws_id: str | None = None
        self.tab_id: str | None = None
        self.sidebar_visible = self.settings.sidebar_visible
        self.selected_ws: str | None = None
        self.host_focused = True
        self.frame: Frame | None = None
        self.cols, self.rows = 80, 24
        self.sent_area: tuple[int, int] | None = None
        self.sent_view: tuple[str | None, str | None, bool] | None = None
        self.prev_status: dict[str, str] = {}
        # pane id → when (a count, not a clock) it last turned blocked or done
        self.attention_order: dict[str, int] = {}
        self._attention_seq = 0
        self._draw_pending = False
        self._view_cache: _ViewCache | None = None
        self._plain_bytes: dict[int, bool] = {}
        self._esc_timer: asyncio.TimerHandle | None = None
        self._done: asyncio.Future[ExitReason] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.exit_detail = ""
        self._drag: list[Any] | None = None  # [path, direction, divider, area]
        self._drag_busy = False
        self._drag_next: dict[str, Any] | None = None

    # -- lifecycle ----------------------------------------------------------------------

    def run(self) -> ExitReason:
        self.host.enter()
        try:
            return _run_loop(self._main())
        finally:
            self.host.restore()

    async def _main(self) -> ExitReason:
        loop = asyncio.get_running_loop()
        self._done = loop.create_future()
        self.cols, self.rows = self.host.size()
        view = self.build_view()
        area = pane_area(view)
        size = (_cells(area.width, low=0), _cells(area.height, low=0))
        try:
            await self.conn.attach({"cols": size[0], "rows": size[1]})
        except (OSError, ConnectionError, ValueError) as exc:
            self.exit_detail = str(exc)
            return "server_lost"
        self.sent_area = size
        os.set_blocking(self.fd_in, False)
        loop.add_reader(self.fd_in, self._on_stdin)
        loop.add_signal_handler(signal.SIGWINCH, self._on_winch)
        self.conn.listen(self._on_stream_lines, self._on_stream_lost)
        self.schedule_draw()
        try:
            return await self._done
        finally:
            loop.remove_reader(self.fd_in)
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signal.SIGWINCH)
            with contextlib.suppress(OSError):
                os.set_blocking(self.fd_in, True)
            self.conn.close()
            for task in list(self._tasks):
                task.cancel()

    def finish(self, reason: ExitReason, detail: str = "") -> None:
        if self._done is not None and not self._done.done():
            self.exit_detail = detail
            self._done.set_result(reason)

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- server stream --------------------------------------------------------------------

    def _on_stream_lines(self, lines: list[bytes]) -> None:
        """Apply every complete line that arrived, then draw once, right away.

        One draw covers a burst of lines, and drawing here (not in a ``call_soon`` or
        a reader task) saves loop round trips on the keystroke → echo path.
        """
        if self._done is None or self._done.done():
            return
        try:
            for line in lines:
                if not line:
                    continue
                msg = orjson.loads(line)
                kind = msg.get("t")
                if kind == "rows":
                    self.apply_rows(msg)
                elif kind == "state":
                    self.apply_state(msg["state"])
                elif kind == "bye":
                    self.finish("server_stopped")
                    return
        except (OSError, ValueError) as exc:
            self.finish("server_lost", str(exc))
            return
        except Exception as exc:  # a bug in here must still end the client cleanly
            self.finish("error", f"{type(exc).__name__}: {exc}")
            return
        if not self._done.done():
            self.draw()

    def _on_stream_lost(self, detail: str) -> None:
        self.finish("server_lost", detail)

    def apply_rows(self, msg: dict[str, Any]) -> None:
        pane_id = str(msg["pane_id"])
        height = int(msg["size"][1])
        if msg.get("full") or pane_id not in self.pane_rows:
            rows = [""] * height
        else:
            rows = list(self.pane_rows[pane_id])
            if len(rows) != height:
                rows = (rows + [""] * height)[:height]
        for y, row in msg["rows"]:
            if 0 <= y < height:
                rows[y] = row
        self.pane_rows[pane_id] = tuple(rows)
        cursor = msg.get("cursor")
        self.pane_cursor[pane_id] = (int(cursor[0]), int(cursor[1])) if cursor else None
        self.pane_mouse[pane_id] = int(msg.get("mouse") or 0)
        self.pane_app_cursor[pane_id] = bool(msg.get("app_cursor"))
        self.pane_keyboard[pane_id] = (int(msg.get("kitty") or 0), int(msg.get("mok") or 0))
        size = (int(msg["size"][0]), height)
        scroll = (int(msg.get("offset") or 0), int(msg.get("total") or height))
        self.pane_size[pane_id] = size
        self.pane_scroll[pane_id] = scroll
        if self.copy is not None and self.copy.pane_id == pane_id:
            self.copy = cm.sync(self.copy, size, scroll[1], scroll[0])

    def apply_state(self, doc: dict[str, Any]) -> None:
        if self.doc is not None and self.doc.get("workspaces") and not doc.get("workspaces"):
            self.finish("empty")  # the last pane of the last workspace exited
        self.doc = doc
        self._resolve_view()
        live = {p["pane_id"] for p in doc.get("panes", [])}
        for pane_id in list(self.pane_rows):
            if pane_id not in live:
                self.pane_rows.pop(pane_id, None)
        self._attention(doc)
        if self.copy is not None and self.copy.pane_id != self.focused_pane_id():
            self.leave_copy()  # its pane closed, or the focus moved away
        self.sync_server()

    def _attention(self, doc: dict[str, Any]) -> None:
        ring = False
        notes: list[str] = []
        for pane in doc.get("panes", []):
            pane_id = pane["pane_id"]
            status = pane.get("agent_status", "unknown")
            before = self.prev_status.get(pane_id)
            self.prev_status[pane_id] = status
            if before is None or before == status or status not in ("blocked", "done"):
                continue
            self._attention_seq += 1
            self.attention_order[pane_id] = self._attention_seq
            background = pane.get("tab_id") != self.tab_id or not self.host_focused
            if background:
                ring = True
                agent = pane.get("display_agent") or pane.get("agent") or pane_id
                notes.append(f"{agent} {status}")
        if ring and self.settings.bell:
            self.write(b"\a")
        if notes and self.settings.osc9:
            self.write(f"\x1b]9;herdr: {', '.join(notes)}\x1b\\".encode())

    def _resolve_view(self) -> None:
        doc = self.doc
        if doc is None:
            return
        workspaces = doc.get("workspaces", [])
        ids = [w["workspace_id"] for w in workspaces]
        if self.ws_id not in ids:
            focused = doc.get("focused", [None, None, None])[0]
            self.ws_id = focused if focused in ids else (ids[0] if ids else None)
            self.tab_id = None
        tabs = [t["tab_id"] for t in doc.get("tabs", []) if t["workspace_id"] == self.ws_id]
        if self.tab_id not in tabs:
            ws = next((w for w in workspaces if w["workspace_id"] == self.ws_id), None)
            active = ws.get("active_tab_id") if ws else None
            self.tab_id = active if active in tabs else (tabs[0] if tabs else None)
        if self.selected_ws not in ids:
            self.selected_ws = self.ws_id

    def sync_server(self) -> None:
        """Tell the server our view and pane-area size when they changed."""
        view = (self.ws_id, self.tab_id, self.host_focused)
        if view != self.sent_view:
            self.sent_view = view
            self.conn.send(
                {
                    "t": "view",
                    "workspace_id": self.ws_id,
                    "tab_id": self.tab_id,
                    "focused": self.host_focused,
                }
            )
        area = pane_area(self.build_view())
        size = (_cells(area.width), _cells(area.height))
        if size != self.sent_area:
            self.sent_area = size
            self.conn.send({"t": "resize", "cols": size[0], "rows": size[1]})

    # -- view -------------------------------------------------------------------------------

    def _tab_layout(self) -> dict[str, Any] | None:
        if self.doc is None or self.tab_id is None:
            return None
        layout: dict[str, Any] | None = self.doc.get("layouts", {}).get(self.tab_id)
        return layout

    def focused_pane_id(self) -> str | None:
        layout = self._tab_layout()
        return None if layout is None else str(layout["focused_pane_id"])

    def build_view(self) -> ViewState:
        """The view of the current state and rows."""
        view, panes = self.view_parts()
        return view if view.panes is panes else replace(view, panes=panes)

    def view_parts(self) -> tuple[ViewState, tuple[PaneView, ...]]:
        """The view without pane contents, and the visible panes with their rows.

        Everything but the panes' rows and cursor depends only on the state document
        and the client's own choices; that part is cached, so a frame that only brings
        new rows (typing, output) rebuilds just the pane list — and is not copied:
        ``compose`` takes the panes beside the view.
        """
        key = (
            self.cols,
            self.rows,
            self.sidebar_visible,
            self.machine.mode,
            self.message,
            self.machine.prompt,
            self.ws_id,
            self.tab_id,
            self.selected_ws,
            self.copy.position() if self.copy is not None else "",
        )
        cached = self._view_cache
        if cached is None or cached[0] is not self.doc or cached[1] != key:
            view, slots, focused = self._build_view_base()
            cached = self._view_cache = (self.doc, key, view, slots, focused)
        _doc, _key, view, slots, focused = cached
        if not slots:
            return view, view.panes
        rows, cursors = self.pane_rows, self.pane_cursor
        copy = self.copy
        if copy is not None and copy.pane_id in rows:
            rows = {**rows, copy.pane_id: self._painted(rows[copy.pane_id], copy)}
            cursors = {**cursors, copy.pane_id: copy.cursor()}
        panes = tuple(
            PaneView(
                pane_id,
                rect,
                rows=rows.get(pane_id, ()),
                title=title,
                agent=agent,
                agent_status=status,
                seen=seen,
                cursor=cursors.get(pane_id) if pane_id == focused else None,
            )
            for pane_id, rect, title, agent, status, seen in slots
        )
        return view, panes

    def _painted(self, rows: tuple[str, ...], copy: cm.CopyState) -> tuple[str, ...]:
        """The copy pane's rows with selection and cursor (kept while neither changed)."""
        cached = self._copy_paint
        if cached is not None and cached[0] is rows and cached[1] == copy:
            return cached[2]
        painted = cm.paint(rows, copy)
        self._copy_paint = (rows, copy, painted)
        return painted

    def _build_view_base(
        self,
    ) -> tuple[ViewState, tuple[_Slot, ...], str | None]:
        """The view without pane contents, the visible panes' slots and the focus."""
        base = ViewState(
            cols=self.cols,
            rows=self.rows,
            sidebar_visible=self.sidebar_visible,
            sidebar_width=self.settings.sidebar_width,
            sidebar_collapsed_mode=self.settings.sidebar_collapsed_mode,
            tab_bar_position=self.settings.tab_bar_position,
            hide_tab_bar_when_single_tab=self.settings.hide_tab_bar_when_single_tab,
            status_indicators=self.settings.status_indicators,
            agent_panel_sort=self.settings.agent_panel_sort,
            mode=self.machine.mode,
            help_visible=self.machine.mode == "help",
            help=self.help,
            message=self.message,
            prompt=self.machine.prompt,
            copy_position=self.copy.position() if self.copy is not None else "",
        )
        doc = self.doc
        if doc is None:
            return replace(base, message=self.message or "connecting…"), (), None
        records = {p["pane_id"]: p for p in doc.get("panes", [])}
        agent_panes: dict[str, int] = {}
        for p in records.values():
            if p.get("agent"):
                agent_panes[p["workspace_id"]] = agent_panes.get(p["workspace_id"], 0) + 1
        workspaces = tuple(
            WorkspaceView(
                w["workspace_id"],
                str(w.get("label", "")),
                _status(w.get("agent_status")),
                agent_panes.get(w["workspace_id"], 0),
                seen=w.get("agent_status") != "done",
            )
            for w in doc.get("workspaces", [])
        )
        tabs = tuple(
            TabView(
                t["tab_id"],
                str(t.get("label", "")),
                _status(t.get("agent_status")),
                seen=t.get("agent_status") != "done",
            )
            for t in doc.get("tabs", [])
            if t["workspace_id"] == self.ws_id
        )
        agents = tuple(
            AgentView(
                p["pane_id"],
                p["tab_id"],
                str(p.get("display_agent") or p.get("agent")),
                _status(p.get("agent_status")),
                name=str(p.get("name") or ""),
                seen=p.get("agent_status") != "done",
            )
            for p in records.values()
            if p["workspace_id"] == self.ws_id and p.get("agent")
        )
        layout = self._tab_layout()
        slots: list[_Slot] = []
        focused = None
        zoomed = False
        if layout is not None:
            focused = str(layout["focused_pane_id"])
            zoomed = bool(layout.get("zoomed"))
            for pane_id, x, y, w, h in layout["panes"]:
                rec = records.get(pane_id, {})
                title = str(
                    rec.get("label")
                    or rec.get("terminal_title_stripped")
                    or _basename(rec.get("cwd"))
                    or pane_id
                )
                slots.append(
                    (
                        pane_id,
                        Rect(int(x), int(y), int(w), int(h)),
                        title,
                        str(rec.get("display_agent") or rec.get("agent") or ""),
                        _status(rec.get("agent_status")),
                        rec.get("agent_status") != "done",
                    )
                )
        view = replace(
            base,
            workspaces=workspaces,
            active_workspace_id=self.ws_id,
            tabs=tabs,
            active_tab_id=self.tab_id,
            agents=agents,
            panes=(),
            focused_pane_id=focused,
            zoomed=zoomed,
            selected_workspace_id=self.selected_ws if self.machine.mode == "navigate" else None,
        )
        return view, tuple(slots), focused

    # -- drawing ----------------------------------------------------------------------------

    def schedule_draw(self) -> None:
        if not self._draw_pending:
            self._draw_pending = True
            asyncio.get_running_loop().call_soon(self.draw)

    def draw(self, *, force: bool = False) -> None:
        self._draw_pending = False
        try:
            self._draw(force)
        except Exception as exc:  # a bug must end the client cleanly, terminal restored
            self.finish("error", f"drawing failed: {type(exc).__name__}: {exc}")

    def _draw(self, force: bool) -> None:
        focused = self.focused_pane_id()
        app_cursor = self.pane_app_cursor.get(focused, False) if focused else False
        if app_cursor != self.host_app_cursor:
            # arrows arrive as the pane's program expects them (CSI A vs SS3 A)
            self.host_app_cursor = app_cursor
            self.write(b"\x1b[?1h" if app_cursor else b"\x1b[?1l")
        keyboard = self.pane_keyboard.get(focused, (0, 0)) if focused else (0, 0)
        if keyboard != self.host_keyboard:
            self.write(keyboard_mirror(self.host_keyboard, keyboard))
            self.host_keyboard = keyboard
        frame = compose(*self.view_parts())
        data = render(self.frame, frame, force=force)
        self.frame = frame
        if data:
            self.write(data)

    def write(self, data: bytes) -> None:
        try:
            write_all(self.fd_out, data)
        except OSError as exc:
            self.finish("error", f"cannot write to the terminal: {exc}")

    def _on_winch(self) -> None:
        self.cols, self.rows = self.host.size()
        self.sync_server()
        self.draw(force=True)

    # -- input ------------------------------------------------------------------------------

    def _on_stdin(self) -> None:
        try:
            self._read_stdin()
        except Exception as exc:
            self.finish("error", f"input handling failed: {type(exc).__name__}: {exc}")

    def _read_stdin(self) -> None:
        try:
            data = os.read(self.fd_in, 65536)
        except BlockingIOError:
            return
        except OSError as exc:
            self.finish("error", f"cannot read the terminal: {exc}")
            return
        if not data:
            self.finish("error", "the terminal closed")
            return
        if self._esc_timer is not None:
            self._esc_timer.cancel()
            self._esc_timer = None
        if self.machine.mode == "terminal" and not self.parser.pending and self._plain(data):
            # typing: the bytes go to the focused pane as they are (same as the parser
            # and the mode machine would decide, minus their cost on every key)
            pane_id = self.focused_pane_id()
            self.conn.send({"t": "in", "pane_id": pane_id, "data": data.decode("latin-1")})
            return
        self.handle_events(self.parser.feed(data))
        if self.parser.pending:
            loop = asyncio.get_running_loop()
            self._esc_timer = loop.call_later(ESC_TIMEOUT_S, self._flush_input)

    def _plain(self, data: bytes) -> bool:
        """Whether every byte of ``data`` is a key that terminal mode just sends on."""
        plain = self._plain_bytes
        for byte in data:
            known = plain.get(byte)
            if known is None:
                known = plain[byte] = self._is_plain(byte)
            if not known:
                return False
        return True

    def _is_plain(self, byte: int) -> bool:
        """Ask a fresh parser and mode machine what ``byte`` alone does (bindings are
        fixed for the client's life, so the answer is cached)."""
        if not 0x20 <= byte < 0x7F:
            return False  # controls, ESC (sequences), DEL, UTF-8 pieces: the full path
        raw = bytes([byte])
        parser = InputParser()
        events = parser.feed(raw)
        if parser.pending:
            return False
        actions = KeyMachine(self.bindings).handle_all(events)
        return len(actions) == 1 and actions[0] == a.SendBytes(raw)

    def _flush_input(self) -> None:
        self._esc_timer = None
        self.handle_events(self.parser.flush_pending(end_paste=False))

    def handle_events(self, events: list[Any]) -> None:
        """Carry out each event's actions before the next event is mapped: an action
        may change the mode (a rename opens the prompt), and the keys typed right after
        it in the same read must see that mode. Adjacent pane bytes go in one write."""
        pending = bytearray()
        for event in events:
            for action in self.machine.handle(event):
                if isinstance(action, a.SendBytes):
                    pending += action.data
                    continue
                if pending:
                    self.do(a.SendBytes(bytes(pending)))
                    pending.clear()
                self.do(action)
        if pending:
            self.do(a.SendBytes(bytes(pending)))

    def do(self, action: a.Action) -> None:
        if isinstance(action, a.SendBytes):
            text = action.data.decode("latin-1")
            self.conn.send({"t": "in", "pane_id": self.focused_pane_id(), "data": text})
        elif isinstance(action, a.SendPaste):
            pane_id = self.focused_pane_id()
            data = action.data
            for start in range(0, max(1, len(data)), PASTE_CHUNK):
                chunk = data[start : start + PASTE_CHUNK].decode("latin-1")
                self.conn.send({"t": "paste", "pane_id": pane_id, "data": chunk})
        elif isinstance(action, a.ModeChanged):
            if action.mode == "navigate":
                self.selected_ws = self.ws_id  # the selection starts where we are
            self.schedule_draw()
        elif isinstance(action, a.HostFocus):
            self.host_focused = action.focused
            self.sync_server()
            if action.focused:
                self.draw(force=True)
        elif isinstance(action, a.MouseInput):
            self.mouse(action.event)
        elif isinstance(action, a.Command):
            self.command(action.name)
        elif isinstance(action, a.FocusDir):
            self.request(
                "pane.focus_direction",
                {"pane_id": self.focused_pane_id(), "direction": action.direction},
            )
        elif isinstance(action, a.SwapDir):
            source = self.focused_pane_id()
            self.request("pane.swap", {"source_pane_id": source, "direction": action.direction})
        elif isinstance(action, a.ResizeDir):
            params: dict[str, Any] = {
                "pane_id": self.focused_pane_id(),
                "direction": action.direction,
            }
            if action.amount is not None:
                params["amount"] = action.amount
            self.request("pane.resize", params)
        elif isinstance(action, a.PromptChanged):
            self.schedule_draw()
        elif isinstance(action, a.CopyKey):
            self.copy_key(action.spec)
        elif isinstance(action, a.SubmitPrompt):
            self.submit_prompt(action.prompt)
        elif isinstance(action, a.CyclePane):
            self.cycle_pane(action.step)
        elif isinstance(action, a.SwitchTab):
            self.switch_tab_index(action.index)
        elif isinstance(action, a.SwitchWorkspace):
            ids = self.workspace_ids()
            if 1 <= action.index <= len(ids):
                self.switch_workspace(ids[action.index - 1])
        elif isinstance(action, a.FocusAgent):
            agents = self.build_view().agents
            if 1 <= action.index <= len(agents):
                self.focus_pane(agents[action.index - 1].pane_id)
        elif isinstance(action, a.NavigateWorkspace):
            ids = self.workspace_ids()
            if ids:
                pos = ids.index(self.selected_ws) if self.selected_ws in ids else 0
                self.selected_ws = ids[(pos + action.step) % len(ids)]
                self.schedule_draw()
        else:
            self.notice("not available yet")

    def notice(self, text: str) -> None:
        self.message = text
        self.schedule_draw()

    def command(self, name: str) -> None:
        pane_id = self.focused_pane_id()
        if name == "detach":
            self.finish("detached")
        elif name in ("split_right", "split_down"):
            direction = "right" if name == "split_right" else "down"
            params: dict[str, Any] = {"direction": direction, "focus": True}
            if pane_id is not None:
                params["target_pane_id"] = pane_id
            self.request("pane.split", params)
        elif name == "new_tab":
            self.request("tab.create", {"workspace_id": self.ws_id, "focus": True}, switch=True)
        elif name in ("next_tab", "previous_tab"):
            tabs = self.tab_ids()
            if tabs and self.tab_id in tabs:
                step = 1 if name == "next_tab" else -1
                self.switch_tab(tabs[(tabs.index(self.tab_id) + step) % len(tabs)])
        elif name == "close_pane" and pane_id is not None:
            self.request("pane.close", {"pane_id": pane_id})
        elif name == "zoom" and pane_id is not None:
            self.request("pane.zoom", {"pane_id": pane_id})
        elif name == "toggle_sidebar":
            self.sidebar_visible = not self.sidebar_visible
            self.sync_server()
            self.schedule_draw()
        elif name == "new_workspace":
            self.request("workspace.create", {"focus": True}, switch=True)
        elif name == "close_tab" and self.tab_id is not None:
            self.request("tab.close", {"tab_id": self.tab_id})
        elif name == "close_workspace" and self.ws_id is not None:
            self.request("workspace.close", {"workspace_id": self.ws_id})
        elif name in ("next_workspace", "previous_workspace"):
            ids = self.workspace_ids()
            if ids and self.ws_id in ids:
                step = 1 if name == "next_workspace" else -1
                self.switch_workspace(ids[(ids.index(self.ws_id) + step) % len(ids)])
        elif name == "navigate_select":
            if self.selected_ws is not None:
                self.switch_workspace(self.selected_ws)
        elif name == "last_pane":
            self.cycle_pane(-1)
        elif name in ("rename_workspace", "rename_tab", "rename_pane"):
            self.start_rename(cast(PromptKind, name.removeprefix("rename_")))
        elif name == "open_notification_target":
            target = notification_target(self.doc, self.attention_order)
            if target is None:
                self.notice("no agent needs you")
            else:
                self.focus_pane(target)
        elif name in ("next_agent", "previous_agent"):
            step = 1 if name == "next_agent" else -1
            target = cycle_agent(self.doc, pane_id, step)
            if target is None:
                self.notice("no agents")
            elif target != pane_id:
                self.focus_pane(target)
        elif name == "reload_config":
            self.spawn(self._reload_config())
        elif name == "copy_mode":
            self.start_copy()
        else:
            self.notice(f"{name.replace('_', ' ')}: not available yet")

    # -- copy mode ---------------------------------------------------------------------------

    def start_copy(self) -> None:
        """Copy mode on the focused pane (``prefix+[``), where its viewport is now."""
        pane_id = self.focused_pane_id()
        size = self.pane_size.get(pane_id) if pane_id is not None else None
        if pane_id is None or size is None:
            for action in self.machine.set_mode("terminal"):
                self.do(action)
            self.notice("copy mode: no pane")
            return
        offset, total = self.pane_scroll.get(pane_id, (0, size[1]))
        cursor = self.pane_cursor.get(pane_id) if not offset else None
        self.copy = cm.enter(pane_id, size, total, offset, cursor)
        if self.machine.mode != "copy":
            for action in self.machine.set_mode("copy"):
                self.do(action)
        self.schedule_draw()

    def copy_key(self, spec: KeySpec) -> None:
        copy = self.copy
        if copy is None:
            self.leave_copy()
            return
        rows = self.pane_rows.get(copy.pane_id, ())
        self.copy, effects = cm.handle_key(copy, spec, rows)
        self.copy_effects(copy, effects)

    def copy_effects(self, before: cm.CopyState, effects: list[cm.Effect]) -> None:
        """Carry out what a copy-mode key asked for (scroll, copy, leave)."""
        for effect in effects:
            if isinstance(effect, cm.Scroll):
                self.conn.send({"t": "scroll", "pane_id": before.pane_id, "delta": effect.delta})
            elif isinstance(effect, cm.Copy):
                self.copy_selection(before, effect.selection)
            elif isinstance(effect, cm.Leave):
                self.leave_copy()
        self.schedule_draw()

    def leave_copy(self) -> None:
        """Back to terminal mode; the pane returns to its live bottom."""
        copy, self.copy = self.copy, None
        self._copy_paint = None
        if copy is not None:
            self.conn.send({"t": "scroll", "pane_id": copy.pane_id, "delta": TO_BOTTOM})
        if self.machine.mode == "copy":
            for action in self.machine.set_mode("terminal"):
                self.do(action)
        self.schedule_draw()

    def copy_selection(self, state: cm.CopyState, sel: cm.Selection) -> None:
        """Copy from the rows on screen when they hold the selection, else ask the server
        for the whole scrollback (``pane.read``)."""
        rows = self.pane_rows.get(state.pane_id, ())
        if state.top <= sel.start_line and sel.end_line < state.top + len(rows):
            self.put_clipboard(cm.selected_text(rows, state.top, sel), sel.lines)
            return
        self.spawn(self._copy_from_server(state, sel))

    async def _copy_from_server(self, state: cm.CopyState, sel: cm.Selection) -> None:
        rows = self.pane_rows.get(state.pane_id, ())
        fallback = "copied the rows on screen only"
        if state.total <= MAX_READ_LINES:
            params = {"pane_id": state.pane_id, "source": "recent", "lines": state.total}
            try:
                envelope = await self.conn.call("pane.read", params)
            except (OSError, ValueError) as exc:
                envelope = {"error": {"message": str(exc)}}
            read = (envelope.get("result") or {}).get("read")
            if isinstance(read, dict) and isinstance(read.get("text"), str):
                # "recent" with lines = every row starts at row 0 (only blank rows
                # after the last text are left out)
                lines = read["text"].split("\n")
                self.put_clipboard(cm.selected_text(lines, 0, sel), sel.lines)
                return
            error = envelope.get("error")
            if isinstance(error, dict):
                fallback = f"pane.read: {error.get('message')}; {fallback}"
        first = max(sel.start_line, state.top)
        last = min(sel.end_line, state.top + len(rows) - 1)
        if last < first:
            self.notice("copy: the selection is not on screen")
            return
        clipped = cm.Selection(
            first,
            sel.start_col if first == sel.start_line else 0,
            last,
            sel.end_col if last == sel.end_line else max(0, state.width - 1),
            sel.linewise,
        )
        self.put_clipboard(cm.selected_text(rows, state.top, clipped), clipped.lines, fallback)

    def put_clipboard(self, text: str, lines: int, note: str = "") -> None:
        """OSC 52 to the host terminal: it owns the clipboard (works over ssh too)."""
        self.write(cm.osc52(text))
        self.copied = text
        done = f"copied {lines} line{'s' if lines != 1 else ''}"
        self.notice(f"{done} ({note})" if note else done)

    def copy_wheel(self, pane_id: str, up: bool) -> bool:
        """The wheel over a pane that did not ask for mouse events: copy mode, tmux-like
        (wheel up enters it on the focused pane; back at the bottom it ends)."""
        lines = self.settings.scroll_lines
        if self.copy is None:
            if not up or pane_id != self.focused_pane_id() or self.machine.mode != "terminal":
                return False
            self.start_copy()
            if self.copy is None:
                return False
        copy = self.copy
        if copy.pane_id != pane_id:
            return False
        if not up and copy.offset <= lines and copy.anchor is None:
            self.leave_copy()  # wheeled back to the live bottom
            return True
        self.copy, effects = cm.scroll_view(copy, -lines if up else lines)
        self.copy_effects(copy, effects)
        return True

    # -- rename prompt and config reload -----------------------------------------------------

    def start_rename(self, kind: PromptKind) -> None:
        """Open the rename prompt prefilled with the current name."""
        doc = self.doc or {}
        target: str | None
        rec: dict[str, Any]
        if kind == "workspace":
            target = self.ws_id
            rec = next((w for w in doc.get("workspaces", []) if w["workspace_id"] == target), {})
        elif kind == "tab":
            target = self.tab_id
            rec = next((t for t in doc.get("tabs", []) if t["tab_id"] == target), {})
        else:
            target = self.focused_pane_id()
            rec = next((p for p in doc.get("panes", []) if p["pane_id"] == target), {})
        current = rec.get("label")
        if target is None:
            self.notice(f"rename {kind}: nothing to rename")
            return
        prompt = open_prompt(kind, target, current if isinstance(current, str) else "")
        for action in self.machine.open_prompt(prompt):
            self.do(action)

    def submit_prompt(self, prompt: Prompt) -> None:
        """Send the typed name; the server's answer (or error) comes back as a notice or
        through the state stream."""
        method = f"{prompt.kind}.rename"
        key = {"workspace": "workspace_id", "tab": "tab_id", "pane": "pane_id"}[prompt.kind]
        self.request(method, {key: prompt.target, "label": prompt.text})

    async def _reload_config(self) -> None:
        """``server.reload_config``, then the client's own ``[ui]`` and ``[keys]``."""
        notes: list[str] = []
        try:
            envelope = await self.conn.call("server.reload_config", {})
        except (OSError, ValueError) as exc:
            envelope = {"error": {"message": str(exc)}}
        error = envelope.get("error")
        if isinstance(error, dict):
            notes.append(f"server: {error.get('message')}")
        else:
            result = envelope.get("result")
            result = result if isinstance(result, dict) else {}
            if result.get("status") == "failed":
                notes.append("server kept its settings")
            diagnostics = result.get("diagnostics")
            if isinstance(diagnostics, list):
                notes.extend(f"server: {d}" for d in diagnostics if isinstance(d, str))
        path = self.config_path or Path(config_file(os.environ))
        notes.extend(self.reload_settings(load_ui_settings(path)))
        head = "config reloaded" if not isinstance(error, dict) else "client config reloaded"
        self.notice("; ".join([head, *notes])[:200])

    def reload_settings(self, settings: UiSettings) -> list[str]:
        """Apply re-read ``[ui]`` settings and key bindings; returns the warnings.

        The sidebar's shown/hidden state and mouse capture stay as they are (start-up
        choices the user may have toggled since)."""
        settings.sidebar_visible = self.settings.sidebar_visible
        settings.mouse = self.settings.mouse
        self.settings = settings
        bindings, errors = load_bindings(settings.keys)
        self.bindings = bindings
        self.machine.bindings = bindings
        self.help = help_entries(bindings)
        self._plain_bytes.clear()  # which bytes are plain typing depends on the bindings
        self._view_cache = None
        self.sync_server()
        self.schedule_draw()
        return [*settings.warnings, *(str(e) for e in errors)]

    def request(self, method: str, params: dict[str, Any], *, switch: bool = False) -> None:
        self.spawn(self._request(method, params, switch))

    async def _request(self, method: str, params: dict[str, Any], switch: bool) -> None:
        try:
            envelope = await self.conn.call(method, params)
        except (OSError, ValueError) as exc:
            self.notice(f"{method}: {exc}")
            return
        error = envelope.get("error")
        if isinstance(error, dict):
            self.notice(f"{method}: {error.get('message')}")
            return
        if self.message:
            self.message = ""
            self.schedule_draw()
        if switch:
            result = envelope.get("result", {})
            tab = result.get("tab") or {}
            workspace = result.get("workspace") or {}
            if workspace.get("workspace_id"):
                self.ws_id = workspace["workspace_id"]
            if tab.get("tab_id"):
                self.ws_id = tab.get("workspace_id", self.ws_id)
                self.tab_id = tab["tab_id"]
            self.sync_server()
            self.schedule_draw()

    # -- navigation -------------------------------------------------------------------------

    def workspace_ids(self) -> list[str]:
        return [w["workspace_id"] for w in (self.doc or {}).get("workspaces", [])]

    def tab_ids(self) -> list[str]:
        return [
            t["tab_id"] for t in (self.doc or {}).get("tabs", []) if t["workspace_id"] == self.ws_id
        ]

    def switch_workspace(self, ws_id: str) -> None:
        if ws_id != self.ws_id:
            self.ws_id = ws_id
            self.tab_id = None
            self._resolve_view()
            self.request("workspace.focus", {"workspace_id": ws_id})
        self.selected_ws = ws_id
        self.sync_server()
        self.schedule_draw()

    def switch_tab(self, tab_id: str) -> None:
        if tab_id != self.tab_id:
            self.tab_id = tab_id
            self.request("tab.focus", {"tab_id": tab_id})
            self.sync_server()
            self.schedule_draw()

    def switch_tab_index(self, index: int) -> None:
        tabs = self.tab_ids()
        if 1 <= index <= len(tabs):
            self.switch_tab(tabs[index - 1])

    def focus_pane(self, pane_id: str) -> None:
        rec = next((p for p in (self.doc or {}).get("panes", []) if p["pane_id"] == pane_id), None)
        if rec is not None:
            self.ws_id = rec["workspace_id"]
            self.tab_id = rec["tab_id"]
            self.sync_server()
        self.request("pane.focus", {"pane_id": pane_id})
        self.schedule_draw()

    def cycle_pane(self, step: int) -> None:
        layout = self._tab_layout()
        if layout is None:
            return
        ids = [p[0] for p in layout["panes"]]
        current = layout["focused_pane_id"]
        if len(ids) > 1 and current in ids:
            self.focus_pane(ids[(ids.index(current) + step) % len(ids)])

    # -- mouse ------------------------------------------------------------------------------

    def mouse(self, event: Mouse) -> None:
        frame = self.frame
        if frame is None:
            return
        target = frame.target_at(event.x, event.y)
        if target is None:
            return
        pane_hit = self._pane_at(event.x, event.y)
        if self._drag is not None:
            if event.kind in ("drag", "release"):
                self._drag_to(event.x, event.y)
            if event.kind != "drag":
                self._drag = None
            return
        if pane_hit is None and event.kind == "press" and event.button == "left":
            split = self._split_at(event.x, event.y)
            if split is not None:
                self._drag = split
                return
        if pane_hit is not None:
            pane_id, local_x, local_y = pane_hit
            if self.pane_mouse.get(pane_id, 0) and event.kind in ("press", "release", "wheel"):
                if event.kind == "press" and pane_id != self.focused_pane_id():
                    self.request("pane.focus", {"pane_id": pane_id})
                data = encode_mouse_sgr(event, local_x, local_y).decode("latin-1")
                self.conn.send({"t": "in", "pane_id": pane_id, "data": data})
                return
        if event.kind == "wheel" and pane_hit is not None:
            wheel = event.button in ("wheel_up", "wheel_down")
            if wheel and self.copy_wheel(pane_hit[0], event.button == "wheel_up"):
                return
            if wheel:
                lines = self.settings.scroll_lines
                delta = -lines if event.button == "wheel_up" else lines
                self.conn.send({"t": "scroll", "pane_id": pane_hit[0], "delta": delta})
            return
        if event.kind != "press" or event.button != "left":
            return
        if target.kind == "workspace":
            self.switch_workspace(target.id)
        elif target.kind == "tab":
            self.switch_tab(target.id)
        elif target.kind == "agent":
            self.focus_pane(target.id)
        elif target.kind == "pane" or pane_hit is not None:
            pane_id = target.id if target.kind == "pane" else pane_hit[0] if pane_hit else ""
            if pane_id and pane_id != self.focused_pane_id():
                self.request("pane.focus", {"pane_id": pane_id})

    def _split_at(self, x: int, y: int) -> list[Any] | None:
        """The split whose divider is at frame cell (x, y), for a border drag."""
        frame = self.frame
        layout = self._tab_layout()
        if frame is None or layout is None:
            return None
        area = frame.pane_area
        for split in layout.get("splits", []):
            dx, dy, dw, dh = split[2]
            if Rect(area.x + dx, area.y + dy, dw, dh).contains(x, y):
                return list(split)
        return None

    def _drag_to(self, x: int, y: int) -> None:
        frame = self.frame
        if frame is None or self._drag is None or self.tab_id is None:
            return
        path, direction, _divider, (sx, sy, sw, sh) = self._drag
        area = frame.pane_area
        if direction == "right":
            ratio = (x - area.x - sx) / max(1, sw)
        else:
            ratio = (y - area.y - sy) / max(1, sh)
        params = {"path": path, "ratio": min(0.95, max(0.05, ratio)), "tab_id": self.tab_id}
        if self._drag_busy:
            self._drag_next = params
            return
        self._drag_busy = True
        self.spawn(self._send_ratio(params))

    async def _send_ratio(self, params: dict[str, Any]) -> None:
        try:
            while True:
                with contextlib.suppress(OSError, ValueError):
                    await self.conn.call("layout.set_split_ratio", params)
                if self._drag_next is None:
                    return
                params, self._drag_next = self._drag_next, None
        finally:
            self._drag_busy = False

    def _pane_at(self, x: int, y: int) -> tuple[str, int, int] | None:
        frame = self.frame
        layout = self._tab_layout()
        if frame is None or layout is None:
            return None
        area = frame.pane_area
        for pane_id, px, py, w, h in layout["panes"]:
            rect = Rect(area.x + int(px), area.y + int(py), int(w), int(h))
            if rect.contains(x, y):
                return str(pane_id), x - rect.x, y - rect.y
        return None


def _run_loop(main: Any) -> ExitReason:
    """``asyncio.run``, on uvloop when it imports (a dependency; asyncio otherwise)."""
    try:
        import uvloop
    except ImportError:
        result: ExitReason = asyncio.run(main)
        return result
    fast: ExitReason = uvloop.run(main)
    return fast


def _basename(path: Any) -> str:
    if not isinstance(path, str) or not path:
        return ""
    return os.path.basename(path.rstrip("/")) or path


def _cells(count: int, *, low: int = 1) -> int:
    """A size the server accepts (a larger terminal shows the area in its top-left)."""
    return max(low, min(count, MAX_SIZE_CELLS))
