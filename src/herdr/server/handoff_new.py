"""The new server's half of a live handoff: prove it can run, receive, adopt, serve.

Started by the old server as ``herdr server --handoff-fd N`` (see `handoff_old`). It
says ``ready`` only after the server modules and the emulator library loaded, then
takes the document, the listening socket, the lock file and the PTY masters, and
rebuilds the session (`adopt`) before it tells the old one ``adopted``. It serves
nothing until the old one answers ``release``: without it (the old one took back
its panes, or failed) it exits at once, closing its copies of the descriptors and
signalling no pane process. Only if the old server is gone, too, does it keep them:
somebody must own the PTYs.

Test hook: ``HERDR_TEST_HANDOFF_PAUSE_AFTER=N`` makes it stop after it acked N fd
batches (0: before the first), ``=adopted`` once it adopted everything (before it says
so); it logs ``handoff test pause`` and waits until the old server closes the channel
(at most an hour), so a test can kill either side mid-transfer.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING

from herdr import __version__
from herdr.runtime import agent_state
from herdr.server import handoff_state as hs
from herdr.server import handoff_wire as wire
from herdr.terminal.adopted import AdoptedPtyProcess
from herdr.terminal.emulator import Emulator

if TYPE_CHECKING:
    from herdr.server.info import ServerInfo
    from herdr.server.wiring import Server

log = logging.getLogger("herdr.server.handoff")

STEP_TIMEOUT_S = 60.0
RELEASE_TIMEOUT_S = 60.0
GONE_WAIT_S = 5.0
PAUSE_ENV = "HERDR_TEST_HANDOFF_PAUSE_AFTER"
ADOPTED = "adopted"


class Received:
    """What the old server sent: the document and its descriptors."""

    def __init__(
        self, sock: socket.socket, doc: hs.HandoffDoc, listen_fd: int, lock_fd: int, ptys: list[int]
    ) -> None:
        self.sock = sock
        self.doc = doc
        self.listen_fd = listen_fd
        self.lock_fd = lock_fd
        self.ptys = ptys


def receive(info: ServerInfo, env: Mapping[str, str], fd: int) -> Received:
    """Steps 1 and 3 (blocking, before the loop); raises on any failure."""
    sock = socket.socket(fileno=fd)
    os.set_inheritable(fd, False)
    Emulator(2, 2).close()  # the VT library loads and works: else we are not ready
    wire.send_frame(
        sock,
        {
            "kind": "ready",
            "protocol": info.protocol,
            "version": __version__,
            "handoff_version": hs.HANDOFF_VERSION,
            "pid": os.getpid(),
        },
    )
    header, body, fds = wire.expect(sock, "doc", STEP_TIMEOUT_S)
    if len(fds) != 2:
        raise wire.HandoffWireError(f"expected the listening socket and the lock, got {len(fds)}")
    listen_fd, lock_fd = fds
    try:
        doc = hs.decode(body)
        hs.session_from_json(doc.session)  # refuse a model we cannot build before any fd
    except hs.HandoffFormatError as err:
        wire.send_frame(sock, {"kind": "error", "message": str(err)})
        raise
    wire.send_frame(sock, {"kind": "doc_ok"})
    pause_after = _pause_after(env)
    ptys: list[int] = []
    for index in range(int(header.get("batches", 0))):
        if pause_after == index:
            test_pause(sock)
        _h, _b, batch = wire.expect(sock, "batch", STEP_TIMEOUT_S)
        ptys += batch
        wire.send_frame(sock, {"kind": "ack", "index": index, "fds": len(batch)})
    if len(ptys) != len(doc.panes):
        raise wire.HandoffWireError(f"{len(doc.panes)} panes but {len(ptys)} PTY descriptors")
    return Received(sock, doc, listen_fd, lock_fd, ptys)


def _pause_after(env: Mapping[str, str]) -> int | None:
    raw = env.get(PAUSE_ENV)
    if raw is None or raw == ADOPTED:
        return None
    with contextlib.suppress(ValueError):
        return max(0, int(raw))
    return None


def pause_before_confirm(env: Mapping[str, str]) -> bool:
    return env.get(PAUSE_ENV) == ADOPTED


def test_pause(sock: socket.socket) -> None:
    """The test hook's stop: until the old server closes its end (or an hour)."""
    log.warning("handoff test pause", extra={"event": "handoff.test_pause"})
    poller = select.poll()
    poller.register(sock, select.POLLRDHUP)  # not POLLIN: the next frame may be waiting
    poller.poll(3600_000)


def adopt(server: Server, doc: hs.HandoffDoc, ptys: list[int]) -> int:
    """Rebuild the session and take over every pane process; returns how many."""
    host = server.panes
    session = hs.session_from_json(doc.session)
    session.terminal_id_factory = host.session.terminal_id_factory
    host.session = session
    server.bus.adopt_log(
        doc.last_seq, doc.evicted_upto, ((e.seq, e.kind, e.data) for e in doc.events)
    )
    if doc.workspace_meta_blob is not None:
        with contextlib.suppress(Exception):
            meta = hs.unpack(doc.workspace_meta_blob)
            if isinstance(meta, dict):
                server.agents.workspace_meta = meta
    scrollback = host.settings.scrollback_limit_bytes
    for state, fd in zip(doc.panes, ptys, strict=True):
        if session.find_terminal(state.terminal_id) is None:
            os.close(fd)  # its pane closed while we started: nothing shows it
            continue
        emulator = Emulator(state.cols, state.rows, scrollback_bytes=scrollback)
        emulator.feed(state.screen)
        emulator.osc.terminal_title = state.terminal_title
        emulator.osc.title = state.osc_title
        emulator.osc.progress = state.osc_progress
        emulator.revision = emulator.content_seq = state.revision  # content_seq: see agent
        process = AdoptedPtyProcess(state.pid, fd, state.cols, state.rows)
        term = host.adopt(state.terminal_id, emulator, process, (state.cols, state.rows))
        term.restore_error = state.restore_error
        _adopt_agent(server, state)
    for loc in list(session.iter_panes()):  # a pane whose process ended before the freeze
        if loc.pane.terminal_id not in host.terminals:
            host.emit("pane_exited", {"pane_id": loc.pane_id, "workspace_id": loc.workspace_id})
            host.emit_closed(session.close_pane(loc.pane_id))
    return len(host.terminals)


def _adopt_agent(server: Server, state: hs.PaneState) -> None:
    pa = server.agents.panes.get(state.terminal_id)
    if pa is None or state.agent_blob is None:
        return
    try:
        carried = hs.unpack(state.agent_blob)
        if not isinstance(carried, dict):
            raise TypeError(f"not an agent record: {type(carried).__name__}")
        st = carried["st"]
        if not isinstance(st, agent_state.TerminalAgentState):
            raise TypeError(f"not an agent state: {type(st).__name__}")
        loop, deadline = carried["loop"], carried["deadline"]
        ready, completions = bool(carried["interactive_ready"]), int(carried["completion_seq"])
        content_seq = int(carried["content_seq"])
    except Exception as err:  # another herdr's runtime classes: start detection afresh
        pa.term.restore_error = f"agent_state_lost: {err}"
        return
    pa.st, pa.loop, pa.deadline = st, loop, deadline
    pa.interactive_ready, pa.completion_seq = ready, completions
    pa.term.emulator.content_seq = content_seq
    pa.wake.set()


def detach_stderr() -> None:
    """Point stderr at /dev/null, as a normal daemon start does: until now it was the
    old server's scratch file (read for the caller's error message on failure)."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)


def refuse(received: Received, message: str) -> None:
    """Tell the old server why we cannot take over (it keeps everything)."""
    with contextlib.suppress(wire.HandoffWireError):
        wire.send_frame(received.sock, {"kind": "error", "message": message})


def old_server_gone(pid: int, wait_s: float = GONE_WAIT_S) -> bool:
    """Whether the old server died (rather than took its panes back). A dying process
    closes its descriptors before it is a zombie, so its end of the channel can close
    a moment before it is gone: wait (its pidfd turns readable once it has exited). One
    that is alive and taking its panes back kills us meanwhile."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    try:
        ready, _w, _x = select.select([pidfd], [], [], wait_s)
        return bool(ready)
    finally:
        os.close(pidfd)


def confirm(received: Received, panes: int) -> bool:
    """Step 4: ``adopted`` out, ``release`` in. False: the old server keeps everything."""
    try:
        wire.send_frame(received.sock, {"kind": "adopted", "panes": panes})
        wire.expect(received.sock, "release", RELEASE_TIMEOUT_S)
    except wire.HandoffWireError as err:
        if old_server_gone(received.doc.old_pid):
            log.warning("live handoff: the old server vanished before release; keeping the panes")
            return True
        log.error("live handoff: no release from the old server (%s); leaving", err)
        return False
    finally:
        received.sock.close()
    return True
