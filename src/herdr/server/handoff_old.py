"""The old server's half of a live handoff (``server.live_handoff``).

It starts the new server (the ``herdr`` given, else the one on ``PATH``, else this
Python's ``-m herdr``) detached like a daemon, with one end of a socketpair. Steps:

1. the new one imports everything it needs, builds an emulator, and says ``ready``
   with its protocol, version and handoff-document version; a mismatch (or a caller's
   ``expected_protocol``/``expected_version`` it does not meet) ends it here;
2. we freeze: stop accepting (new connections wait in the backlog) and stop reading
   the PTYs (output waits in the kernel), so the snapshot is exact;
3. we send the document (`handoff_state`) with the listening socket and the lock
   file, then the PTY masters, at most `handoff_wire.MAX_FDS` a frame, each acked;
4. the new one adopts everything and says ``adopted``; we answer ``release``.

Until ``release`` is sent this server owns everything: any failure (the new one
exits, is killed, goes silent, refuses) kills the new process, unfreezes, and the
caller gets ``handoff_failed`` (or ``protocol_mismatch``) with nothing lost. After
it, we tell attach clients to reconnect, end subscriptions with reason ``handoff``
and exit without signalling a single pane process (see `app._shutdown`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

from herdr import __version__
from herdr.server import handoff_state as hs
from herdr.server import handoff_web
from herdr.server import handoff_wire as wire
from herdr.server.core import ApiError, Result
from herdr.server.handoff_control import HandoffControl
from herdr.vocab import ErrorCode

if TYPE_CHECKING:
    from herdr.server.wiring import Server

log = logging.getLogger("herdr.server.handoff")

READY_TIMEOUT_S = 60.0  # a cold Python start on a loaded machine
STEP_TIMEOUT_S = 60.0  # per frame; adopting 200 panes replays 200 screens
BATCH_ENV = "HERDR_TEST_HANDOFF_BATCH"  # test hook: fewer fds a frame (more batches)


def successor_argv(exe: str | None, env: Mapping[str, str]) -> list[str]:
    """The new server's command: ``exe``, else ``herdr`` on PATH, else ``python -m herdr``."""
    if exe:
        return [exe]
    found = shutil.which("herdr", path=env.get("PATH", os.defpath))
    if found:
        return [found]
    return [sys.executable, "-m", "herdr"]


def batch_size(env: Mapping[str, str]) -> int:
    try:
        size = int(env.get(BATCH_ENV, wire.MAX_FDS))
    except ValueError:
        size = wire.MAX_FDS
    return max(1, min(wire.MAX_FDS, size))


def capture(server: Server) -> tuple[hs.HandoffDoc, list[int]]:
    """The document and a duplicate of every live PTY master, in the same order (on the
    loop: the model and the emulators are not thread-safe)."""
    host = server.panes
    panes: list[hs.PaneState] = []
    fds: list[int] = []
    try:
        for loc in host.session.iter_panes():
            term = host.terminal(loc)
            if term is None or not term.alive or term.pty is None or term.emulator.closed:
                continue
            proc = term.pty.process
            pgid: int | None = None
            with contextlib.suppress(OSError):
                pgid = os.getpgid(proc.pid)
            em = term.emulator
            pa = server.agents.panes.get(term.terminal_id)
            agent = None
            if pa is not None:  # arbitration state and detection loop: nothing re-learned
                agent = {
                    "st": pa.st,
                    "loop": pa.loop,
                    "deadline": pa.deadline,
                    "interactive_ready": pa.interactive_ready,
                    "completion_seq": pa.completion_seq,
                    "content_seq": em.content_seq,
                }
            panes.append(
                hs.PaneState(
                    terminal_id=term.terminal_id,
                    pid=proc.pid,
                    pgid=pgid,
                    cols=term.size[0],
                    rows=term.size[1],
                    argv=tuple(loc.pane.command or ()),
                    cwd=loc.pane.cwd,
                    screen=em.replay_snapshot(),
                    terminal_title=em.osc.terminal_title,
                    osc_title=em.osc.title,
                    osc_progress=em.osc.progress,
                    modify_other_keys=em.input_modes().modify_other_keys,
                    restore_error=term.restore_error,
                    agent_blob=_pack_or_none(agent),
                    revision=em.revision,
                )
            )
            fds.append(os.dup(proc.fd))
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    bus = server.bus
    doc = hs.HandoffDoc(
        protocol=server.info.protocol,
        herdr_version=__version__,
        old_pid=os.getpid(),
        session=hs.session_to_json(host.session),
        panes=tuple(panes),
        last_seq=bus.last_seq,
        evicted_upto=bus.evicted_upto,
        events=tuple(hs.LoggedEvent(e.seq, e.kind, dict(e.data)) for e in bus.logged()),
        workspace_meta_blob=_pack_or_none(server.agents.workspace_meta),
        extra={"web": handoff_web.record(server)},
    )
    return doc, fds


def _pack_or_none(obj: object) -> bytes | None:
    if obj is None:
        return None
    try:
        return hs.pack(obj)
    except Exception:  # an unpicklable runtime value: the new server starts it fresh
        log.exception("live handoff: cannot carry an agent state; it starts fresh")
        return None


def check_ready(
    ready: Mapping[str, Any], ours: int, expected_protocol: int | None, expected_version: str | None
) -> tuple[str, str] | None:
    """(error code, message) when the new server must not take over, else None."""
    if ready.get("handoff_version") != hs.HANDOFF_VERSION:
        return (
            ErrorCode.HANDOFF_FAILED,
            f"the new server adopts handoff documents of version "
            f"{ready.get('handoff_version')!r}, this one writes {hs.HANDOFF_VERSION}",
        )
    protocol, version = ready.get("protocol"), ready.get("version")
    wanted = ours if expected_protocol is None else expected_protocol
    if protocol != wanted:
        return (
            ErrorCode.PROTOCOL_MISMATCH,
            f"the new server speaks protocol {protocol!r}, expected {wanted}",
        )
    if expected_version is not None and version != expected_version:
        return (
            ErrorCode.PROTOCOL_MISMATCH,
            f"the new server is herdr {version!r}, expected {expected_version!r}",
        )
    return None


def _transfer(
    sock: socket.socket, body: bytes, extra_fds: list[int], batches: list[list[int]]
) -> dict[str, Any]:
    """Steps 3 and 4 (blocking; runs in a worker thread)."""
    wire.send_frame(sock, {"kind": "doc", "batches": len(batches)}, body, extra_fds)
    wire.expect(sock, "doc_ok", STEP_TIMEOUT_S)
    for index, batch in enumerate(batches):
        wire.send_frame(sock, {"kind": "batch", "index": index}, b"", batch)
        wire.expect(sock, "ack", STEP_TIMEOUT_S)
    adopted, _body, _fds = wire.expect(sock, "adopted", STEP_TIMEOUT_S)
    return adopted


def _stderr_tail(stderr: IO[bytes]) -> str:
    with contextlib.suppress(OSError):
        stderr.seek(0)
        text = stderr.read()[-2000:].decode("utf-8", "replace").strip()
        if text:
            return f" (its stderr: {text.splitlines()[-1][:300]})"
    return ""


async def hand_off(server: Server, params: Mapping[str, Any]) -> Result:
    """Run a handoff; returns the ``ok`` result, or raises `ApiError` (nothing changed)."""
    host = server.panes
    ctl = host.handoff
    if ctl is None or ctl.done:
        raise ApiError(ErrorCode.HANDOFF_FAILED, "this server is stopping; no handoff")
    if ctl.in_progress:
        raise ApiError(ErrorCode.HANDOFF_FAILED, "a live handoff is already in progress")
    ctl.in_progress = True
    started = time.monotonic()
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in the finally below
    argv = successor_argv(params.get("import_exe"), host.env)
    argv += ["server", "--handoff-fd", str(child.fileno())]
    if server.info.session:
        argv += ["--session", server.info.session]
    proc: subprocess.Popen[bytes] | None = None
    try:
        try:
            proc = subprocess.Popen(
                argv,
                env=dict(host.env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                pass_fds=(child.fileno(),),
                start_new_session=True,
                close_fds=True,
                cwd="/",
            )
        except OSError as err:
            raise ApiError(
                ErrorCode.HANDOFF_FAILED, f"cannot start the new server {argv[0]}: {err}"
            ) from None
        finally:
            child.close()
        log.info("live handoff: started the new server", extra={"pid": proc.pid})
        result = await _run(server, ctl, parent, proc, params)
        result["handoff"]["elapsed_ms"] = int((time.monotonic() - started) * 1000)
        log.info("live handoff: done", extra=result["handoff"])
        return result
    except wire.HandoffWireError as err:
        code = None if proc is None else await asyncio.to_thread(_exit_code, proc)
        exited = f" (it exited with status {code})" if code is not None else ""
        message = f"the new server did not take over: {err}{exited}{_stderr_tail(stderr)}"
        log.warning("live handoff failed: %s; this server keeps serving", message)
        raise ApiError(ErrorCode.HANDOFF_FAILED, message + "; this server keeps serving") from None
    finally:
        if not ctl.done:
            ctl.in_progress = False
            if proc is not None:
                await asyncio.to_thread(_kill, proc)
        parent.close()
        stderr.close()


async def _run(
    server: Server,
    ctl: HandoffControl,
    sock: socket.socket,
    proc: subprocess.Popen[bytes],
    params: Mapping[str, Any],
) -> Result:
    ready, _body, _fds = await asyncio.to_thread(wire.expect, sock, "ready", READY_TIMEOUT_S)
    refusal = check_ready(
        ready, server.info.protocol, params.get("expected_protocol"), params.get("expected_version")
    )
    if refusal is not None:
        with contextlib.suppress(wire.HandoffWireError):
            wire.send_frame(sock, {"kind": "abort", "message": refusal[1]})
        raise ApiError(*refusal)
    host = server.panes
    frozen_at = time.monotonic()
    ctl.listener.pause_accepting()
    frozen = [t.pty for t in host.terminals.values() if t.pty is not None]
    for pty in frozen:
        pty.pause_reading()
    fds: list[int] = []
    try:
        doc, fds = capture(server)
        listen_fd = ctl.listener.listening_fd
        assert listen_fd is not None
        size = batch_size(host.env)
        batches = [fds[i : i + size] for i in range(0, len(fds), size)]
        body = hs.encode(doc)
        adopted = await asyncio.to_thread(_transfer, sock, body, [listen_fd, ctl.lock_fd], batches)
        # what cannot be shared: the web view's port (the new server binds it again with
        # the same token) and the popup (a transient box; its process ends)
        web = server.web.running
        await server.web.stop()
        host.popups.close()
        try:
            await asyncio.to_thread(wire.send_frame, sock, {"kind": "release"})
        except BaseException:
            if web is not None:
                await server.web.start(server, web.options, token=web.token)
            raise
    except BaseException:
        for pty in frozen:
            pty.resume_reading()
        ctl.listener.resume_accepting()
        raise
    finally:
        for fd in fds:
            os.close(fd)
    ctl.done = True
    host.stop_reason = "handoff"
    return {
        "type": "ok",
        "handoff": {
            "new_pid": proc.pid,
            "panes": len(doc.panes),
            "fd_batches": len(batches),
            "new_version": ready.get("version"),
            "adopted": adopted.get("panes"),
            # output and new connections waited this long (the switch window)
            "frozen_ms": int((time.monotonic() - frozen_at) * 1000),
        },
    }


def _exit_code(proc: subprocess.Popen[bytes]) -> int | None:
    """Its exit status, if it is exiting (the channel closes just before it is gone)."""
    try:
        return proc.wait(1.0)
    except subprocess.TimeoutExpired:
        return None


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """The new server must not live on after a failed handoff (it may hold our fds)."""
    with contextlib.suppress(OSError):
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(10)
