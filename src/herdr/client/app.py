"""The interactive TUI client: stdin → keys → server; attach stream → frame → stdout.

One asyncio loop. Input bytes are parsed (:class:`InputParser`), mapped to actions by
the mode machine (:class:`KeyMachine`) and carried out: pane input and pastes go on the
attach connection (:mod:`herdr.client.connection`), commands (split, close, zoom, focus,
tabs…) go through the public socket methods on short connections of their own. The
attach stream brings the state document and the styled rows of visible panes (kept in
one :class:`PaneMirror` per pane); each batch builds a :class:`ViewState`
(:mod:`herdr.client.build_view`), composes a frame and writes only the rows that
changed. Server messages, actions and commands each go through a table of handlers.

Presentation is the client's: its active workspace and tab, sidebar, mode, selection.
The server hears the view (for seen/done) and the pane-area size.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from typing import Any, Literal, cast

from msgspec.structs import replace

from herdr import __version__
from herdr.api.attach_messages import (
    AttachParams,
    Bye,
    Input,
    Paste,
    PopupClosed,
    PopupOpened,
    Resize,
    Rows,
    Scroll,
    SplitHandle,
    State,
    StateDoc,
    TabLayout,
    View,
    WindowTitle,
    decode_server,
)
from herdr.api.attach_messages import Toast as ToastLine
from herdr.api.limits import MAX_SIZE_CELLS
from herdr.client.build_view import (
    Look,
    Overlay,
    Presentation,
    ViewBase,
    drag_ratio,
    focused_pane_id,
    pane_at,
    pane_views,
    sidebar_shown,
    split_at,
    tab_layout,
    view_base,
)
from herdr.client.compose import PaneChange, compose, patch
from herdr.client.focus_follow import follow_step
from herdr.client.mirror import PaneMirror, apply_rows
from herdr.client.render import HostModes, keyboard_mirror, render
from herdr.client.settings import UiSettings, load_ui_settings
from herdr.client.terminal import HostTerminal, write_all
from herdr.client.view import Frame, MachineSection, Panel, PaneView, ViewState, pane_area
from herdr.config.paths import config_file, state_dir

# The first frame needs only the modules above (the stream, the mirrors, the view,
# compose and render, the key machine). Copy mode, the palette, settings, navigator,
# prompts' commands, toasts, popups and the machine probe are imported where they are
# first used (tests/client/test_first_frame_imports.py keeps it so).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import asyncio
    from pathlib import Path

    from herdr.client import actions as a
    from herdr.client import copymode as cm
    from herdr.client import copysearch as cs
    from herdr.client import mouse_select as ms
    from herdr.client import navigator as nav
    from herdr.client.bindings import Bindings
    from herdr.client.connection import Connection
    from herdr.client.first_frame import Handoff
    from herdr.client.input import InputParser, Mouse
    from herdr.client.keynames import KeySpec
    from herdr.client.machines_probe import MachinesProbe
    from herdr.client.modes import KeyMachine
    from herdr.client.palette import Item
    from herdr.client.popup_box import PopupShown
    from herdr.client.predict import Mode, Predictor
    from herdr.client.prompt import Prompt, PromptKind
    from herdr.client.toast import Toast
else:  # imported on first use: the launcher's first frame is drawn before asyncio
    from herdr.client.lazy import lazy_module

    asyncio = lazy_module("asyncio", globals())

ESC_TIMEOUT_S = 0.03
MAX_READ_LINES = 10_000  # pane.read's cap: longer copies use the rows on screen
TO_BOTTOM = 10_000  # a scroll delta that always reaches the live bottom
MAX_TOAST_S = 60.0  # a toast never stays longer, whatever the server says
# xterm's title stack: save the host's window title before the first one we set, and
# give it back on clear and on exit. The empty OSC 2 first resets terminals without
# a stack (tmux) instead of leaving our title behind.
TITLE_SAVE = b"\x1b[22;2t"
TITLE_RESTORE = b"\x1b]2;\x1b\\\x1b[23;2t"

KEYS_AT_THE_LATEST_S = 0.5  # keys load after the first rows, or this long after attach
REATTACH_S = 10.0  # after a live handoff: how long the new server may take to answer
REATTACH_RETRY_S = 0.05
ExitReason = Literal[
    "detached", "empty", "server_stopped", "server_lost", "error", "switch", "machine"
]
Handler = Callable[[Any], None]


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
        on_machine: str | None = None,
        uploader: Callable[[bytes], str] | None = None,
        keys_after_first_frame: bool = False,
        protocol_checked: bool = False,
        early_frame: bool = False,
        predict: Mode = "never",
    ) -> None:
        self.config_path = config_path
        # remote attach: typed characters drawn before their echo (herdr.client.predict)
        self.predictor: Predictor | None = None
        if predict != "never":
            from herdr.client.predict import Predictor

            self.predictor = Predictor(predict)
        self._predict_timer: asyncio.TimerHandle | None = None
        self.on_machine = on_machine  # the saved machine this TUI shows (None: this one)
        # remote attach: copies a clipboard image to the other machine, returns its path
        self.uploader = uploader
        self.machine_sections: tuple[MachineSection, ...] = ()  # the other machines
        self.next_machine: str | None = None  # prefix+m's choice: see cycle_machine
        self._machines_probe: MachinesProbe | None = None
        self.switch_to: tuple[str, str, str] | None = None  # (session, kind, id): see run
        self.other_sessions: list[nav.OtherSession] = []  # the navigator's other sessions
        self.settings = settings or UiSettings()
        self.message = "; ".join(self.settings.warnings)[:200]
        self.config_banner = self._config_problems()  # shown until the file is fixed
        self.bindings: Bindings
        self.parser: InputParser
        # Until load_keys: the first frame reads only the machine's mode and prompt.
        self.machine = cast("KeyMachine", _BeforeKeys())
        self.help: tuple[tuple[str, str], ...] = ()
        self._look = _look(self.settings, self.help)
        self._keys_loaded = False
        if not keys_after_first_frame:
            self.load_keys()
        # early_frame: the launcher pinged the server just now; the first frame is drawn
        # on a blocking socket before asyncio is imported (herdr.client.first_frame)
        self._early_frame = early_frame and protocol_checked
        self._attached_at = 0.0  # when the early frame's attach was sent
        self.conn: Connection
        if self._early_frame:
            from herdr.client.first_frame import EarlyConnection

            self.conn = cast("Connection", EarlyConnection(socket_path))
        else:
            from herdr.client.connection import Connection

            self.conn = Connection(socket_path)
            self.conn.protocol_checked = protocol_checked  # the launcher's ping just now
        self.session_label = session_label
        self.host = HostTerminal(fd_in, fd_out, HostModes(mouse=self.settings.mouse))
        self.fd_in = fd_in
        self.fd_out = fd_out
        self.doc: StateDoc | None = None
        self.panes: dict[str, PaneMirror] = {}  # pane id → what the stream last told
        self.copy: cm.CopyState | None = None  # copy mode on the focused pane
        self.copied = ""  # the last text put on the host clipboard (tests read it)
        self._copy_paint: (
            tuple[tuple[str, ...], cm.CopyState, cs.Search | None, tuple[str, ...]] | None
        ) = None
        self.search: cs.Search | None = None  # copy mode's last search (/ ? n N)
        self.search_origin: tuple[int, int] | None = None  # the cursor when / was typed
        self.search_seq = 0  # answers to older keystrokes are dropped
        self.search_task: asyncio.Task[Any] | None = None  # n/N wait for the one before
        self.pending_close: tuple[str, dict[str, Any]] | None = None  # waits for y
        self.panel_kind: Literal["settings"] | None = None  # shown in help mode
        self.palette_plugins: tuple[Item, ...] = ()  # the palette's plugin actions
        self.worktree_list: tuple[dict[str, Any], ...] = ()  # the worktree picker's rows
        self.mouse_sel: ms.MouseSelection | None = None  # a mouse drag's selection
        self.last_click: tuple[str, tuple[int, int], float] | None = None  # double clicks
        self.help_offset = 0
        self.settings_choice = 0  # the settings panel's selected row
        self.settings_note = ""  # the settings panel's last change or refusal
        self.host_app_cursor = False  # DECCKM mirrored from the focused pane
        # (kitty flags, modifyOtherKeys level) as mirrored on the host from the focused
        # pane: the host then encodes keys as that program asked, and they pass unchanged
        self.host_keyboard = (0, 0)
        self.ws_id: str | None = None
        self.tab_id: str | None = None
        self.sidebar_visible = self.settings.sidebar_visible
        self.sidebar_narrow = False  # expanded on a terminal under 100 columns (prefix+b)
        self.selected_ws: str | None = None
        self.host_focused = True
        self.frame: Frame | None = None
        self.cols, self.rows = 80, 24
        self.sent_area: tuple[int, int] | None = None
        self.sent_view: tuple[str | None, str | None, bool] | None = None
        self.follow_seq: int | None = None  # the last script focus change seen
        self.prev_status: dict[str, str] = {}
        # pane id → when (a count, not a clock) it last turned blocked or done
        self.attention_order: dict[str, int] = {}
        self._attention_seq = 0
        self._draw_pending = False
        # (patch key, frame) of the last draw when a rows-only batch may patch it
        # (and the view base it was composed from: a state document that builds an equal
        # view keeps it, see _patch)
        self._patchable: tuple[tuple[object, ...], Frame, ViewBase] | None = None
        self._view_cache: tuple[StateDoc | None, Presentation, ViewBase] | None = None
        self._plain_bytes: dict[int, bool] = {}
        self._esc_timer: asyncio.TimerHandle | None = None
        self._done: asyncio.Future[ExitReason] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.exit_detail = ""
        self._drag: SplitHandle | None = None
        self._drag_busy = False
        self._drag_next: dict[str, Any] | None = None
        self.toast: Toast | None = None  # the toast on screen (notification.show)
        self._toast_timer: asyncio.TimerHandle | None = None
        self.window_title: str | None = None  # the title we set on the host terminal
        self.popup: PopupShown | None = None  # the session's plugin popup, over the layout
        self._popup_pasting = False  # a host paste into the popup spans several reads
        self._on_message: dict[type[Any], Handler] = {
            Rows: self.apply_rows,
            State: lambda msg: self.apply_state(msg.state),
            Bye: self._on_bye,
            ToastLine: self.show_toast,
            WindowTitle: self.set_window_title,
            PopupOpened: self.popup_opened,
            PopupClosed: self.popup_closed,
        }
        self._copy_effects: dict[type[Any], Callable[[cm.CopyState, Any], None]] = {}

    def load_keys(self) -> None:
        """Bindings, the key machine and the input parser: a third of the client's
        imports, so a TUI started by the launcher loads them after its first frame
        (``keys_after_first_frame``; stdin is read only from then on)."""
        if self._keys_loaded:
            return
        from herdr.client.bindings import help_entries, load_bindings
        from herdr.client.input import InputParser
        from herdr.client.modes import KeyMachine

        self._keys_loaded = True
        bindings, errors = load_bindings(self.settings.keys, remote=self.on_machine is not None)
        self.bindings = bindings
        if errors and not self.settings.warnings:
            self.message = "; ".join(str(e) for e in errors)[:200]
        self.machine = KeyMachine(bindings)
        self.help = help_entries(bindings)
        self._look = _look(self.settings, self.help)
        self.parser = InputParser()

    # -- lifecycle ----------------------------------------------------------------------

    def run(self) -> ExitReason:
        self.host.enter()
        try:
            early: Handoff | None = None
            if self._early_frame:
                drawn = self._draw_first()
                if isinstance(drawn, str):
                    self.exit_detail = drawn
                    return "server_lost"
                if drawn.finished is not None:  # e.g. the session was empty
                    drawn.sock.close()
                    return cast("ExitReason", drawn.finished)
                early = drawn
            return _run_loop(self._main(early))
        finally:
            if self.window_title is not None:
                with contextlib.suppress(OSError):
                    write_all(self.fd_out, TITLE_RESTORE)
            self.host.restore()

    def _attach_size(self) -> tuple[int, int]:
        """The pane-area size to attach with, for the terminal's size now."""
        self.cols, self.rows = self.host.size()
        area = pane_area(self._base().view)  # the chrome only: no pane rows needed
        return _cells(area.width, low=0), _cells(area.height, low=0)

    def _draw_first(self) -> Handoff | str:
        """The first frame before the loop: see :mod:`herdr.client.first_frame`."""
        from herdr.client.first_frame import draw_first

        size = self.sent_area = self._attach_size()
        self._attached_at = time.monotonic()
        return draw_first(self, AttachParams(cols=size[0], rows=size[1]))

    async def _main(self, early: Handoff | None = None) -> ExitReason:
        loop = asyncio.get_running_loop()
        self._done = loop.create_future()
        if early is None:
            size = self._attach_size()
            try:
                await self.conn.attach(AttachParams(cols=size[0], rows=size[1]))
            except (OSError, ConnectionError, ValueError) as exc:
                self.exit_detail = str(exc)
                return "server_lost"
            self.sent_area = size
            self.schedule_draw()
        else:
            from herdr.client.connection import Connection

            self.conn = Connection(self.conn.socket_path)
            await self.conn.adopt(early.sock, early.first, early.rest)
        loop.add_signal_handler(signal.SIGWINCH, self._on_winch)
        if early is not None and self.host.size() != (self.cols, self.rows):
            self._on_winch()  # resized while the first frame was drawn
        if self._keys_loaded or (early is not None and self.panes):
            self.conn.listen(self._on_stream_lines, self._on_stream_lost)
            self._after_first_frame()
        else:
            self.conn.listen(self._until_first_rows, self._on_stream_lost)
            # a session whose panes send no rows still gets its keys (counted from the
            # attach: the early frame may have waited for rows already)
            waited = time.monotonic() - self._attached_at if early is not None else 0.0
            loop.call_later(max(0.0, KEYS_AT_THE_LATEST_S - waited), self._after_first_frame)
        try:
            return await self._done
        finally:
            if self._machines_probe is not None:
                self._machines_probe.stop()
            loop.remove_reader(self.fd_in)
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signal.SIGWINCH)
            with contextlib.suppress(OSError):
                os.set_blocking(self.fd_in, True)
            self.conn.close()
            for task in list(self._tasks):
                task.cancel()

    def _until_first_rows(self, lines: list[bytes]) -> None:
        """The attach stream until the first frame that shows a pane's rows is drawn;
        then the keys load and the stream goes straight to :meth:`_on_stream_lines`."""
        self._on_stream_lines(lines)
        if self.panes and self._done is not None and not self._done.done():
            self.conn.listen(self._on_stream_lines, self._on_stream_lost)
            self._after_first_frame()

    def _after_first_frame(self) -> None:
        """Work that can wait for the first frame: the keys and stdin, the release-notes
        hint, the probe of the other machines (once)."""
        if self._machines_probe is not None or self._done is None or self._done.done():
            return
        self.load_keys()
        loop = asyncio.get_running_loop()
        os.set_blocking(self.fd_in, False)
        loop.add_reader(self.fd_in, self._on_stdin)
        self.release_notes_hint()
        from herdr.client.machines_probe import MachinesProbe

        self._machines_probe = MachinesProbe(loop, self.on_machine, self.set_machines)
        self.schedule_draw()

    def release_notes_hint(self) -> None:
        """After an upgrade, say once where the news is; the server records it as
        dismissed (``release_notes.dismiss``), so the next attach stays quiet."""
        from pathlib import Path

        from herdr.persist import dismissals

        seen = dismissals.load_optional(Path(state_dir(os.environ)))
        if seen is not None and __version__ in seen.release_notes:
            return
        hint = dismissals.release_hint(seen, __version__)
        if hint is not None and not self.message:
            self.notice(hint)
        self.spawn(self._quiet_call("release_notes.dismiss", {"version": __version__}))

    async def _quiet_call(self, method: str, params: dict[str, Any]) -> None:
        """A request whose answer does not matter (a stale or failed one changes nothing)."""
        with contextlib.suppress(OSError, ValueError):
            await self.conn.call(method, params)

    def switch_session(self, session: str, kind: str, target: str) -> None:
        """Leave this server for another session's (the launcher attaches there and
        shows ``target``): ends :meth:`run` with ``"switch"``."""
        self.switch_to = (session, kind, target)
        self.finish("switch")

    def set_machines(self, sections: tuple[MachineSection, ...]) -> None:
        """The background probe's latest read of the other machines (drawn if new)."""
        if sections != self.machine_sections:
            self.machine_sections = sections
            self.schedule_draw()

    def cycle_machine(self) -> None:
        """``prefix+m``: leave for the next saved machine's server (or back here); the
        launcher attaches there (``"machine"``)."""
        from herdr.client.machine_sections import next_machine
        from herdr.client.machines_probe import saved_names

        names = saved_names(os.environ)
        if not names:
            self.notice("no saved machines (herdr machine add NAME TARGET)")
            return
        self.next_machine = next_machine(self.on_machine, names)
        self.finish("machine")

    def finish(self, reason: ExitReason, detail: str = "") -> None:
        if self._done is not None and not self._done.done():
            self.exit_detail = detail
            self._done.set_result(reason)

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- server stream --------------------------------------------------------------------

    def _on_stream_lines(self, lines: list[bytes]) -> None:
        """Apply every complete line that arrived, then draw once, right away.

        One draw covers a burst of lines, and drawing here (not in a ``call_soon`` or
        a reader task) saves loop round trips on the keystroke → echo path. A message
        kind this client does not know (a newer server) is skipped.
        """
        done = self._done
        if done is None or done.done():
            return
        handlers = self._on_message
        # per pane, the rows that came (None: maybe all); None: not only rows and
        # state documents came
        changed: dict[str, list[int] | None] | None = {}
        documents = False
        try:
            for line in lines:
                if not line:
                    continue
                msg = decode_server(line)
                if msg is not None:
                    if changed is not None and isinstance(msg, Rows):
                        _note_rows(changed, msg, self.panes.get(msg.pane_id))
                    elif type(msg) is State:
                        documents = True
                    else:
                        changed = None
                    handlers[type(msg)](msg)
                    if done.done():
                        return
        except (OSError, ValueError) as exc:
            self.finish("server_lost", str(exc))
            return
        except Exception as exc:  # a bug in here must still end the client cleanly
            self.finish("error", f"{type(exc).__name__}: {exc}")
            return
        predictor = self.predictor
        if predictor is not None and (predictor.pending or predictor.stale):
            focused = self.focused_pane_id()
            moved = changed is None or focused in changed  # its own rows came
            drawn = bool(predictor.shown())
            predictor.observe(focused, self.panes.get(focused or ""), time.monotonic(), moved=moved)
            if (drawn or predictor.shown()) and changed is not None and focused in self.panes:
                changed[focused] = None  # guesses came or went: compare all its rows
            self._arm_predict_timer()
        if changed is not None and (changed or documents) and self._patch(changed):
            return
        self.draw()

    def show_toast(self, msg: ToastLine) -> None:
        """A ``notification.show`` for this client: a toast drawn for ``seconds``, or an
        OSC 9 notice (``terminal`` delivery); the bell for a sound, if the bell is on."""
        from herdr.client.toast import make_toast
        from herdr.runtime.client_text import notification_text

        if msg.delivery == "terminal":
            text = notification_text(f"{msg.title}: {msg.body}" if msg.body else msg.title, 320)
            if text is None:
                return
            self.write(f"\x1b]9;{text}\x1b\\".encode())
        else:
            toast = make_toast(msg.title, msg.body, msg.position, self.settings.toast_position)
            if toast is None:
                return
            self.toast = toast
            if self._toast_timer is not None:
                self._toast_timer.cancel()
            seconds = max(0.1, min(msg.seconds, MAX_TOAST_S))
            loop = asyncio.get_running_loop()
            self._toast_timer = loop.call_later(seconds, self._toast_expired)
        if msg.sound != "none" and self.settings.bell:
            self.write(b"\a")

    def _toast_expired(self) -> None:
        self._toast_timer = None
        self.toast = None
        self.schedule_draw()

    def set_window_title(self, msg: WindowTitle) -> None:
        """Set the host terminal's title (OSC 2), or give it back (``title`` null)."""
        from herdr.runtime.client_text import window_title_text

        title = window_title_text(msg.title) if msg.title is not None else None
        if title is not None:
            if self.window_title is None:
                self.write(TITLE_SAVE)
            self.window_title = title
            self.write(f"\x1b]2;{title}\x1b\\".encode())
        elif self.window_title is not None:
            self.window_title = None
            self.write(TITLE_RESTORE)

    def popup_opened(self, msg: PopupOpened) -> None:
        """A plugin popup is open (or its box moved): draw it, route keys to it."""
        from herdr.client.popup_box import PopupShown

        self.popup = PopupShown(msg.popup_id, msg.title, msg.rect)

    def popup_closed(self, msg: PopupClosed) -> None:
        """The popup ended: the next frame is the layout under it, diffed cell by cell."""
        if self.popup is not None and self.popup.popup_id == msg.popup_id:
            self.popup = None
        self.panes.pop(msg.popup_id, None)

    def _popup_input(self, data: bytes) -> bool:
        """Keys while a popup is open go to it (spec §9: session-modal); a lone Esc
        asks the server to close it. False: handle ``data`` as without a popup."""
        from herdr.client.popup_box import key_route, paste_part

        popup = self.popup
        if popup is None:
            return False
        pasted, self._popup_pasting = paste_part(data, self._popup_pasting)
        if pasted is not None:
            if pasted:
                self.conn.send(Paste(pane_id=popup.popup_id, data=pasted.decode("latin-1")))
            return True
        route = key_route(data)
        if route == "host":
            return False
        if route == "close":
            self.request("popup.close", {})
        elif route == "popup":
            self.conn.send(Input(pane_id=popup.popup_id, data=data.decode("latin-1")))
        return True

    def _on_stream_lost(self, detail: str) -> None:
        self.finish("server_lost", detail)

    def _on_bye(self, msg: Bye) -> None:
        """The server stops; after a live handoff a new one already listens on the same
        socket: reattach there (keys typed in the switch window are dropped)."""
        if msg.reason != "handoff":
            self.finish("server_stopped")
            return
        self.conn.close()
        self.spawn(self._reattach())

    async def _reattach(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + REATTACH_S
        cols, rows = self.sent_area or (0, 0)
        params = AttachParams(cols=cols, rows=rows, workspace_id=self.ws_id, tab_id=self.tab_id)
        while True:
            try:
                await self.conn.attach(params)
                break
            except (OSError, ConnectionError, ValueError) as exc:
                if loop.time() >= deadline:
                    self.finish("server_lost", f"no server after the handoff: {exc}")
                    return
                await asyncio.sleep(REATTACH_RETRY_S)
        self.conn.listen(self._on_stream_lines, self._on_stream_lost)
        self.notice("the server was handed off to a new process; reattached")

    def apply_rows(self, msg: Rows) -> None:
        pane_id = msg.pane_id
        before = self.panes.get(pane_id)
        mirror = self.panes[pane_id] = apply_rows(before, msg)
        if self.mouse_sel is not None and before is not None:
            from herdr.client import mouse_select as ms

            top_before = ms.top_row(before.size, before.scroll)
            if ms.cleared_by_rows(
                self.mouse_sel, pane_id, top_before, ms.top_row(mirror.size, mirror.scroll)
            ):
                self.mouse_sel = None
        if self.copy is not None and self.copy.pane_id == pane_id:
            from herdr.client import copymode as cm

            offset, total = mirror.scroll
            self.copy = cm.sync(self.copy, mirror.size, total, offset)

    def apply_state(self, doc: StateDoc) -> None:
        if self.doc is not None and self.doc.workspaces and not doc.workspaces:
            self.finish("empty")  # the last pane of the last workspace exited
        self.doc = doc
        self._follow_outside_focus(doc)
        self._resolve_view()
        live = {p["pane_id"] for p in doc.panes}
        popup_id = self.popup.popup_id if self.popup is not None else None
        for pane_id in list(self.panes):
            if pane_id not in live and pane_id != popup_id:
                del self.panes[pane_id]
        self._attention(doc)
        if self.copy is not None and self.copy.pane_id != self.focused_pane_id():
            self.leave_copy()  # its pane closed, or the focus moved away
        self.sync_server()

    def _attention(self, doc: StateDoc) -> None:
        ring = False
        notes: list[str] = []
        for pane in doc.panes:
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

    def _follow_outside_focus(self, doc: StateDoc) -> None:
        """A script's ``tab.focus`` / ``agent.focus`` moves this client's view too."""
        self.follow_seq, adopt = follow_step(self.follow_seq, doc.follow)
        if adopt is None:
            return
        ws_id, tab_id = adopt
        if any(t["tab_id"] == tab_id and t["workspace_id"] == ws_id for t in doc.tabs):
            self.ws_id, self.tab_id = ws_id, tab_id
            self.selected_ws = ws_id
            self.schedule_draw()

    def _resolve_view(self) -> None:
        doc = self.doc
        if doc is None:
            return
        ids = [w["workspace_id"] for w in doc.workspaces]
        if self.ws_id not in ids:
            focused = doc.focused[0]
            self.ws_id = focused if focused in ids else (ids[0] if ids else None)
            self.tab_id = None
        tabs = [t["tab_id"] for t in doc.tabs if t["workspace_id"] == self.ws_id]
        if self.tab_id not in tabs:
            ws = next((w for w in doc.workspaces if w["workspace_id"] == self.ws_id), None)
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
                View(workspace_id=self.ws_id, tab_id=self.tab_id, focused=self.host_focused)
            )
        area = pane_area(self._base().view)  # the chrome only: no pane rows needed
        size = (_cells(area.width), _cells(area.height))
        if size != self.sent_area:
            self.sent_area = size
            self.conn.send(Resize(cols=size[0], rows=size[1]))

    # -- view -------------------------------------------------------------------------------

    def _tab_layout(self) -> TabLayout | None:
        return tab_layout(self.doc, self.tab_id)

    def focused_pane_id(self) -> str | None:
        return focused_pane_id(self.doc, self.tab_id)

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
        base = self._base()
        if not base.slots:
            return base.view, base.view.panes
        overlays: dict[str, Overlay] = {}
        copy = self.copy
        mirror = self.panes.get(copy.pane_id) if copy is not None else None
        if copy is not None and mirror is not None:
            overlays[copy.pane_id] = (self._painted(mirror.rows, copy), copy.cursor())
        sel = self.mouse_sel
        selected = self.panes.get(sel.pane_id) if sel is not None else None
        if sel is not None and selected is not None and sel.pane_id not in overlays:
            from herdr.client import mouse_select as ms

            top = ms.top_row(selected.size, selected.scroll)
            rows = ms.paint(selected.rows, top, selected.size[0], sel)
            overlays[sel.pane_id] = (rows, selected.cursor)
        predictor = self.predictor
        if predictor is not None and predictor.pending:
            focused = self.focused_pane_id()
            guessed = predictor.overlay(focused, self.panes.get(focused or ""))
            if focused and guessed is not None and focused not in overlays:
                overlays[focused] = guessed
        return base.view, pane_views(base, self.panes, overlays)

    def _base(self) -> ViewBase:
        """The view base of the current document and presentation (cached). A new
        document that builds an equal base (a pane's revision moved, nothing shown
        changed) keeps the old base object, so the frame built from it can be kept."""
        presentation = self._presentation()
        cached = self._view_cache
        if cached is None or cached[0] is not self.doc or cached[1] != presentation:
            base = view_base(self.doc, presentation)
            if cached is not None and cached[2] == base:
                base = cached[2]
            cached = self._view_cache = (self.doc, presentation, base)
        return cached[2]

    def _presentation(self) -> Presentation:
        copy = self.copy
        return Presentation(
            self.cols,
            self.rows,
            self._look,
            sidebar_shown(self.cols, self.sidebar_visible, self.sidebar_narrow),
            self.machine.mode,
            self.message,
            self.machine.prompt,
            self.ws_id,
            self.tab_id,
            self.selected_ws,
            self._copy_status(copy),
            self._panel(),
            self.help_offset,
            self.session_label,
            self.machine_sections,
        )

    def _panel(self) -> Panel | None:
        prompt = self.machine.prompt
        if prompt is not None and prompt.kind == "goto":
            from herdr.client import more_commands as more

            return more.goto_panel(self, prompt)
        if prompt is not None and prompt.kind == "palette":
            from herdr.client import palette_commands as palette

            return palette.panel(self, prompt)
        if prompt is not None and prompt.kind == "worktree":
            from herdr.client import worktrees

            return worktrees.panel(self, prompt)
        if self.panel_kind == "settings" and self.machine.mode == "help":
            from herdr.client import more_commands as more

            return more.settings_panel(self)
        return None

    def scroll_help(self, step: int) -> None:
        if self.panel_kind == "settings":
            from herdr.client import settings_view

            settings_view.move(self, step)
            return
        self.help_offset = min(max(0, self.help_offset + step), max(0, len(self.help) - 1))
        self.schedule_draw()

    def _copy_status(self, copy: cm.CopyState | None) -> str:
        if copy is None:
            return ""
        search = self.search
        return f"{copy.position()} {search.status()}" if search is not None else copy.position()

    def _painted(self, rows: tuple[str, ...], copy: cm.CopyState) -> tuple[str, ...]:
        """The copy pane's rows with search matches, selection and cursor (kept while
        none of them changed)."""
        cached = self._copy_paint
        search = self.search
        if cached is not None and cached[0] is rows and cached[1] == copy and cached[2] is search:
            return cached[3]
        from herdr.client import copymode as cm
        from herdr.client import copysearch as cs

        painted = cm.paint(cs.paint(rows, copy.top, copy.width, search), copy)
        self._copy_paint = (rows, copy, search, painted)
        return painted

    # -- drawing ----------------------------------------------------------------------------

    def _patch_key(self) -> tuple[object, ...] | None:
        """Everything but pane rows a frame depends on, while nothing is drawn over the
        panes (no prompt, copy mode, selection, popup, toast, banner, help or panel);
        ``None`` otherwise. While it is unchanged, rows-only batches take the
        :meth:`_patch` path: everything :meth:`_presentation` reads is in here."""
        machine = self.machine
        if (
            machine.mode != "terminal"
            or machine.prompt is not None
            or self.copy is not None
            or self.mouse_sel is not None
            or self.popup is not None
            or self.toast is not None
            or self.config_banner
        ):
            return None
        return (
            self.doc,
            self.cols,
            self.rows,
            self._look,
            self.sidebar_visible,
            self.sidebar_narrow,
            self.message,
            self.ws_id,
            self.tab_id,
            self.selected_ws,
            self.help_offset,
            self.session_label,
            self.machine_sections,
            self.panel_kind,
        )

    def _patch(self, changed: dict[str, list[int] | None]) -> bool:
        """Draw a batch that brought only pane rows by recomposing just the frame rows
        they show (:func:`compose.patch`): typing's echo skips building the view. False
        when the last frame or the view does not allow it (then :meth:`draw`).

        ``changed``: per pane, the rows its messages replaced (``None``: maybe all);
        its other rows are the strings the last frame was composed from, as every
        batch is drawn before the next one is applied."""
        last = self._patchable
        if last is None or self._draw_pending or self.frame is not last[1]:
            return False
        key = last[0]
        if key != (now := self._patch_key()):
            # only the document changed, and it builds the view the frame was drawn from
            if now is None or key[1:] != now[1:] or self._base() is not last[2]:
                return False
            key = now
        panes = self.panes
        changes: list[PaneChange] = []
        predictor = self.predictor
        for pane_id, ys in changed.items():
            mirror = panes.get(pane_id)
            if mirror is None:
                return False  # its pane was closed by a document in the batch
            guessed = predictor.overlay(pane_id, mirror) if predictor is not None else None
            if guessed is not None:  # the focused pane, with typed keys not echoed yet
                changes.append((pane_id, guessed[0], guessed[1], ys))
            else:
                changes.append((pane_id, mirror.rows, mirror.cursor, ys))
        try:
            done = patch(last[1], changes)
            if done is None:
                return False
            frame, dirty = done
            self._host_modes(self.focused_pane_id())
            data = render(self.frame, frame, rows=dirty)
            self.frame = frame
            self._patchable = (key, frame, last[2])
            if data:
                self.write(data)
        except Exception as exc:  # a bug must end the client cleanly, terminal restored
            self.finish("error", f"drawing failed: {type(exc).__name__}: {exc}")
        return True

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
        popup = self.popup  # keys go to the popup: mirror its modes on the host
        mirror = self._host_modes(popup.popup_id if popup is not None else self.focused_pane_id())
        key = self._patch_key()
        frame = compose(*self.view_parts())
        if self.config_banner:
            from herdr.client.banner import overlay_banner

            frame = overlay_banner(frame, self.config_banner)
        if popup is not None:
            from herdr.client.popup_box import overlay as popup_overlay

            frame = popup_overlay(frame, popup, mirror, "cyan")
        if self.toast is not None:
            from herdr.client.toast import overlay as toast_overlay

            frame = toast_overlay(frame, self.toast)
        data = render(self.frame, frame, force=force)
        self.frame = frame
        base = self._view_cache[2] if self._view_cache is not None else None
        self._patchable = None if key is None or base is None else (key, frame, base)
        if data:
            self.write(data)

    def _host_modes(self, focused: str | None) -> PaneMirror | None:
        """Mirror the focused pane's cursor-key and keyboard modes on the host (arrows
        then arrive as its program expects: CSI A vs SS3 A); returns its mirror."""
        mirror = self.panes.get(focused) if focused else None
        app_cursor = mirror.app_cursor if mirror is not None else False
        if app_cursor != self.host_app_cursor:
            self.host_app_cursor = app_cursor
            self.write(b"\x1b[?1h" if app_cursor else b"\x1b[?1l")
        keyboard = mirror.keyboard if mirror is not None else (0, 0)
        if keyboard != self.host_keyboard:
            self.write(keyboard_mirror(self.host_keyboard, keyboard))
            self.host_keyboard = keyboard
        return mirror

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
        predictor = self.predictor
        if self.popup is not None and not self.parser.pending and self._popup_input(data):
            if predictor is not None and predictor.interrupt():
                self.schedule_draw()
            return
        if self.machine.mode == "terminal" and not self.parser.pending and self._plain(data):
            # typing: the bytes go to the focused pane as they are (same as the parser
            # and the mode machine would decide, minus their cost on every key)
            if self.mouse_sel is not None:
                self.typed()
            focused = self.focused_pane_id()
            self.conn.send_input(focused, data)
            if predictor is not None:
                self._guess(focused, data)
            return
        if predictor is not None and predictor.interrupt():
            self.schedule_draw()
        self.handle_events(self.parser.feed(data))
        if self.parser.pending:
            loop = asyncio.get_running_loop()
            self._esc_timer = loop.call_later(ESC_TIMEOUT_S, self._flush_input)

    def _guess(self, focused: str | None, data: bytes) -> None:
        """``data`` was typed into ``focused``: draw what the predictor guesses its
        echo is, now (the echo is a round trip away)."""
        predictor = self.predictor
        if predictor is None:
            return
        mirror = self.panes.get(focused or "")
        if predictor.typed(focused, mirror, data, time.monotonic()) and not (
            focused is not None and self._patch({focused: None})
        ):
            self.draw()
        self._arm_predict_timer()

    def _arm_predict_timer(self) -> None:
        """Wake when the oldest guess expires: a key whose echo never comes (nothing
        is sent then) must not stay drawn."""
        predictor = self.predictor
        deadline = predictor.deadline() if predictor is not None else None
        if deadline is None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, deadline - time.monotonic()) + 0.001
        timer = self._predict_timer
        if timer is not None:
            if timer.when() <= loop.time() + delay:
                return
            timer.cancel()  # the expiry got shorter (a faster round trip): wake sooner
        self._predict_timer = loop.call_later(delay, self._predict_due)

    def _predict_due(self) -> None:
        self._predict_timer = None
        predictor = self.predictor
        if predictor is None or self._done is None or self._done.done():
            return
        focused = self.focused_pane_id()
        mirror = self.panes.get(focused or "")
        if predictor.observe(focused, mirror, time.monotonic(), moved=False) and not (
            focused is not None and focused in self.panes and self._patch({focused: None})
        ):
            self.draw()
        self._arm_predict_timer()

    def typed(self) -> None:
        """Keys or a paste go to the focused pane: its mouse selection is cleared."""
        if self.mouse_sel is None:
            return
        from herdr.client import mouse_select as ms

        if ms.cleared_by_input(self.mouse_sel, self.focused_pane_id()):
            self.mouse_sel = None
            self.schedule_draw()

    def _plain(self, data: bytes) -> bool:
        """Whether every byte of ``data`` is a key that terminal mode just sends on."""
        plain = self._plain_bytes
        if len(data) == 1 and plain.get(data[0]):
            return True
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
        if byte == 0x1B or byte >= 0x80:
            return False  # ESC (sequences) and UTF-8 pieces: the full path
        from herdr.client import actions as a
        from herdr.client.input import InputParser
        from herdr.client.modes import KeyMachine

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
        from herdr.client import actions as a

        pending = bytearray()
        for event in events:
            for action in self.machine.handle(event):
                if type(action) is a.SendBytes:
                    pending += action.data
                    continue
                if pending:
                    self.do(a.SendBytes(bytes(pending)))
                    pending.clear()
                self.do(action)
        if pending:
            self.do(a.SendBytes(bytes(pending)))

    # -- actions ----------------------------------------------------------------------------

    def do(self, action: a.Action) -> None:
        from herdr.client.commands import ACTIONS

        handler = ACTIONS.get(type(action))
        if handler is None:
            self.notice("not available yet")
        else:
            handler(self, action)

    def command(self, name: str) -> None:
        from herdr.client.commands import COMMANDS

        handler = COMMANDS.get(name)
        if handler is None:
            self.unavailable(name)
        else:
            handler(self)

    def unavailable(self, name: str) -> None:
        self.notice(f"{name.replace('_', ' ')}: not available yet")

    def notice(self, text: str) -> None:
        self.message = text
        self.schedule_draw()

    # -- copy mode ---------------------------------------------------------------------------

    def start_copy(self) -> None:
        """Copy mode on the focused pane (``prefix+[``), where its viewport is now."""
        pane_id = self.focused_pane_id()
        mirror = self.panes.get(pane_id) if pane_id is not None else None
        if pane_id is None or mirror is None:
            for action in self.machine.set_mode("terminal"):
                self.do(action)
            self.notice("copy mode: no pane")
            return
        offset, total = mirror.scroll
        cursor = mirror.cursor if not offset else None
        from herdr.client import copymode as cm

        self.copy = cm.enter(pane_id, mirror.size, total, offset, cursor)
        if self.machine.mode != "copy":
            for action in self.machine.set_mode("copy"):
                self.do(action)
        self.schedule_draw()

    def _rows_of(self, pane_id: str) -> tuple[str, ...]:
        mirror = self.panes.get(pane_id)
        return mirror.rows if mirror is not None else ()

    def copy_key(self, spec: KeySpec) -> None:
        copy = self.copy
        if copy is None:
            self.leave_copy()
            return
        from herdr.client import copymode as cm

        self.copy, effects = cm.handle_key(copy, spec, self._rows_of(copy.pane_id))
        self.copy_effects(copy, effects)

    def copy_effects(self, before: cm.CopyState, effects: list[cm.Effect]) -> None:
        """Carry out what a copy-mode key asked for (scroll, copy, leave)."""
        if not self._copy_effects:
            self._copy_effects = self._copy_effect_table()
        for effect in effects:
            self._copy_effects[type(effect)](before, effect)
        self.schedule_draw()

    def _copy_effect_table(self) -> dict[type[Any], Callable[[cm.CopyState, Any], None]]:
        from herdr.client import copymode as cm
        from herdr.client import searching

        return {
            cm.Scroll: lambda before, e: self.conn.send(
                Scroll(pane_id=before.pane_id, delta=e.delta)
            ),
            cm.Copy: lambda before, e: self.copy_selection(before, e.selection),
            cm.Leave: lambda _before, _e: self.leave_copy(),
            cm.StartSearch: lambda _before, e: searching.start(self, e.direction),
            cm.RepeatSearch: lambda _before, e: searching.repeat(self, e.reverse),
        }

    def leave_copy(self) -> None:
        """Back to terminal mode; the pane returns to its live bottom."""
        copy, self.copy = self.copy, None
        self._copy_paint = None
        self.search = None
        self.search_origin = None
        self.search_seq += 1
        prompt = self.machine.prompt
        if prompt is not None and prompt.kind == "search":
            for action in self.machine.set_mode("terminal"):
                self.do(action)
        if copy is not None:
            self.conn.send(Scroll(pane_id=copy.pane_id, delta=TO_BOTTOM))
        if self.machine.mode == "copy":
            for action in self.machine.set_mode("terminal"):
                self.do(action)
        self.schedule_draw()

    def copy_selection(self, state: cm.CopyState, sel: cm.Selection) -> None:
        """Copy from the rows on screen when they hold the selection, else ask the server
        for the whole scrollback (``pane.read``)."""
        from herdr.client import copymode as cm

        rows = self._rows_of(state.pane_id)
        if state.top <= sel.start_line and sel.end_line < state.top + len(rows):
            self.put_clipboard(cm.selected_text(rows, state.top, sel), sel.lines)
            return
        self.spawn(self._copy_from_server(state, sel))

    async def _copy_from_server(self, state: cm.CopyState, sel: cm.Selection) -> None:
        from herdr.client import copymode as cm

        rows = self._rows_of(state.pane_id)
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
        from herdr.client import copymode as cm

        self.write(cm.osc52(text))
        self.copied = text
        done = f"copied {lines} line{'s' if lines != 1 else ''}"
        self.notice(f"{done} ({note})" if note else done)

    def copy_wheel(self, pane_id: str, up: bool) -> bool:
        """The wheel over a pane that did not ask for mouse events: copy mode, tmux-like
        (wheel up enters it on the focused pane; back at the bottom it ends)."""
        from herdr.client import copymode as cm

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
        doc = self.doc or StateDoc()
        target: str | None
        rec: dict[str, Any]
        if kind == "workspace":
            target = self.ws_id
            rec = next((w for w in doc.workspaces if w["workspace_id"] == target), {})
        elif kind == "tab":
            target = self.tab_id
            rec = next((t for t in doc.tabs if t["tab_id"] == target), {})
        else:
            target = self.focused_pane_id()
            rec = next((p for p in doc.panes if p["pane_id"] == target), {})
        current = rec.get("label")
        if target is None:
            self.notice(f"rename {kind}: nothing to rename")
            return
        from herdr.client.prompt import open_prompt

        prompt = open_prompt(kind, target, current if isinstance(current, str) else "")
        for action in self.machine.open_prompt(prompt):
            self.do(action)

    def prompt_changed(self, prompt: Prompt) -> None:
        if prompt.kind == "search":
            from herdr.client import searching

            searching.typed(self, prompt)
        elif prompt.kind == "goto":
            from herdr.client import more_commands as more

            more.goto_changed(self, prompt)
        elif prompt.kind == "palette":
            from herdr.client import palette_commands as palette

            palette.changed(self, prompt)
        elif prompt.kind == "worktree":
            from herdr.client import worktrees

            worktrees.changed(self, prompt)
        self.schedule_draw()

    def cancel_prompt(self, prompt: Prompt) -> None:
        from herdr.client import closing, searching

        if prompt.kind == "search":
            searching.cancel(self)
        elif prompt.kind == "confirm":
            closing.kept(self)
        self.schedule_draw()

    def submit_prompt(self, prompt: Prompt) -> None:
        """Send the typed name; the server's answer (or error) comes back as a notice or
        through the state stream."""
        from herdr.client import closing, command_line, searching
        from herdr.client import more_commands as more
        from herdr.client import palette_commands as palette

        if prompt.kind == "search":
            searching.submit(self, prompt)
            return
        if prompt.kind == "confirm":
            closing.confirmed(self)
            return
        if prompt.kind == "goto":
            more.goto_submit(self, prompt)
            return
        if prompt.kind == "palette":
            palette.submit(self, prompt)
            return
        if prompt.kind == "worktree":
            from herdr.client import worktrees

            worktrees.submit(self, prompt)
            return
        if prompt.kind == "command":
            command_line.run(self, prompt.text)
            return
        method = f"{prompt.kind}.rename"
        key = {"workspace": "workspace_id", "tab": "tab_id", "pane": "pane_id"}[prompt.kind]
        self.request(method, {key: prompt.target, "label": prompt.text})

    def reload_config(self) -> None:
        self.spawn(self._reload_config())

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
        path = self.config_file()
        notes.extend(self.reload_settings(load_ui_settings(path)))
        self.config_banner = self._config_problems()
        from herdr.config.health import read_health

        health = read_health(path=str(path))
        if health.status == "error":  # say what failed first, not "reloaded"
            head = f"config reload failed: {health.lines()[0]}"
        elif health.status == "warning":
            head = f"config reloaded with warnings: {health.lines()[0]}"
        else:
            head = "config reloaded" if not isinstance(error, dict) else "client config reloaded"
        self.notice("; ".join([head, *notes])[:400])
        self.schedule_draw()

    def _config_problems(self) -> tuple[str, ...]:
        """Every problem of the config file, ``file:line:col: …`` (for the banner)."""
        path = self.config_path or config_file(os.environ)  # a str: no pathlib yet
        if not os.path.exists(path):
            return ()  # no file, no problems (the checker is not even imported)
        from herdr.config.health import read_health

        return tuple(read_health(path=str(path)).lines())

    def config_file(self) -> Path:
        from pathlib import Path

        return self.config_path or Path(config_file(os.environ))

    def reload_settings(self, settings: UiSettings) -> list[str]:
        """Apply re-read ``[ui]`` settings and key bindings; returns the warnings.

        The sidebar's shown/hidden state and mouse capture stay as they are (start-up
        choices the user may have toggled since)."""
        settings.sidebar_visible = self.settings.sidebar_visible
        settings.mouse = self.settings.mouse
        self.settings = settings
        from herdr.client.bindings import help_entries, load_bindings

        bindings, errors = load_bindings(settings.keys, remote=self.on_machine is not None)
        self.bindings = bindings
        self.machine.bindings = bindings
        self.help = help_entries(bindings)
        self._look = _look(settings, self.help)
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
        return [w["workspace_id"] for w in self.doc.workspaces] if self.doc else []

    def tab_ids(self) -> list[str]:
        tabs = self.doc.tabs if self.doc else []
        return [t["tab_id"] for t in tabs if t["workspace_id"] == self.ws_id]

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
        panes = self.doc.panes if self.doc else []
        rec = next((p for p in panes if p["pane_id"] == pane_id), None)
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
        ids = [p[0] for p in layout.panes]
        current = layout.focused_pane_id
        if len(ids) > 1 and current in ids:
            self.focus_pane(ids[(ids.index(current) + step) % len(ids)])

    # -- mouse ------------------------------------------------------------------------------

    def mouse(self, event: Mouse) -> None:
        from herdr.client.input import encode_mouse_sgr

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
            mirror = self.panes.get(pane_id)
            wants_mouse = mirror is not None and mirror.mouse
            if event.button == "right" and not self._right_click_to_pane(pane_id):
                wants_mouse = False  # herdr handles right clicks (pane.input.set)
            if wants_mouse and event.kind in ("press", "release", "wheel"):
                if event.kind == "press" and pane_id != self.focused_pane_id():
                    self.request("pane.focus", {"pane_id": pane_id})
                data = encode_mouse_sgr(event, local_x, local_y).decode("latin-1")
                self.conn.send(Input(pane_id=pane_id, data=data))
                return
        from herdr.client import mouse_copy
        from herdr.client.wheel import sends_arrows, wheel_keys

        if mouse_copy.handle(self, event, pane_hit, time.monotonic()):
            return
        if event.kind == "wheel" and pane_hit is not None:
            wheel = event.button in ("wheel_up", "wheel_down")
            shown = self.panes.get(pane_hit[0])
            if wheel and shown is not None and sends_arrows(shown.alt, shown.mouse):
                up = event.button == "wheel_up"  # less/man: no scrollback, arrows scroll
                keys = wheel_keys(up, self.settings.scroll_lines, app_cursor=shown.app_cursor)
                self.conn.send(Input(pane_id=pane_hit[0], data=keys))
                return
            if wheel and self.copy_wheel(pane_hit[0], event.button == "wheel_up"):
                return
            if wheel:
                lines = self.settings.scroll_lines
                delta = -lines if event.button == "wheel_up" else lines
                self.conn.send(Scroll(pane_id=pane_hit[0], delta=delta))
            return
        if event.kind == "press" and event.button == "right" and pane_hit is not None:
            if pane_hit[0] != self.focused_pane_id():  # herdr's right click: focus the pane
                self.request("pane.focus", {"pane_id": pane_hit[0]})
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

    def _right_click_to_pane(self, pane_id: str) -> bool:
        """Whether right clicks in ``pane_id`` go to its program (``pane.input.set``
        ``right_click: pane``); by default herdr keeps them."""
        doc = self.doc
        if doc is None:
            return False
        rec = next((r for r in doc.panes if r.get("pane_id") == pane_id), None)
        return rec is not None and rec.get("right_click") == "pane"

    def _split_at(self, x: int, y: int) -> SplitHandle | None:
        """The split whose divider is at frame cell (x, y), for a border drag."""
        layout = self._tab_layout()
        if self.frame is None or layout is None:
            return None
        return split_at(layout, self.frame.pane_area, x, y)

    def _drag_to(self, x: int, y: int) -> None:
        frame = self.frame
        if frame is None or self._drag is None or self.tab_id is None:
            return
        ratio = drag_ratio(self._drag, frame.pane_area, x, y)
        params = {"path": self._drag[0], "ratio": ratio, "tab_id": self.tab_id}
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
        layout = self._tab_layout()
        if self.frame is None or layout is None:
            return None
        return pane_at(layout, self.frame.pane_area, x, y)


class _BeforeKeys:
    """What the first frame reads of the key machine before it is imported."""

    mode = "terminal"
    prompt = None


def _look(settings: UiSettings, help_lines: tuple[tuple[str, str], ...]) -> Look:
    return Look(
        sidebar_width=settings.sidebar_width,
        sidebar_min_width=settings.sidebar_min_width,
        sidebar_max_width=settings.sidebar_max_width,
        sidebar_collapsed_mode=settings.sidebar_collapsed_mode,
        tab_bar_position=settings.tab_bar_position,
        hide_tab_bar_when_single_tab=settings.hide_tab_bar_when_single_tab,
        status_indicators=settings.status_indicators,
        agent_panel_sort=settings.agent_panel_sort,
        help=help_lines,
    )


def _run_loop(main: Any) -> ExitReason:
    """``asyncio.run``, on uvloop when it imports (a dependency; asyncio otherwise).

    The loop's imports come after the first frame (``early_frame``) and are made with
    the collector paused and their objects frozen, as the first frame's are."""
    from herdr.cli.quiet_gc import no_gc

    try:
        with no_gc():
            import uvloop
    except ImportError:
        result: ExitReason = asyncio.run(main)
        return result
    fast: ExitReason = uvloop.run(main)
    return fast


def _note_rows(changed: dict[str, list[int] | None], msg: Rows, before: PaneMirror | None) -> None:
    """Add the pane rows ``msg`` replaces to ``changed`` (``None``: maybe all of them: a
    full update, a new pane or a new height)."""
    pane_id = msg.pane_id
    ys = changed.get(pane_id, [])
    if ys is None or msg.full or before is None or before.size[1] != msg.size[1]:
        changed[pane_id] = None
        return
    ys += [y for y, _ in msg.rows]
    changed[pane_id] = ys


def _cells(count: int, *, low: int = 1) -> int:
    """A size the server accepts (a larger terminal shows the area in its top-left)."""
    return max(low, min(count, MAX_SIZE_CELLS))
