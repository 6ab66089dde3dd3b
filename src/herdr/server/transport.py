"""NDJSON over a Unix socket: one request line per connection, one answer, close.

The transport enforces the spec's bounds (first line <= 1 MiB within 5 s); a peer that
breaks them is dropped without an answer, as herdr does, and nothing it sends can raise
out of here. Held methods (subscriptions, waits) keep the connection and get told when
the peer goes away.

Before any of that, each accepted connection is admitted or refused (one line with a
null id, then close): a client of another user (``SO_PEERCRED``; root excepted) gets
``permission_denied``, and past ``[server] max_connections`` or into the descriptor
reserve kept for panes (:mod:`herdr.server.limits`), ``too_many_connections``.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, cast

import orjson

from herdr.api import peercred, protocol
from herdr.server import limits

log = logging.getLogger("herdr.server.transport")

WRITE_TIMEOUT_S = 5.0
READ_CHUNK = 64 * 1024
REQUEST_LINE_LIMIT = protocol.MAX_REQUEST_LINE_BYTES + 1  # the line with its newline
FIRST_READ = 64 * 1024  # read at accept: the request a client sends as it connects

LineHandler = Callable[[bytes, "Connection"], Awaitable[bytes | None]]


class Connection(asyncio.Protocol):
    """One accepted client: its request line, what it sends later, and our writes.

    The connection is the transport's protocol, so input arrives in
    :meth:`data_received`: bytes up to the first newline make the request line
    (:meth:`request_line`); a held method then either streams later input to a
    callback (:meth:`stream_input`, the TUI's keystrokes: handled inside the protocol
    callback, no reader task woken, a loop round trip saved per key) or discards it
    until EOF (:meth:`watch_eof`). Either way it learns when the peer has gone away
    (``closed``, close callbacks). Writes have back-pressure: :meth:`drain` waits while
    the transport asks us to pause.
    """

    def __init__(self, first: bytes = b"") -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = False
        # input not handed on yet; ``first``: what was read at accept (Listener._admit)
        self._buffer = bytearray(first)
        self._scanned = 0  # bytes of ``_buffer`` known to hold no newline
        self._eof = False
        self._lost = False
        self._reading_paused = False
        self._writing_paused = False
        self._wake: asyncio.Future[None] | None = None  # request_line waits on it
        self._drain_waiters: list[asyncio.Future[None]] = []
        self._on_data: Callable[[bytes], None] | None = None
        self._discard = False
        self._close_callbacks: list[Callable[[], None]] = []

    # -- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass

    def data_received(self, data: bytes) -> None:
        on_data = self._on_data
        if on_data is not None:
            on_data(data)
            return
        if self._discard:
            return
        self._buffer += data
        self._notify()
        if len(self._buffer) > 2 * REQUEST_LINE_LIMIT and not self._reading_paused:
            self._pause_reading()  # nobody reads it yet: stop taking more

    def eof_received(self) -> bool:
        self._eof = True
        self._notify()
        if self._on_data is not None or self._discard:
            self._mark_closed()
        return True  # keep the transport open: the answer may still be written

    def connection_lost(self, exc: Exception | None) -> None:
        self._lost = True
        self._eof = True
        self._notify()
        self._mark_closed()
        waiters, self._drain_waiters = self._drain_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        waiters, self._drain_waiters = self._drain_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    # -- input --------------------------------------------------------------------------

    async def request_line(self) -> bytes | None:
        """The first line, or ``None`` when the peer sent nothing usable within the bounds
        (at most :data:`REQUEST_LINE_LIMIT` bytes, within the spec's first-line timeout).

        A final line without a newline before EOF still counts (``printf '{..}' | nc
        -U``). The timeout is a timer that aborts the transport (cheaper than
        ``wait_for``, which costs a task per request).
        """
        transport = self.transport
        assert transport is not None
        loop = asyncio.get_running_loop()
        timer = loop.call_later(protocol.FIRST_LINE_TIMEOUT_S, transport.abort)
        try:
            while True:
                buffer = self._buffer
                end = buffer.find(b"\n", self._scanned)
                if end >= 0:
                    if end > REQUEST_LINE_LIMIT:
                        self._too_long()
                        return None
                    line = bytes(buffer[: end + 1])
                    del buffer[: end + 1]
                    self._scanned = 0
                    break
                self._scanned = len(buffer)
                if len(buffer) > REQUEST_LINE_LIMIT:
                    self._too_long()
                    return None
                if self._eof:
                    line = bytes(buffer) if not transport.is_closing() else b""
                    buffer.clear()
                    self._scanned = 0
                    break
                self._wake = loop.create_future()
                try:
                    await self._wake
                finally:
                    self._wake = None
        finally:
            timer.cancel()
        if len(line) > REQUEST_LINE_LIMIT:
            return None
        line = line.strip()
        return line or None

    def stream_input(self, on_data: Callable[[bytes], None]) -> None:
        """Hand every later chunk of input to ``on_data`` (what already followed the
        request line first). EOF or an error closes the connection (close callbacks run)."""
        self._on_data = on_data
        pending = bytes(self._buffer)
        self._buffer.clear()
        self._resume_reading()
        if pending:
            on_data(pending)
        if self._eof:
            self._mark_closed()

    def watch_eof(self) -> None:
        """Discard further input until EOF, then mark the connection closed."""
        self._discard = True
        self._buffer.clear()
        self._resume_reading()
        if self._eof:
            self._mark_closed()

    def add_close_callback(self, callback: Callable[[], None]) -> None:
        if self.closed:
            callback()
        else:
            self._close_callbacks.append(callback)

    def _mark_closed(self) -> None:
        if self.closed:
            return
        self.closed = True
        callbacks, self._close_callbacks = self._close_callbacks, []
        for callback in callbacks:
            callback()

    def _notify(self) -> None:
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    def _too_long(self) -> None:
        log.debug("request line exceeds %d bytes; dropping", protocol.MAX_REQUEST_LINE_BYTES)
        self._buffer.clear()

    def _pause_reading(self) -> None:
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.pause_reading()
            self._reading_paused = True

    def _resume_reading(self) -> None:
        transport = self.transport
        if self._reading_paused and transport is not None and not transport.is_closing():
            transport.resume_reading()
        self._reading_paused = False

    # -- output -------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Write unless the peer is gone. A peer that only half-closed (EOF: ``closed``
        for a held method, which then stops) still reads: a request sent with its EOF
        (``printf … | nc -U``) gets its answer."""
        transport = self.transport
        if not self._lost and transport is not None and not transport.is_closing():
            transport.write(data)

    def writelines(self, lines: list[bytes]) -> None:
        transport = self.transport
        if not self._lost and transport is not None and not transport.is_closing():
            transport.writelines(lines)

    def writes_pending(self) -> bool:
        """Whether written bytes still wait in the transport (or it is closing)."""
        transport = self.transport
        return (
            transport is None or transport.is_closing() or bool(transport.get_write_buffer_size())
        )

    def pending_bytes(self) -> int:
        """Bytes written that still wait in the transport (0 once it is gone)."""
        transport = self.transport
        if transport is None or transport.is_closing():
            return 0
        return int(transport.get_write_buffer_size())

    async def drain(self) -> bool:
        """Wait while the transport holds more than it wants; False once the peer is gone."""
        if self._writing_paused and not self._lost:
            waiter = asyncio.get_running_loop().create_future()
            self._drain_waiters.append(waiter)
            await waiter
        if self._lost:
            self._mark_closed()
            return False
        return not self.closed

    async def close(self) -> None:
        """Flush (bounded by ``WRITE_TIMEOUT_S``) and close; never waits on a stuck peer."""
        self._mark_closed()
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if transport.get_write_buffer_size():
            timer = asyncio.get_running_loop().call_later(WRITE_TIMEOUT_S, transport.abort)
            try:
                await self.drain()  # returns at once when not paused, else on resume/loss
            finally:
                timer.cancel()
            if self._lost:
                return  # gone (or aborted by the timer)
        transport.close()  # the transport closes once its (now small) buffer is sent

    def abort(self) -> None:
        self._mark_closed()
        if self.transport is not None:
            self.transport.abort()


ACCEPT_BATCH = 128  # connections taken per readiness callback (then others get a turn)
ACCEPT_RETRY_S = 0.5  # pause after an accept error we could not answer
_OUT_OF_FDS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def refusal_line(code: str, message: str) -> bytes:
    """The one line a refused connection gets; ``id`` is null: nothing was read."""
    return orjson.dumps(
        {"id": None, "error": {"code": code, "message": message}},
        option=orjson.OPT_APPEND_NEWLINE,
    )


def _refuse(sock: socket.socket, line: bytes, *, discard_input: bool = False) -> None:
    """Answer, then close (a fresh socket's buffer always takes the line).

    Closing with unread input makes the peer's reads fail with ECONNRESET once it has
    read our line; ``discard_input`` drops what already arrived (unparsed) so that a
    busy refusal ends in a plain EOF. A client of another user gets nothing read.
    """
    try:
        sock.setblocking(False)
        sock.send(line)
        if discard_input:
            sock.recv(READ_CHUNK)
    except OSError:
        pass
    finally:
        sock.close()


def _open_spare() -> int | None:
    """A descriptor held back so that, out of descriptors, we can still answer a client."""
    try:
        return os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None


def _not_listening() -> tuple[int, object]:
    raise BlockingIOError(errno.EAGAIN, "not listening")


class _PeerTransport:
    """What an immediate request's handler may ask of its transport: the socket."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def get_extra_info(self, name: str, default: object = None) -> object:
        return self._sock if name == "socket" else default

    def is_closing(self) -> bool:
        return False


def peer_connection(sock: socket.socket) -> Connection:
    """The connection an immediate request is answered for (``Dispatcher.handle_now``):
    only its peer socket is there; the answer is written by the listener."""
    conn = Connection()
    conn.transport = cast(asyncio.Transport, _PeerTransport(sock))
    return conn


NowHandler = Callable[[bytes, socket.socket], "bytes | None"]


class Listener:
    """The accept loop: admits or refuses each connection, runs ``handle_line`` once.

    The loop's own accept is not used: we accept one connection at a time and decide at
    once, before any transport exists or any byte is read, whether to take it (see
    :meth:`_admit`). A refused one gets one error line and its descriptor back at once,
    so a burst cannot pile up descriptors, and running out of them (EMFILE) is logged
    and answered too, with a descriptor kept spare for that. A taken one's first bytes
    are read there: one whole line that ``handle_now`` answers is answered on the spot
    (no task, no transport, no loop turn); anything else goes to a task with them.
    """

    def __init__(
        self,
        handle_line: LineHandler,
        *,
        max_connections: Callable[[], int] = lambda: limits.DEFAULT_MAX_CONNECTIONS,
        fd_limit: int | None = None,
        owner_uid: int | None = None,
        handle_now: NowHandler | None = None,
    ) -> None:
        self._handle_line = handle_line
        self._handle_now = handle_now
        self._max_connections = max_connections
        self._ceiling = limits.fd_ceiling(
            limits.soft_nofile_limit() if fd_limit is None else fd_limit
        )
        self._owner_uid = os.geteuid() if owner_uid is None else owner_uid
        self._sock: socket.socket | None = None
        self._accept: Callable[[], tuple[int, object]] = _not_listening
        self._loop: asyncio.AbstractEventLoop | None = None
        self._spare: int | None = None
        self._resume: asyncio.TimerHandle | None = None
        self._held = False  # pause_accepting: a live handoff holds the backlog
        self._tasks: set[asyncio.Task[None]] = set()
        self._throttles: dict[str, limits.Throttle] = {}

    async def start(self, path: Path) -> None:
        """Bind and listen (backlog SOMAXCONN) at ``path``; the caller sets the umask."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.setblocking(False)
            sock.bind(str(path))
            sock.listen(socket.SOMAXCONN)
        except BaseException:
            sock.close()
            raise
        self._listen_on(sock)

    async def adopt(self, sock: socket.socket) -> None:
        """Accept on a socket that is already bound and listening (handed over by the
        old server at a live handoff: its backlog is ours, no connection is refused)."""
        sock.setblocking(False)
        self._listen_on(sock)

    def _listen_on(self, sock: socket.socket) -> None:
        self._sock = sock
        # the raw accept: a file descriptor, without socket.accept()'s Python wrapper
        # (which costs ~10 us a connection looking up family and type as enums)
        self._accept = sock._accept  # type: ignore[attr-defined]
        self._loop = asyncio.get_running_loop()
        self._spare = _open_spare()
        self._loop.add_reader(sock.fileno(), self._on_readable)

    @property
    def listening_fd(self) -> int | None:
        return self._sock.fileno() if self._sock is not None else None

    def pause_accepting(self) -> None:
        """Leave new connections in the backlog (a live handoff hands them over); an
        accept-error pause pending now does not end it (see `_unpause`)."""
        self._held = True
        if self._loop is not None and self._sock is not None:
            self._loop.remove_reader(self._sock.fileno())

    def resume_accepting(self) -> None:
        self._held = False
        if self._loop is not None and self._sock is not None and self._resume is None:
            self._loop.add_reader(self._sock.fileno(), self._on_readable)

    def _on_readable(self) -> None:
        sock = self._sock
        if sock is None:
            return
        accept = self._accept
        for _ in range(ACCEPT_BATCH):
            try:
                fd, _addr = accept()
            except (BlockingIOError, InterruptedError):
                return
            except ConnectionAbortedError:
                continue
            except OSError as exc:
                if exc.errno in _OUT_OF_FDS:
                    self._out_of_fds(sock, exc)
                else:
                    self._log("accept", logging.ERROR, "accept failed: %s", exc)
                    self._pause()
                return
            self._admit(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fd))

    def _admit(self, sock: socket.socket) -> None:
        """Take the connection, or answer one error line and close it.

        A client of another user (root excepted) gets ``permission_denied``; past the
        connection cap or into the descriptor reserve, ``too_many_connections``.
        """
        try:
            creds = peercred.peer_credentials(sock)
        except OSError:
            creds = (-1, -1, -1)  # cannot tell who it is: refuse
        if creds is not None and not peercred.trusted(creds[1], self._owner_uid):
            pid, uid, _gid = creds
            self._log(
                "peer",
                logging.WARNING,
                "refused a connection from another user",
                peer_uid=uid,
                peer_pid=pid,
            )
            _refuse(
                sock,
                refusal_line(
                    protocol.PERMISSION_DENIED,
                    "permission denied: this herdr server serves only its own user",
                ),
            )
            return
        why = limits.over_capacity(
            held=len(self._tasks),
            max_connections=self._max_connections(),
            fd=sock.fileno(),
            ceiling=self._ceiling,
        )
        if why is not None:
            self._log(
                "capacity",
                logging.WARNING,
                "refused a connection: %s",
                why,
                connections=len(self._tasks),
            )
            _refuse(sock, refusal_line(protocol.TOO_MANY_CONNECTIONS, why), discard_input=True)
            return
        assert self._loop is not None
        try:
            # what the client sent as it connected (a CLI's request): read now, it is
            # not one more loop turn away, and a one-shot request may be answered now
            first = sock.recv(FIRST_READ, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            first = b""
        except OSError:
            sock.close()
            return
        if first and self._handle_now is not None and first.find(b"\n") == len(first) - 1:
            answer = self._answer_now(first, sock)
            if answer is not None:
                self._send_now(sock, answer)
                return
        self._spawn(self._serve(sock, first))

    def _answer_now(self, line: bytes, sock: socket.socket) -> bytes | None:
        assert self._handle_now is not None
        try:
            return self._handle_now(line, sock)
        except Exception as exc:  # the server survives anything a client triggers
            log.exception("immediate request failed")
            return refusal_line(protocol.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")

    def _send_now(self, sock: socket.socket, answer: bytes) -> None:
        """Write an immediate answer and close; what the socket does not take at once
        is written by a task (bounded by ``WRITE_TIMEOUT_S``)."""
        try:
            sent = sock.send(answer, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:
            sock.close()
            return
        if sent == len(answer):
            sock.close()
            return
        self._spawn(self._send_rest(sock, memoryview(answer)[sent:]))

    async def _send_rest(self, sock: socket.socket, rest: memoryview) -> None:
        loop = asyncio.get_running_loop()
        try:
            sock.setblocking(False)
            await asyncio.wait_for(loop.sock_sendall(sock, rest), WRITE_TIMEOUT_S)
        except (OSError, TimeoutError):
            pass
        finally:
            sock.close()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        assert self._loop is not None
        task = self._loop.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _out_of_fds(self, sock: socket.socket, exc: OSError) -> None:
        """EMFILE on accept: log it, and answer the waiting clients with the spare fd."""
        self._log(
            "emfile",
            logging.ERROR,
            "accept failed: %s; answering too_many_connections until descriptors free up",
            exc,
            connections=len(self._tasks),
        )
        spare, self._spare = self._spare, None
        drained = False
        if spare is not None:
            os.close(spare)
            line = refusal_line(
                protocol.TOO_MANY_CONNECTIONS,
                "the server is out of file descriptors; try again later",
            )
            for _ in range(ACCEPT_BATCH):
                try:
                    fd, _addr = self._accept()
                except (BlockingIOError, InterruptedError):
                    drained = True
                    break
                except OSError:
                    break
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fd)
                _refuse(conn, line, discard_input=True)
            self._spare = _open_spare()
        if not drained or self._spare is None:
            self._pause()  # cannot answer now: do not spin on a readable socket

    def _pause(self) -> None:
        loop, sock = self._loop, self._sock
        if loop is None or sock is None or self._resume is not None:
            return
        loop.remove_reader(sock.fileno())
        self._resume = loop.call_later(ACCEPT_RETRY_S, self._unpause)

    def _unpause(self) -> None:
        self._resume = None
        if self._spare is None:
            self._spare = _open_spare()
        if self._loop is not None and self._sock is not None and not self._held:
            self._loop.add_reader(self._sock.fileno(), self._on_readable)

    def _log(self, kind: str, level: int, msg: str, *args: object, **extra: object) -> None:
        throttle = self._throttles.setdefault(kind, limits.Throttle())
        suppressed = throttle.ready()
        if suppressed is None:
            return
        if suppressed:
            extra["suppressed"] = suppressed  # how many like it went unlogged since
        log.log(level, msg, *args, extra=extra)

    async def _serve(self, sock: socket.socket, first: bytes = b"") -> None:
        loop = asyncio.get_running_loop()
        conn = Connection(first)
        try:
            await loop.connect_accepted_socket(lambda: conn, sock)
        except (OSError, ValueError):
            sock.close()
            return
        try:
            line = await conn.request_line()
            if line is None:
                conn.abort()
                return
            response = await self._handle_line(line, conn)
            if response is not None:
                conn.write(response)
            await conn.close()
        except asyncio.CancelledError:
            conn.abort()
            raise
        except Exception:  # the server survives anything a client triggers
            log.exception("connection handler failed")
            conn.abort()

    async def close(self) -> None:
        """Stop accepting and end every open connection."""
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        sock, self._sock = self._sock, None
        if sock is not None:
            if self._loop is not None:
                self._loop.remove_reader(sock.fileno())
            sock.close()
        spare, self._spare = self._spare, None
        if spare is not None:
            os.close(spare)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2.0)
