"""The live side of the session model: one PTY + emulator per pane.

``PaneHost`` owns the pure :class:`~herdr.runtime.model.Session` and the terminals
behind its panes. Handlers change the model first (it validates and raises before
changing anything), then ask the host to start or stop terminals and publish events.
Per-chunk work is one ``feed`` plus, only when someone listens, one output event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from herdr import __version__
from herdr.config.server_settings import ServerSettings, shell_argv
from herdr.runtime import model as m
from herdr.runtime.cwd import working_dir
from herdr.runtime.events import OUTPUT_CHECK_KIND, EventBus
from herdr.runtime.layout import Rect
from herdr.runtime.terminal_title import strip_title
from herdr.server import output_pacing
from herdr.server.agents import AgentRuntime
from herdr.server.bin_dir import ensure_shim_dir, with_bin_dir
from herdr.server.info import ServerInfo
from herdr.server.popups import PopupHost
from herdr.server.terminals import Terminal
from herdr.server.views import ViewTracker
from herdr.terminal import procfs
from herdr.terminal.emulator import Emulator
from herdr.terminal.pty import AsyncPty, ExitStatus, PtyClosed, PtyProcess, PtyWriteOverflow

if TYPE_CHECKING:
    from herdr.server.handoff_control import HandoffControl

__all__ = ["CLOSE_GRACE_S", "PaneHost", "Terminal", "herdr_bin_path"]

log = logging.getLogger("herdr.server.panes")

CLOSE_GRACE_S = 1.0
Record = dict[str, Any]


def herdr_bin_path() -> str:
    """What ``$HERDR_BIN_PATH`` points hook scripts at: the installed ``herdr``."""
    beside = Path(sys.executable).with_name("herdr")
    if beside.exists():
        return str(beside)
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "herdr" and argv0.exists():
        return str(argv0.resolve())
    return "herdr"


class PaneHost:
    """Session model + terminals + the events their changes produce."""

    def __init__(
        self,
        info: ServerInfo,
        bus: EventBus,
        settings: ServerSettings,
        env: Mapping[str, str],
        views: ViewTracker,
    ) -> None:
        self.info = info
        self.bus = bus
        self.settings = settings
        self.env = dict(env)
        self.session = m.Session(
            area=Rect(0, 0, settings.headless_cols, settings.headless_rows),
            terminal_id_factory=self._new_terminal_id,
        )
        self.terminals: dict[str, Terminal] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._bin_path = herdr_bin_path()
        self._bin_dir = ensure_shim_dir(info.state_dir)  # `herdr` on every pane's PATH
        self.agents = AgentRuntime(self, self.env, views)
        # the session's plugin popup, outside every tab
        self.popups = PopupHost(lambda: self.session.area, settings.scrollback_limit_bytes)
        # told of every close after its events (plugin overlays restore focus and zoom)
        self.close_listeners: list[Callable[[m.Closed], None]] = []
        # Live handoff (set by the app once it listens); what attach clients are told
        # when the server goes ("handoff": reconnect to the same socket).
        self.handoff: HandoffControl | None = None
        self.stop_reason = "server_stopping"

    # -- identity ----------------------------------------------------------------

    def _new_terminal_id(self) -> str:
        while True:
            terminal_id = f"term_{secrets.token_hex(6)}"
            if terminal_id not in self.terminals:
                return terminal_id

    def terminal(self, loc: m.PaneLoc) -> Terminal | None:
        return self.terminals.get(loc.pane.terminal_id)

    def resolve_pane(self, ref: str) -> str | None:
        try:
            return self.session.pane(ref).pane_id
        except m.ModelError:
            return None

    # -- events ------------------------------------------------------------------

    def emit(self, kind: str, data: Record) -> None:
        self.bus.publish(kind, data)

    def emit_focus_changes(self, before: tuple[str | None, str | None, str | None]) -> None:
        """``workspace_focused`` / ``tab_focused`` / ``pane_focused`` for what moved."""
        ws_id, tab_id, pane_id = self.session.focused_ids()
        if ws_id is not None and ws_id != before[0]:
            self.emit("workspace_focused", {"workspace_id": ws_id})
        if tab_id is not None and tab_id != before[1]:
            self.emit("tab_focused", {"tab_id": tab_id, "workspace_id": ws_id})
        if pane_id is not None and pane_id != before[2]:
            self.emit("pane_focused", {"pane_id": pane_id, "workspace_id": ws_id})

    def emit_layout(self, ws: m.Workspace, tab: m.Tab) -> None:
        # Always published (not only when wanted): it is logged for since_seq replay.
        self.emit("layout_updated", {"layout": self.session.pane_layout(ws, tab)})

    def emit_closed(self, closed: m.Closed) -> None:
        """Events for everything a close removed, innermost first, then stop terminals."""
        for pane_id in closed.pane_ids:
            self.emit("pane_closed", {"pane_id": pane_id, "workspace_id": _ws_of(pane_id)})
        for tab_id in closed.tab_ids:
            if closed.workspace_ids and _ws_of(tab_id) in closed.workspace_ids:
                continue  # a closed workspace reports its own end
            self.emit("tab_closed", {"tab_id": tab_id, "workspace_id": _ws_of(tab_id)})
        for ws_id in closed.workspace_ids:
            self.emit("workspace_closed", {"workspace_id": ws_id})
        self.stop_soon(closed.terminal_ids)
        for listener in self.close_listeners:
            try:
                listener(closed)
            except Exception:
                log.exception("close listener failed")

    # -- records -----------------------------------------------------------------

    def pane_record(self, loc: m.PaneLoc) -> Record:
        """PaneInfo from what is already known: reads no /proc and changes nothing (the
        cwd is the one `CwdSampler` recorded)."""
        term = self.terminal(loc)
        agent_status, extra = self.agents.pane_fields(loc.pane.terminal_id)
        revision = 0
        if term is not None:
            revision = term.revision
            if term.restore_error is not None:
                extra["restore_error"] = term.restore_error
            em = term.emulator
            title = em.title if not em.closed else ""
            if title:
                extra["terminal_title"] = title
                extra["terminal_title_stripped"] = strip_title(title)
            if not em.closed:
                offset, most, rows = em.scroll_state
                extra["scroll"] = {
                    "offset_from_bottom": offset,
                    "max_offset_from_bottom": most,
                    "viewport_rows": rows,
                }
        return self.session.pane_info(
            loc, agent_status=agent_status, revision=revision, extra=extra
        )

    def workspace_record(self, ws: m.Workspace) -> Record:
        record = self.session.workspace_info(ws, self.agents.status_of)
        tokens = self.agents.workspace_tokens(ws.id)
        if tokens:
            record["tokens"] = tokens
        return record

    def tab_record(self, ws: m.Workspace, tab: m.Tab) -> Record:
        return self.session.tab_info(ws, tab, self.agents.status_of)

    # -- terminals -----------------------------------------------------------------

    def working_dir(self, loc: m.PaneLoc, fallback: str | None = None) -> str | None:
        """Where the pane works now (`runtime.cwd.working_dir`: its foreground process's
        cwd, else its shell's, else the recorded one, else ``fallback``). Reads /proc."""
        term = self.terminal(loc)
        pid = term.shell_pid if term is not None and term.alive else None
        fd = term.pty.process.fd if term is not None and term.pty is not None else None
        live = procfs.live_cwds(pid, fd) if pid is not None else ()
        return working_dir(live, loc.pane.cwd, fallback, is_dir=os.path.isdir)

    def sample_dirs(self, loc: m.PaneLoc) -> tuple[str | None, str | None]:
        """(`working_dir`, the foreground process's own cwd) for `CwdSampler`, in one
        ``tcgetpgrp`` and one ``readlink`` while the shell is in front. Reads /proc."""
        term = self.terminal(loc)
        pid = term.shell_pid if term is not None and term.alive else None
        if pid is None or term is None:
            return self.working_dir(loc), None
        fd = term.pty.process.fd if term.pty is not None else None
        pgid = procfs.foreground_pgid(pid, fd)
        front = pgid if pgid is not None else pid
        foreground = procfs.process_cwd(front)

        def live() -> Iterator[str | None]:
            yield foreground
            if front != pid:
                yield procfs.process_cwd(pid)

        cwd = working_dir(live(), loc.pane.cwd, None, is_dir=os.path.isdir)
        return cwd, foreground

    def home(self) -> str:
        return self.env.get("HOME") or os.path.expanduser("~")

    def default_cwd(self) -> str:
        """``terminal.new_cwd``: follow the focused pane, else ``$HOME``."""
        if self.settings.new_cwd in ("follow", "current"):
            loc = self.session.focused_pane()
            if loc is not None:
                return self.working_dir(loc, self.home()) or self.home()
        return self.home()

    def pane_env(self, loc: m.PaneLoc) -> dict[str, str]:
        """Server env, then the caller's ``env``, then herdr's managed variables (§3.1)."""
        env = self.managed_env(loc.pane.env)
        env.update(
            HERDR_WORKSPACE_ID=loc.workspace_id,
            HERDR_TAB_ID=loc.tab_id,
            HERDR_PANE_ID=loc.pane_id,
        )
        return env

    def managed_env(self, given: Mapping[str, str]) -> dict[str, str]:
        """:meth:`pane_env` without the pane's identity: what a popup's process gets
        (spec §9: a popup has no pane id)."""
        env = {k: v for k, v in self.env.items() if not k.startswith("HERDR_")}
        for key in ("HERDR_SESSION", "HERDR_CONFIG_PATH", "HERDR_LOG"):
            if key in self.env:
                env[key] = self.env[key]
        env.setdefault("TERM", "xterm-256color")
        env["TERM"] = "xterm-256color"
        env.setdefault("COLORTERM", "truecolor")
        env.update(given)
        env["PATH"] = with_bin_dir(env.get("PATH"), self._bin_dir)
        # herdr is the terminal the pane's program talks to: the outer terminal's
        # TERM_PROGRAM (and its version) would be a lie inside a pane.
        env.update(
            TERM_PROGRAM="herdr",
            TERM_PROGRAM_VERSION=__version__,
            HERDR_SOCKET_PATH=str(self.info.socket_path),
            HERDR_BIN_PATH=self._bin_path,
            HERDR_ENV="1",
        )
        if self.info.session:
            env["HERDR_SESSION"] = self.info.session
        return env

    def _pane_size(self, loc: m.PaneLoc) -> tuple[int, int]:
        rect = self.session.geometry(loc.tab, zoomed=True).panes.get(loc.pane.key)
        if rect is None or rect.width <= 0 or rect.height <= 0:
            area = self.session.area
            return max(1, area.width), max(1, area.height)
        return max(1, int(rect.width)), max(1, int(rect.height))

    def start(self, loc: m.PaneLoc, *, preload: bytes | None = None) -> Terminal:
        """Spawn the pane's program in a fresh PTY sized to its slot. ``preload`` (saved
        pane history) is fed to the emulator first, so it lands in the scrollback above
        the program's own output."""
        cols, rows = self._pane_size(loc)
        emulator = Emulator(cols, rows, scrollback_bytes=self.settings.scrollback_limit_bytes)
        if preload:
            emulator.feed(preload)
        terminal_id = loc.pane.terminal_id
        term = Terminal(terminal_id, emulator, size=(cols, rows))
        argv = list(loc.pane.command) if loc.pane.command else shell_argv(self.settings, self.env)
        cwd = loc.pane.cwd or self.env.get("HOME") or "/"
        try:
            term.pty = AsyncPty.spawn(
                argv,
                partial(self._on_data, term),  # no Python frame of its own per chunk
                lambda status: self._on_exit(term, status),
                cols=cols,
                rows=rows,
                env=self.pane_env(loc),
                cwd=cwd,
            )
        except BaseException:
            emulator.close()
            raise
        emulator.set_on_reply(lambda data: self._reply(term, data))
        self.terminals[terminal_id] = term
        self.agents.attach(term)
        log.debug("pane started", extra={"pane_id": loc.pane_id, "pid": term.pty.pid})
        return term

    def adopt(
        self, terminal_id: str, emulator: Emulator, process: PtyProcess, size: tuple[int, int]
    ) -> Terminal:
        """Take over a running pane process (live handoff): same wiring as `start`."""
        term = Terminal(terminal_id, emulator, size=size)
        term.pty = AsyncPty(
            process,
            partial(self._on_data, term),  # no Python frame of its own per chunk
            lambda status: self._on_exit(term, status),
        )
        emulator.set_on_reply(lambda data: self._reply(term, data))
        self.terminals[terminal_id] = term
        self.agents.attach(term)
        return term

    def _reply(self, term: Terminal, data: bytes) -> None:
        with contextlib.suppress(PtyClosed, PtyWriteOverflow, OSError):
            term.write(data)

    def _on_data(self, term: Terminal, data: bytes) -> None:
        term.emulator.feed(data)
        self.agents.on_output(term)
        for callback in term.on_output:
            callback()
        bus = self.bus
        if bus.wants(OUTPUT_CHECK_KIND):
            self.check_output_soon(term)
        if bus.wants("pane_output_changed"):
            loc = self.session.find_terminal(term.terminal_id)
            if loc is not None:
                bus.publish(
                    "pane_output_changed",
                    {
                        "pane_id": loc.pane_id,
                        "workspace_id": loc.workspace_id,
                        "revision": term.revision,
                    },
                )

    def check_output_soon(self, term: Terminal) -> None:
        """New output for ``pane.output_matched``: checked now, or once after the gap."""
        wait = output_pacing.on_output(term.output_pace, time.monotonic())
        if wait == 0.0:
            self._check_output(term)
        elif wait is not None:
            asyncio.get_running_loop().call_later(wait, self._check_output, term)

    def _check_output(self, term: Terminal) -> None:
        started = time.monotonic()
        try:
            loc = self.session.find_terminal(term.terminal_id)
            if loc is not None and not term.closing and self.bus.wants(OUTPUT_CHECK_KIND):
                data = {"pane_id": loc.pane_id, "revision": term.revision}
                self.bus.publish(OUTPUT_CHECK_KIND, data)
        finally:
            output_pacing.checked(term.output_pace, started, time.monotonic())

    def _on_exit(self, term: Terminal, status: ExitStatus) -> None:
        term.exit_status = status
        for callback in term.on_output:
            callback()
        if term.closing:
            return
        self.agents.on_exit(term)
        loc = self.session.find_terminal(term.terminal_id)
        if loc is None:
            return
        log.debug("pane exited", extra={"pane_id": loc.pane_id, "status": str(status)})
        self.emit("pane_exited", {"pane_id": loc.pane_id, "workspace_id": loc.workspace_id})
        ws, tab = loc.workspace, loc.tab
        closed = self.session.close_pane(loc.pane_id)
        self.emit_closed(closed)
        if ws in self.session.workspaces and tab in ws.tabs:
            self.resize_tab(ws, tab)
            self.emit_layout(ws, tab)

    def resize_tab(self, ws: m.Workspace, tab: m.Tab) -> None:
        """Give every pane of ``tab`` the size of its slot (after splits, closes, zoom)."""
        geometry = self.session.geometry(tab, zoomed=True)
        for key, rect in geometry.panes.items():
            term = self.terminals.get(tab.panes[key].terminal_id)
            if term is None or term.exit_status is not None:
                continue
            size = (max(1, int(rect.width)), max(1, int(rect.height)))
            if size != term.size and size[0] > 0:
                term.size = size
                term.emulator.resize(*size)
                if term.pty is not None:
                    with contextlib.suppress(OSError):
                        term.pty.resize(*size)

    def stop_soon(self, terminal_ids: Iterable[str]) -> None:
        ids = list(terminal_ids)
        if not ids:
            return
        task = asyncio.get_running_loop().create_task(self.stop_terminals(ids))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def stop_terminals(self, terminal_ids: Iterable[str]) -> None:
        terms = [t for t in (self.terminals.pop(i, None) for i in terminal_ids) if t is not None]
        for term in terms:
            term.closing = True
            self.agents.detach(term.terminal_id)
        await asyncio.gather(*(self._stop(term) for term in terms), return_exceptions=True)

    async def _stop(self, term: Terminal) -> None:
        try:
            if term.pty is not None:
                await term.pty.aclose(CLOSE_GRACE_S)
        except Exception:
            log.exception("stopping terminal %s failed", term.terminal_id)
        finally:
            for callback in term.on_output:
                callback()
            term.emulator.close()

    async def shutdown(self) -> None:
        """End every pane process (``server stop``, SIGTERM)."""
        await self.agents.shutdown()
        await self.popups.shutdown()
        await self.stop_terminals(list(self.terminals))
        if self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)


def _ws_of(item_id: str) -> str:
    return item_id.split(":", 1)[0]
