"""The session's plugin popup: one PTY + emulator outside every tab layout.

Spec §9: a popup is session-modal and a singleton (a second one while it is open is
``ui_busy``), has no pane id, stays out of ``pane.*``/agent APIs and pane events, and
ends with its process or ``popup.close``. Attached TUIs learn of it from the attach
stream (``popup_opened`` with its box and id, its rows like a visible pane's,
``popup_closed``) and send its keys there; :mod:`herdr.server.attach` reads
:attr:`PopupHost.current` and hangs :meth:`PopupHost.on_change` listeners.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from herdr.runtime import popup_geometry as pg
from herdr.runtime.layout import Rect
from herdr.server.terminals import Terminal
from herdr.terminal.emulator import Emulator
from herdr.terminal.pty import AsyncPty, ExitStatus, PtyClosed, PtyWriteOverflow

log = logging.getLogger("herdr.server.popups")

CLOSE_GRACE_S = 1.0
POPUP_ID_PREFIX = "popup_"  # never a pane id (those are w…:p…) nor a terminal id


def is_popup_id(name: str) -> bool:
    return name.startswith(POPUP_ID_PREFIX)


class PopupBusy(Exception):
    """A popup is already open (``ui_busy``)."""


class PopupTooSmall(Exception):
    """The pane area cannot hold a bordered popup."""


@dataclass(eq=False)
class Popup:
    """The open popup: its terminal, where its box is, and what opened it."""

    popup_id: str
    terminal: Terminal
    title: str
    plugin_id: str
    entrypoint: str
    width: pg.PopupSize | None
    height: pg.PopupSize | None
    box: pg.PopupBox


class PopupHost:
    """Owns at most one :class:`Popup` for the session; ``area`` tells the pane area
    its box is centred in (the session's, which the attached clients set)."""

    def __init__(self, area: Callable[[], Rect], scrollback_bytes: int) -> None:
        self.area = area
        self.scrollback_bytes = scrollback_bytes
        self.current: Popup | None = None
        self.listeners: list[Callable[[], None]] = []
        self._stopping: set[asyncio.Task[None]] = set()

    def on_change(self, listener: Callable[[], None]) -> None:
        self.listeners.append(listener)

    def _changed(self) -> None:
        for listener in self.listeners:
            try:
                listener()
            except Exception:
                log.exception("popup listener failed")

    def terminal(self, popup_id: str | None) -> Terminal | None:
        """The popup's terminal when ``popup_id`` names the open popup."""
        popup = self.current
        if popup is None or popup_id is None or popup_id != popup.popup_id:
            return None
        return popup.terminal

    def open(
        self,
        argv: list[str],
        *,
        cwd: str,
        env: Mapping[str, str],
        title: str,
        plugin_id: str,
        entrypoint: str,
        width: pg.PopupSize | None,
        height: pg.PopupSize | None,
    ) -> Popup:
        """Start the popup's program; raises PopupBusy, PopupTooSmall or OSError."""
        if self.current is not None:
            raise PopupBusy("a popup is already open")
        box = pg.resolve(width, height, self.area())
        if box is None:
            raise PopupTooSmall("the pane area is too small for a popup")
        emulator = Emulator(box.cols, box.rows, scrollback_bytes=self.scrollback_bytes)
        popup_id = f"{POPUP_ID_PREFIX}{secrets.token_hex(6)}"
        term = Terminal(popup_id, emulator, size=(box.cols, box.rows))
        try:
            term.pty = AsyncPty.spawn(
                argv,
                lambda data: self._on_data(term, data),
                lambda status: self._on_exit(term, status),
                cols=box.cols,
                rows=box.rows,
                env=dict(env),
                cwd=cwd,
            )
        except BaseException:
            emulator.close()
            raise
        emulator.set_on_reply(lambda data: _reply(term, data))
        popup = Popup(popup_id, term, title, plugin_id, entrypoint, width, height, box)
        self.current = popup
        log.info("popup opened", extra={"plugin_id": plugin_id, "pid": term.pty.pid})
        self._changed()
        return popup

    def close(self) -> bool:
        """End the open popup's process; False when none is open."""
        popup = self.current
        if popup is None:
            return False
        self.current = None
        popup.terminal.closing = True
        task = asyncio.get_running_loop().create_task(_stop(popup.terminal))
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)
        self._changed()
        return True

    def relayout(self) -> None:
        """The pane area changed: re-centre the box and resize the PTY to fit."""
        popup = self.current
        if popup is None:
            return
        box = pg.resolve(popup.width, popup.height, self.area())
        if box is None or box == popup.box:
            return
        popup.box = box
        term = popup.terminal
        size = (box.cols, box.rows)
        if size != term.size and term.alive:
            term.size = size
            term.emulator.resize(*size)
            if term.pty is not None:
                with contextlib.suppress(OSError):
                    term.pty.resize(*size)
        self._changed()

    async def shutdown(self) -> None:
        self.close()
        if self._stopping:
            await asyncio.gather(*list(self._stopping), return_exceptions=True)

    def _on_data(self, term: Terminal, data: bytes) -> None:
        term.emulator.feed(data)
        for callback in list(term.on_output):
            callback()

    def _on_exit(self, term: Terminal, status: ExitStatus) -> None:
        term.exit_status = status
        for callback in list(term.on_output):
            callback()
        popup = self.current
        if popup is not None and popup.terminal is term and not term.closing:
            self.close()  # the popup ends with its process


def _reply(term: Terminal, data: bytes) -> None:
    with contextlib.suppress(PtyClosed, PtyWriteOverflow, OSError):
        term.write(data)


async def _stop(term: Terminal) -> None:
    try:
        if term.pty is not None:
            await term.pty.aclose(CLOSE_GRACE_S)
    except Exception:
        log.exception("stopping popup %s failed", term.terminal_id)
    finally:
        for callback in list(term.on_output):
            callback()
        term.emulator.close()
