"""The attach stream: what a TUI client sees, and what it sends back.

A client calls ``client.attach`` and keeps the connection. The server answers
``attach_started`` and then pushes NDJSON lines: the state document (re-sent whole,
coalesced, whenever a lifecycle event fires or titles/cwds change), and the changed
styled rows (plus the input modes the client mirrors onto the host) of the panes the
client can see (its active tab), at most :data:`MAX_FPS` times per second; hidden panes
cost nothing. ``bye`` comes before the server stops. The client sends its keys, pastes,
scrolls, pane-area size and view on the same connection; commands (split, close,
focus…) go through the normal public methods on separate connections. Every message
is declared, with its fields, in :mod:`herdr.api.attach_messages`.

Sizes: the most recently active client (attach, input, resize, view) decides the
session area; when it detaches the size passes to the most recently active one left;
after the last client leaves, the PTYs keep their last size (herdr-spec §1.1).
A size is at most :data:`~herdr.api.limits.MAX_SIZE_CELLS` each way: ``client.attach``
refuses more (``invalid_params``); a ``resize`` line, which has no answer, is clamped.

Memory per client is bounded: its input lines by :data:`MAX_CLIENT_LINE`, its output by
one frame, since a frame is written only after the previous one left (``drain``) and
an immediate push only into an empty write buffer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import Struct

from herdr.api import protocol
from herdr.api.attach_messages import (
    AttachParams,
    AttachStarted,
    Bye,
    ClientMessage,
    Input,
    Paste,
    PopupClosed,
    PopupOpened,
    Rect4,
    Resize,
    Rows,
    Scroll,
    State,
    StateDoc,
    Surface,
    SurfaceSet,
    TabLayout,
    View,
    WindowTitle,
    decode_client,
    encode_line,
)
from herdr.api.limits import MAX_SIZE_CELLS
from herdr.runtime import model as m
from herdr.runtime.events import Filter
from herdr.runtime.layout import Rect
from herdr.server.client_ui import ClientUi
from herdr.server.core import ServerCore, encode
from herdr.server.popups import is_popup_id
from herdr.server.short_ids import peer_pid_of
from herdr.server.views import TabSeen, ViewedPanes

if TYPE_CHECKING:
    from herdr.server.panes import Terminal
    from herdr.server.transport import Connection

log = logging.getLogger("herdr.server.attach")

MAX_FPS = 60
FRAME_S = 1.0 / MAX_FPS
STATE_REFRESH_S = 1.0  # titles and cwds change without events: re-check this often
MAX_CLIENT_LINE = 4 * 1024 * 1024
INTERACTIVE_S = 0.5  # how long after a key its pane's next output skips the coalescing
INTERACTIVE_BACKLOG = 256 * 1024  # an echo is not queued behind more than this
_MAX_SCROLL = 1_000_000  # rows per scroll message: past any scrollback
_RESET = "\x1b[0m"
_QUIET_KINDS = frozenset(
    {"pane_output_changed", "agent_approval_requested", protocol.PANE_SCROLL_CHANGED}
)


class _AnyLifecycle(Filter):
    """Hears every lifecycle/state event (never output) so attached clients wake."""

    shared = True

    def __init__(self) -> None:
        super().__init__({"type": "herdr.attach"})
        self.kinds = frozenset(protocol.EVENT_KINDS) - _QUIET_KINDS


@dataclass(eq=False)
class _Screen:
    """The last rows read from one terminal, with a version per row."""

    size: tuple[int, int] = (0, 0)
    rows: list[str] = field(default_factory=list)
    vers: list[int] = field(default_factory=list)
    ver: int = 0
    revision: int = -1
    # the rows whose version is ``ver`` (what the last refresh changed), ascending; None:
    # not known (every row was re-read), so a client one version behind scans ``vers``
    changed: list[int] | None = None
    cursor: tuple[int, int] | None = None
    mouse: int = 0
    app_cursor: bool = False
    kitty: int = 0  # kitty keyboard flags, mirrored onto the host by the client
    mok: int = 0  # modifyOtherKeys level, likewise
    alt: bool = False  # on the alternate screen: the client's wheel sends arrow keys
    scrolled: bool = False
    offset: int = 0  # rows the viewport is scrolled up into the scrollback
    total: int = 0  # scrollback + screen rows
    # everything a ``rows`` message carries besides rows, as one value: a client that
    # has it and the current ``ver`` needs nothing (see _rows_line)
    meta: tuple[object, ...] = ()

    def refresh(self, term: Terminal) -> None:
        em = term.emulator
        if em.closed or em.revision == self.revision:
            return
        self.revision = em.revision
        self.ver += 1
        offset, self.total, cursor = em.frame_state()  # one library call
        self.offset = offset
        if offset:
            self._viewport(term, offset)
        else:
            size = (em.cols, em.rows)
            if size != self.size or self.scrolled:
                self.scrolled = False
                self.size = size
                self.rows = em.ansi_rows()
                self.vers = [self.ver] * len(self.rows)
                self.changed = None
                em.forget_sent_rows()
                em.take_changed_rows(scrolled=False)
            else:
                rows, vers, ver = self.rows, self.vers, self.ver
                changed: list[int] = []
                for y, row in em.take_changed_rows(scrolled=False).items():
                    if y < len(rows):
                        rows[y] = row
                        vers[y] = ver
                        changed.append(y)
                changed.sort()
                self.changed = changed
            self.cursor = cursor
            modes = em.input_modes()
            self.mouse = modes.mouse_tracking
            self.app_cursor = modes.application_cursor
            self.kitty = modes.kitty_flags
            self.mok = modes.modify_other_keys
            self.alt = modes.alternate_screen
        self.meta = (
            self.size,
            self.cursor,
            self.mouse,
            self.app_cursor,
            self.kitty,
            self.mok,
            self.offset,
            self.total,
            self.alt,
        )

    def _viewport(self, term: Terminal, offset: int) -> None:
        """Rows of a viewport scrolled ``offset`` rows up into the scrollback."""
        em = term.emulator
        self.scrolled = True
        end = self.total - 1 - offset
        start = max(0, end - em.rows + 1)
        text = em.screen_text(start, end, ansi=True)
        rows = [
            r if r.endswith(_RESET) or "\x1b[" not in r else r + _RESET for r in text.split("\r\n")
        ]
        rows = (rows + [""] * em.rows)[: em.rows]
        if (em.cols, em.rows) != self.size or len(self.rows) != len(rows):
            self.size = (em.cols, em.rows)
            self.rows = rows
            self.vers = [self.ver] * len(rows)
            self.changed = None
        else:
            changed: list[int] = []
            for y, row in enumerate(rows):
                if self.rows[y] != row:
                    self.rows[y] = row
                    self.vers[y] = self.ver
                    changed.append(y)
            self.changed = changed
        self.cursor = None
        self.mouse = 0

    def rows_since(self, ver: int) -> list[tuple[int, str]]:
        """(y, row) of every row newer than version ``ver``, ascending."""
        rows = self.rows
        if ver == self.ver - 1 and self.changed is not None:
            return [(y, rows[y]) for y in self.changed]  # the usual case: one refresh behind
        vers = self.vers
        return [(y, r) for y, r in enumerate(rows) if vers[y] > ver]

    def invalidate(self) -> None:
        """Re-read on the next refresh (the viewport moved without new output)."""
        self.revision = -1


@dataclass(eq=False)
class _Sent:
    """What one client was last sent of one pane (updated in place)."""

    terminal_id: str
    ver: int
    meta: tuple[object, ...]


class _Slots(Struct, frozen=True, eq=False):
    """A client's displayed panes, and what they were computed from."""

    stamp: float
    area: Rect
    ws: m.Workspace
    tab: m.Tab
    root: object
    zoomed: bool
    focused: int
    slots: tuple[tuple[str, str], ...]


@dataclass(eq=False)
class AttachedClient:
    client_id: str
    conn: Connection
    cols: int = 0
    rows: int = 0
    workspace_id: str | None = None
    tab_id: str | None = None
    focused: bool = True
    surface: bool = True  # the surface-interest lease: False, no rows are sent
    last_active: float = field(default_factory=time.monotonic)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    state_gen: int = -1
    sent: dict[str, _Sent] = field(default_factory=dict)
    watching: dict[str, Terminal] = field(default_factory=dict)  # terminal_id -> term
    # terminal_id -> the callback this client hangs on that terminal's ``on_output``
    on_output: dict[str, Callable[[], None]] = field(default_factory=dict)
    panes_of: dict[str, str] = field(default_factory=dict)  # terminal_id -> visible pane id
    visible: frozenset[str] = frozenset()  # pane ids
    last_frame: float = 0.0  # monotonic time of the last frame sent
    idle: bool = False  # the stream loop waits for a change with nothing pending
    typing: tuple[str, int, Terminal] | None = None  # (pane id, bus seq, its terminal)
    peer_pid: int | None = None  # the TUI process; its own focus requests come from it
    popup_sent: tuple[str, Rect4] | None = None  # the popup (id, box) this client was told
    # (terminal id, monotonic time): the pane this client just typed into, whose next
    # output is pushed at once whatever the coalescing of other panes (push_output)
    interactive: tuple[str, float] | None = None
    slots: _Slots | None = None  # the shown tab's displayed panes (AttachRegistry._slots)

    def view_tab(self, session: m.Session) -> tuple[m.Workspace, m.Tab] | None:
        """The tab this client shows (its own choice, else the session's focus)."""
        if self.tab_id is not None:
            with contextlib.suppress(m.ModelError):
                return session.tab(self.tab_id)
        if self.workspace_id is not None:
            with contextlib.suppress(m.ModelError):
                ws = session.workspace(self.workspace_id)
                return ws, ws.active()
        current = session.active()
        if current is None:
            return None
        return current, current.active()


class _ViewsMoved(Filter):
    """Hears the events that can change which panes a client shows (panes, tabs and
    workspaces created, closed, moved or focused; layouts), never output or agent
    state, and refreshes the viewed set (`apply` queues nothing)."""

    def __init__(self, registry: AttachRegistry) -> None:
        super().__init__({"type": "herdr.attach.views"})
        self.kinds = _VIEW_KINDS
        self._registry = registry

    def apply(self, event: Any) -> None:
        self._registry.ui.bump()  # the layout/projection changed
        self._registry.refresh_views()


_VIEW_KINDS = frozenset(protocol.EVENT_KINDS) - {
    "pane_output_changed",
    "pane_agent_detected",
    "pane_agent_status_changed",
    "pane_updated",
    "workspace_updated",
    "workspace_metadata_updated",
    "workspace_renamed",
    "tab_renamed",
}


class AttachRegistry:
    """Every attached client of one server; owns the per-terminal row cache.

    It keeps ``views`` (what focused clients show, for seen/done) current and tells
    ``seen`` when a client starts showing a tab.
    """

    def __init__(self, core: ServerCore, views: ViewedPanes, seen: TabSeen) -> None:
        self.core = core
        self.views = views
        self.seen = seen
        self.clients: dict[str, AttachedClient] = {}
        self.screens: dict[str, _Screen] = {}
        self.state_gen = 0
        self._state_line: bytes = b""
        self._state_line_gen = -1
        self._last_seq = -1
        self._next_id = 1
        self._last_state_build = 0.0
        # a one-shot re-check of the state document after output (titles and cwds move
        # without events): armed by the first output after a rebuild (see _on_output)
        self._recheck: asyncio.TimerHandle | None = None
        self.ui = ClientUi()
        # (seq, workspace id, tab id) of the last focus change a script made (not an
        # attached client's own view switch): clients' views follow it
        self.follow: tuple[int, str | None, str | None] | None = None
        core.bus.subscribe([_ViewsMoved(self)])
        core.panes.popups.on_change(self.mark_changed)  # opened, moved or closed

    # -- seen/attention --------------------------------------------------------------

    def foreground(self) -> AttachedClient | None:
        """The most recently active attached client that holds its surface lease: the
        one client-local effects (toasts, window titles) go to."""
        live = [c for c in self.clients.values() if c.surface and not c.conn.closed]
        return max(live, key=lambda c: c.last_active, default=None)

    def pane_viewed(self, pane_id: str) -> bool:
        """Whether a focused client shows ``pane_id`` (one set lookup)."""
        return self.views.pane_viewed(pane_id)

    def refresh_views(self) -> None:
        """Recompute the viewed set: the panes of the tab each focused client shows.
        Called when that may have changed (a client came, left or sent ``view``; an
        event moved panes, tabs or the focus)."""
        session = self.core.panes.session
        viewed: set[str] = set()
        for client in self.clients.values():
            shown = client.view_tab(session) if client.focused and client.surface else None
            if shown is not None:
                ws, tab = shown
                viewed.update(ws.pane_id(pane) for pane in tab.panes.values())
        self.views.replace(viewed)

    # -- state document --------------------------------------------------------------

    def state_changed(self) -> None:
        """Rebuild and re-send the state document: something no event announces changed
        (the agent view, a pane's right-click routing)."""
        self._last_seq = -1
        self.mark_changed()

    def mark_changed(self) -> None:
        self.state_gen += 1
        for client in self.clients.values():
            client.wake.set()

    def state_line(self) -> bytes:
        bus_seq = self.core.bus.last_seq
        now = time.monotonic()
        if bus_seq != self._last_seq or now - self._last_state_build >= STATE_REFRESH_S:
            self._last_seq = bus_seq
            self._last_state_build = now
            if self._recheck is not None:  # output from here on re-arms it
                self._recheck.cancel()
                self._recheck = None
            line = encode_line(State(state=self.state_doc()))
            if line != self._state_line:
                self._state_line = line
                self.state_gen += 1
        return self._state_line

    def state_doc(self) -> StateDoc:
        host = self.core.panes
        session = host.session
        layouts: dict[str, TabLayout] = {}
        for ws in session.workspaces:
            for tab in ws.tabs:
                geo = session.geometry(tab, zoomed=True)
                layouts[ws.tab_id(tab)] = TabLayout(
                    zoomed=tab.zoomed,
                    focused_pane_id=ws.pane_id(tab.panes[tab.focused]),
                    panes=[
                        (ws.pane_id(tab.panes[k]), r.x, r.y, r.width, r.height)
                        for k, r in geo.panes.items()
                    ],
                    splits=[
                        (
                            list(d.path),
                            d.direction,
                            (d.rect.x, d.rect.y, d.rect.width, d.rect.height),
                            (d.area.x, d.area.y, d.area.width, d.area.height),
                        )
                        for d in geo.dividers
                    ],
                )
        return StateDoc(
            workspaces=[host.workspace_record(ws) for ws in session.workspaces],
            tabs=[host.tab_record(ws, tab) for ws in session.workspaces for tab in ws.tabs],
            panes=[self._pane_record(loc) for loc in session.iter_panes()],
            layouts=layouts,
            focused=session.focused_ids(),
            area=(session.area.width, session.area.height),
            agent_view=self.ui.agent_view,
            follow=self.follow,
        )

    def _pane_record(self, loc: m.PaneLoc) -> dict[str, Any]:
        """PaneInfo plus, for agents, ``state_change_seq``: the client's jump to "the
        agent that needs you" can then tell which one changed last, also for changes
        made before it attached. No ``scroll`` (the client has it from ``rows``) and no
        ``revision`` (it moves on every output; a client that needs one asks ``pane.get``):
        either would make the document differ, and be re-sent whole to be redrawn by every
        client, at each periodic re-check while a pane prints (every second of typing)."""
        host = self.core.panes
        record = dict(host.pane_record(loc))
        record.pop("scroll", None)
        record.pop("revision", None)
        if loc.pane.terminal_id in self.ui.right_click_pane:
            record["right_click"] = "pane"  # pane.input.set: right clicks go to the program
        if record.get("agent"):
            agent = host.agents.panes.get(loc.pane.terminal_id)
            if agent is not None:
                record["state_change_seq"] = agent.state_change_seq
        return record

    # -- sizes -------------------------------------------------------------------------

    def touch(self, client: AttachedClient) -> None:
        """``client`` is now the most recently active one: its size rules."""
        client.last_active = time.monotonic()
        self.apply_size(client)

    def sync_title(self, client: AttachedClient) -> None:
        """Give the API window title to ``client``, now the foreground one, unless it
        has it already: the title follows the foreground client, as in herdr."""
        ui = self.ui
        if ui.window_title is None or ui.title_client == client.client_id:
            return
        if client.surface and not client.conn.closed:
            ui.title_client = client.client_id
            client.conn.write(encode_line(WindowTitle(title=ui.window_title)))

    def apply_size(self, client: AttachedClient) -> None:
        host = self.core.panes
        if client.cols <= 0 or client.rows <= 0:
            return
        area = host.session.area
        if (area.width, area.height) == (client.cols, client.rows):
            return
        host.session.area = Rect(0, 0, client.cols, client.rows)
        for ws in host.session.workspaces:
            for tab in ws.tabs:
                host.resize_tab(ws, tab)
        host.popups.relayout()
        self._last_seq = -1  # rebuild the document
        self.mark_changed()

    # -- per-client stream ---------------------------------------------------------------

    def new_client(self, conn: Connection, params: dict[str, Any]) -> AttachedClient:
        client = AttachedClient(f"client_{self._next_id}", conn)
        self._next_id += 1
        attach = _attach_params(params)
        client.cols = attach.cols or 0
        client.rows = attach.rows or 0
        client.workspace_id = attach.workspace_id or None
        client.tab_id = attach.tab_id or None
        sock = conn.transport.get_extra_info("socket") if conn.transport else None
        client.peer_pid = peer_pid_of(sock)
        self.clients[client.client_id] = client
        self.refresh_views()
        self.touch(client)
        return client

    def focus_requested(self, peer_pid: int | None) -> None:
        """A focus method succeeded. Unless an attached TUI sent it (its own view switch:
        other clients keep their views), attached views move to the new focus, as tmux
        clients follow ``select-window`` run from a script."""
        if peer_pid is not None and any(c.peer_pid == peer_pid for c in self.clients.values()):
            return
        ws_id, tab_id, _pane = self.core.panes.session.focused_ids()
        seq = self.follow[0] + 1 if self.follow is not None else 1
        self.follow = (seq, ws_id, tab_id)
        self.state_changed()

    def drop(self, client: AttachedClient) -> None:
        self.clients.pop(client.client_id, None)
        self.refresh_views()
        for tid, term in client.watching.items():
            callback = client.on_output.get(tid)
            if callback is not None:
                term.on_output.discard(callback)
        client.watching.clear()
        client.on_output.clear()
        if not self.clients:
            self.screens.clear()
            return
        # The size passes to the most recently active client that is left.
        self.apply_size(max(self.clients.values(), key=lambda c: c.last_active))

    def _watch(self, client: AttachedClient, terms: dict[str, Terminal]) -> None:
        for tid, term in list(client.watching.items()):
            if tid not in terms or terms[tid] is not term:
                callback = client.on_output.pop(tid, None)
                if callback is not None:
                    term.on_output.discard(callback)
                del client.watching[tid]
        for tid, term in terms.items():
            if tid not in client.watching:
                callback = self._output_callback(client, term)
                term.on_output.add(callback)
                client.on_output[tid] = callback
                client.watching[tid] = term

    def _output_callback(self, client: AttachedClient, term: Terminal) -> Callable[[], None]:
        """What ``client`` hangs on ``term.on_output``.

        It runs inside the PTY read callback, right after the emulator was fed. When the
        client's stream is idle (no frame for :data:`FRAME_S`, nothing queued, state
        current) the new rows go out at once — the leading edge of a frame, which is
        what a keystroke's echo needs. Otherwise it only wakes the stream loop, which
        coalesces busy output to at most :data:`MAX_FPS` frames per second (the
        trailing edge).
        """
        return partial(self._on_output, client, term)  # no closure frame per chunk

    def _on_output(self, client: AttachedClient, term: Terminal) -> None:
        if self._recheck is None:
            self._arm_recheck()
        if not self.push_output(client, term):
            client.wake.set()

    def _arm_recheck(self) -> None:
        """Output may have moved a title or cwd, which no event announces: make sure the
        document is re-checked :data:`STATE_REFRESH_S` after its last build even if the
        pane then stays quiet (an echo pushed at once does not wake the stream loop)."""
        delay = self._last_state_build + STATE_REFRESH_S - time.monotonic()
        self._recheck = asyncio.get_running_loop().call_later(max(delay, 0.0), self._recheck_fired)

    def _recheck_fired(self) -> None:
        self._recheck = None
        if time.monotonic() - self._last_state_build < STATE_REFRESH_S:
            self._arm_recheck()  # fired a little early (the loop's clock granularity)
            return
        for client in self.clients.values():
            client.wake.set()

    def push_output(self, client: AttachedClient, term: Terminal) -> bool:
        """Send ``term``'s new rows to ``client`` now if its stream is idle, or if the
        client just typed into ``term`` (the echo's leading edge: it does not wait for
        the coalesced frame other panes' output is due in).

        True when nothing is left for the stream loop (rows sent, or nothing new);
        False when the loop must handle it (busy, or anything else may have changed).
        """
        now = time.monotonic()
        mark = client.interactive
        interactive = (
            mark is not None and mark[0] == term.terminal_id and now - mark[1] < INTERACTIVE_S
        )
        if not interactive and (not client.idle or client.wake.is_set()):
            return False
        conn = client.conn
        if conn.closed or self.core.stopping.is_set():
            return False
        if not interactive and now - client.last_frame < FRAME_S:
            return False  # busy output: the loop coalesces to MAX_FPS
        if client.state_gen != self.state_gen or self.core.bus.last_seq != self._last_seq:
            return False  # the layout or state may have moved: a whole frame is due
        # titles and cwds are due for a re-check (see state_line): the loop's job, after
        # an echo's rows went out
        refresh_due = client.idle and now - self._last_state_build >= STATE_REFRESH_S
        if refresh_due and not interactive:
            return False
        if term.exit_status is not None or term.closing or term.emulator.closed:
            return False  # an exit: the loop sends what follows (layout, state)
        pane_id = client.panes_of.get(term.terminal_id)
        if pane_id is None or pane_id not in client.visible:
            return False
        try:
            if conn.writes_pending() and (
                not interactive or conn.pending_bytes() > INTERACTIVE_BACKLOG
            ):
                return False
            line = self._rows_line(client, pane_id, term)
        except Exception:
            log.exception("pushing rows failed")
            return False
        if line is not None:
            if client.idle:
                client.last_frame = now
            client.interactive = None  # one leading-edge push per key
            conn.write(line)
        return (client.idle or line is not None) and not refresh_due

    def frame_lines(self, client: AttachedClient) -> list[bytes]:
        """Everything ``client`` has not seen yet: state, then rows of visible panes."""
        host = self.core.panes
        lines: list[bytes] = []
        state = self.state_line()
        if client.state_gen != self.state_gen:
            client.state_gen = self.state_gen
            lines.append(state)
        shown = client.view_tab(host.session) if client.surface else None
        terms: dict[str, Terminal] = {}
        panes_of: dict[str, str] = {}
        visible: set[str] = set()
        if shown is not None:
            for pane_id, terminal_id in self._slots(client, *shown):
                term = host.terminals.get(terminal_id)
                if term is None:
                    continue
                visible.add(pane_id)
                terms[terminal_id] = term
                panes_of[terminal_id] = pane_id
                line = self._rows_line(client, pane_id, term)
                if line is not None:
                    lines.append(line)
        lines.extend(self._popup_lines(client, terms, panes_of, visible))
        client.visible = frozenset(visible)
        client.panes_of = panes_of
        for pane_id in list(client.sent):
            if pane_id not in visible:
                del client.sent[pane_id]
        self._watch(client, terms)
        return lines

    def _slots(
        self, client: AttachedClient, ws: m.Workspace, tab: m.Tab
    ) -> tuple[tuple[str, str], ...]:
        """(pane id, terminal id) of each pane ``tab`` displays, in layout order.

        Laying the tab out and naming its panes cost more than the rows of a streaming
        pane, so the answer is kept per client while the state document was not rebuilt
        (it is on any event, and every :data:`STATE_REFRESH_S`), the area is the same and
        the workspace, tab and layout tree (immutable: every change replaces it) are the
        same objects, with the same zoom and focus.
        """
        area = self.core.panes.session.area
        stamp = self._last_state_build
        cached = client.slots
        if (
            cached is not None
            and cached.stamp == stamp
            and cached.area == area
            and cached.ws is ws
            and cached.tab is tab
            and cached.root is tab.root
            and cached.zoomed == tab.zoomed
            and cached.focused == tab.focused
        ):
            return cached.slots
        geo = self.core.panes.session.geometry(tab, zoomed=True)
        slots = tuple((ws.pane_id(tab.panes[k]), tab.panes[k].terminal_id) for k in geo.panes)
        client.slots = _Slots(stamp, area, ws, tab, tab.root, tab.zoomed, tab.focused, slots)
        return slots

    def _popup_lines(
        self,
        client: AttachedClient,
        terms: dict[str, Terminal],
        panes_of: dict[str, str],
        visible: set[str],
    ) -> list[bytes]:
        """``popup_opened``/``popup_closed`` when the popup changed since this client
        was told, then its rows (drawn over the layout, so sent like a visible pane's)."""
        popup = self.core.panes.popups.current
        lines: list[bytes] = []
        now = None
        if popup is not None:
            outer = popup.box.outer
            now = (popup.popup_id, (outer.x, outer.y, outer.width, outer.height))
        told = client.popup_sent
        if told is not None and (now is None or told[0] != now[0]):
            lines.append(encode_line(PopupClosed(popup_id=told[0])))
            client.sent.pop(told[0], None)
            if popup is None or popup.popup_id != told[0]:
                self.screens.pop(told[0], None)
        if now is not None and told != now and popup is not None:
            opened = PopupOpened(
                popup_id=now[0],
                title=popup.title,
                plugin_id=popup.plugin_id,
                entrypoint=popup.entrypoint,
                rect=now[1],
            )
            lines.append(encode_line(opened))
        client.popup_sent = now
        if popup is None or not client.surface:
            return lines
        term = popup.terminal
        terms[term.terminal_id] = term
        panes_of[term.terminal_id] = popup.popup_id
        visible.add(popup.popup_id)
        line = self._rows_line(client, popup.popup_id, term)
        if line is not None:
            lines.append(line)
        return lines

    def _rows_line(self, client: AttachedClient, pane_id: str, term: Terminal) -> bytes | None:
        screen = self.screens.get(term.terminal_id)
        if screen is None:
            screen = self.screens[term.terminal_id] = _Screen()
        screen.refresh(term)
        sent = client.sent.get(pane_id)
        meta = screen.meta
        if sent is None or sent.terminal_id != term.terminal_id or sent.meta[0] != screen.size:
            full = True
            rows = list(enumerate(screen.rows))
            client.sent[pane_id] = _Sent(term.terminal_id, screen.ver, meta)
        else:
            if sent.ver == screen.ver and sent.meta == meta:
                return None
            full = False
            rows = screen.rows_since(sent.ver)
            sent.ver = screen.ver
            sent.meta = meta
        return encode_line(
            Rows(
                pane_id=pane_id,
                size=screen.size,
                rows=rows,
                cursor=screen.cursor,
                mouse=screen.mouse,
                app_cursor=screen.app_cursor,
                kitty=screen.kitty,
                mok=screen.mok,
                full=full,
                offset=screen.offset,
                total=screen.total,
                alt=screen.alt,
            )
        )

    # -- client messages -----------------------------------------------------------------

    def handle_message(self, client: AttachedClient, msg: ClientMessage) -> None:
        host = self.core.panes
        if isinstance(msg, Input):
            self.type_keys(client, msg.pane_id or None, msg.data.encode("latin-1", "replace"))
        elif isinstance(msg, Paste):
            raw = msg.data.encode("latin-1", "replace").replace(b"\x1b[201~", b"")
            term = self._typing_terminal(client, msg.pane_id or None)
            if term is not None and term.emulator.input_modes().bracketed_paste:
                raw = b"\x1b[200~" + raw + b"\x1b[201~"
            self._type_into(client, term, raw)
        elif isinstance(msg, Scroll):
            term = self._input_terminal(client, msg.pane_id or None)
            delta = _clamp(msg.delta, 0, low=-_MAX_SCROLL, high=_MAX_SCROLL)
            if term is not None and delta and not term.emulator.closed:
                if delta > 0 and term.emulator.scroll_offset <= delta:
                    term.emulator.scroll_to_bottom()
                else:
                    term.emulator.scroll_viewport(delta)
                self._invalidate(term)
        elif isinstance(msg, Resize):
            client.cols = _clamp(msg.cols, client.cols, low=1, high=MAX_SIZE_CELLS)
            client.rows = _clamp(msg.rows, client.rows, low=1, high=MAX_SIZE_CELLS)
            self.touch(client)
            self.sync_title(client)
            client.wake.set()
        elif isinstance(msg, View):
            before = client.view_tab(host.session)
            client.workspace_id = msg.workspace_id or None
            client.tab_id = msg.tab_id or None
            was_focused = client.focused
            focused = msg.focused
            if focused is not None:
                client.focused = focused
            after = client.view_tab(host.session)
            self.refresh_views()
            if client.focused:  # a view change is activity (losing focus is not)
                self.touch(client)
            if after is not None and client.focused:
                changed = before is None or before[1] is not after[1]
                if changed or not was_focused:
                    ws, tab = after
                    try:
                        self.seen.tab_viewed(ws.id, ws.tab_id(tab))
                    except Exception:
                        log.exception("tab_viewed failed")
            client.wake.set()
        elif isinstance(msg, Surface):
            self._surface(client, msg.active)

    def type_keys(self, client: AttachedClient, pane_id: str | None, raw: bytes) -> None:
        """An ``in`` message: ``raw`` into the pane (the focused one when ``pane_id`` is
        None)."""
        self._type_into(client, self._typing_terminal(client, pane_id), raw)

    def _type_into(self, client: AttachedClient, term: Terminal | None, raw: bytes) -> None:
        if term is None:
            return
        em = term.emulator
        if em.scroll_offset:  # answered without the library while the viewport follows
            em.scroll_to_bottom()
            self._invalidate(term)
        with contextlib.suppress(Exception):
            term.write(raw)
        now = time.monotonic()
        client.interactive = (term.terminal_id, now)
        client.last_active = now  # touch(), without a second clock read
        self.apply_size(client)
        self.sync_title(client)

    def _surface(self, client: AttachedClient, active: bool) -> None:
        """Take or release ``client``'s surface-interest lease, and acknowledge it."""
        if active != client.surface:
            client.surface = active
            client.sent.clear()  # back on: every visible row again, whole
            self.ui.bump()
            self.refresh_views()
        ack = SurfaceSet(active=active, projection_revision=self.ui.projection_revision)
        client.conn.write(encode_line(ack))
        client.wake.set()

    def viewport_moved(self, term: Terminal) -> None:
        """Someone else (``pane.scroll``) moved ``term``'s viewport: re-send what it shows."""
        self._invalidate(term)

    def _invalidate(self, term: Terminal) -> None:
        screen = self.screens.get(term.terminal_id)
        if screen is not None:
            screen.invalidate()
        for client in self.clients.values():
            if term.terminal_id in client.watching:
                client.wake.set()

    def _typing_terminal(self, client: AttachedClient, pane_id: str | None) -> Terminal | None:
        """:meth:`_input_terminal`, remembered per client while no event was published
        (every change of panes, layouts or focus publishes one): typing into one pane
        skips resolving its id on every key."""
        seq = self.core.bus.last_seq
        cached = client.typing
        if cached is not None and pane_id is not None:
            cached_pane, cached_seq, term = cached
            if (
                cached_pane == pane_id
                and cached_seq == seq
                and term.exit_status is None
                and self.core.panes.terminals.get(term.terminal_id) is term
            ):
                return term
        found = self._input_terminal(client, pane_id)
        client.typing = (pane_id, seq, found) if found is not None and pane_id else None
        return found

    def _input_terminal(self, client: AttachedClient, pane_id: str | None) -> Terminal | None:
        host = self.core.panes
        popup = host.popups.terminal(pane_id)
        if popup is not None:
            return popup
        if pane_id is not None and is_popup_id(pane_id):
            return None  # keys for a popup that just ended: never into the pane under it
        loc: m.PaneLoc | None = None
        if pane_id is not None:
            with contextlib.suppress(m.ModelError):
                loc = host.session.pane(pane_id)
        if loc is None:
            shown = client.view_tab(host.session)
            if shown is None:
                return None
            ws, tab = shown
            loc = m.PaneLoc(ws, tab, tab.panes[tab.focused])
        return host.terminal(loc)


async def serve_client(
    registry: AttachRegistry, conn: Connection, request_id: str, params: Any
) -> None:
    """Run one attach stream until the client or the server goes away."""
    core = registry.core
    client = registry.new_client(conn, params if isinstance(params, dict) else {})
    sub, _info = core.bus.subscribe([_AnyLifecycle()])
    sub.wake = client.wake.set
    conn.add_close_callback(client.wake.set)
    stop_task = asyncio.get_running_loop().create_task(core.stopping.wait())
    stop_task.add_done_callback(lambda _t: client.wake.set())
    conn.stream_input(_ClientLines(registry, client).feed)
    started = AttachStarted(client_id=client.client_id, max_fps=MAX_FPS)
    conn.write(encode(protocol.success(request_id, msgspec.to_builtins(started))))
    if registry.foreground() is client:
        registry.sync_title(client)
    client.wake.set()  # the first frame: state and every visible row
    log.info("client attached", extra={"client_id": client.client_id})
    try:
        while not conn.closed:
            if not client.wake.is_set():
                client.idle = True  # output may now be pushed at once (push_output)
                try:
                    await client.wake.wait()
                finally:
                    client.idle = False
            if core.stopping.is_set() or conn.closed:
                break
            delay = client.last_frame + FRAME_S - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)  # coalesce: at most MAX_FPS frames per second
            client.wake.clear()
            core.bus.drain(sub)
            sub.dropped = 0
            if conn.closed:
                break
            client.last_frame = time.monotonic()
            lines = registry.frame_lines(client)
            if lines:
                conn.writelines(lines)
                if not await conn.drain():
                    break
        if core.stopping.is_set() and not conn.closed:
            conn.write(encode_line(Bye(reason=core.panes.stop_reason)))
            await conn.drain()
    finally:
        core.bus.unsubscribe(sub)
        registry.drop(client)
        stop_task.cancel()
        log.info("client detached", extra={"client_id": client.client_id})


class _ClientLines:
    """Splits the client's input into lines and handles each one as it arrives.

    A line that does not decode (see :func:`~herdr.api.attach_messages.decode_client`)
    is ignored; a line longer than :data:`MAX_CLIENT_LINE` drops the client.
    """

    def __init__(self, registry: AttachRegistry, client: AttachedClient) -> None:
        self.registry = registry
        self.client = client
        self.buffer = bytearray()

    def feed(self, data: bytes) -> None:
        buffer = self.buffer
        if not buffer and data.endswith(b"\n") and data.find(b"\n") == len(data) - 1:
            self._line(data)  # the usual case: one whole message (a keystroke)
            return
        buffer += data
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                break
            line = bytes(buffer[:end])
            del buffer[: end + 1]
            self._line(line)
            if self.client.conn.closed:
                return
        if len(buffer) > MAX_CLIENT_LINE:
            log.warning("attach client line too long; dropping the client")
            buffer.clear()
            self.client.conn.abort()

    def _line(self, line: bytes) -> None:
        msg = decode_client(line)
        if msg is not None:
            try:
                self.registry.handle_message(self.client, msg)
            except Exception:
                log.exception("attach message failed")


def _attach_params(params: Any) -> AttachParams:
    """``client.attach`` params (checked by ``attach_precheck``) as their struct."""
    try:
        return msgspec.convert(params, AttachParams)
    except msgspec.ValidationError:
        return AttachParams()


def _clamp(value: int | None, default: int, *, low: int = 0, high: int) -> int:
    """``value`` clamped to ``low..high``; ``default`` (also clamped) when absent."""
    return max(low, min(default if value is None else value, high))
