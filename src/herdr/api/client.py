"""Python SDK: sync and asyncio clients for the herdr socket API.

Both speak the same protocol as the CLI (one request per connection, NDJSON). The
module itself imports only the standard library's socket and json; ``asyncio`` is
imported when an :class:`AsyncClient` actually connects, so scripts using the sync
client start fast.

Example::

    from herdr.api.client import Client

    herdr = Client()                      # $HERDR_SOCKET_PATH / $HERDR_SESSION / default
    ws = herdr.workspace_create(label="api", cwd="/src/api")
    pane = ws["root_pane"]["pane_id"]
    herdr.pane_run(pane, "make test")
    herdr.pane_wait_for_output(pane, regex=r"passed|failed", timeout_ms=60_000)
    for event in herdr.events([{"type": "pane.exited"}]):
        print(event["event"], event["data"])
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from herdr import PROTOCOL_VERSION, vocab
from herdr.api import peercred

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "AsyncClient",
    "AsyncSubscription",
    "Client",
    "HerdrError",
    "ServerNotRunning",
    "ServerUntrusted",
    "Subscription",
    "default_socket_path",
]

Result = dict[str, Any]
Params = dict[str, Any]

_MAX_LINE = 64 * 1024 * 1024
_DEFAULT_TIMEOUT = -1.0  # sentinel: use the client's timeout
# Waits before each retry while the server is busy (full listen backlog, or it refused
# the connection with too_many_connections before reading anything): ~1 s in all.
_RETRY_DELAYS_S = (0.005, 0.01, 0.02, 0.04, 0.08, 0.12, 0.16, 0.2, 0.2, 0.2)


class HerdrError(vocab.HerdrError):
    """An error answer from the server (``code`` is the spec's error code)."""

    def __init__(self, code: str, message: str, request_id: str = "") -> None:
        super().__init__(code, message)
        self.request_id = request_id


class ServerNotRunning(HerdrError):
    def __init__(self, path: Path, detail: str = "") -> None:
        super().__init__("server_not_running", f"no herdr server at {path}{detail}")
        self.path = path


class ServerUntrusted(HerdrError):
    """The socket is served by another user (not us, not root): nothing was sent."""

    def __init__(self, path: Path, uid: int) -> None:
        super().__init__("server_untrusted", peercred.untrusted_message(path, uid))
        self.path = path
        self.uid = uid


def _check_server(sock: peercred.SockOpt, path: Path) -> None:
    uid = peercred.untrusted_server_uid(sock)
    if uid is not None:
        raise ServerUntrusted(path, uid)


def _busy_refusal(envelope: Mapping[str, Any]) -> bool:
    """The server refused before reading the request (nothing ran): safe to retry."""
    error = envelope.get("error")
    return (
        envelope.get("id") is None
        and isinstance(error, Mapping)
        and error.get("code") == "too_many_connections"
    )


def default_socket_path(session: str | None = None) -> Path:
    """``session`` > ``$HERDR_SOCKET_PATH`` > ``$HERDR_SESSION`` > default, like the CLI."""
    from herdr.config.paths import active_socket_path

    return Path(active_socket_path(os.environ, session))


def _request_line(rid: str, method: str, params: Mapping[str, Any]) -> bytes:
    doc = {"id": rid, "method": method, "params": dict(params)}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _decode(line: bytes) -> dict[str, Any]:
    if not line:
        raise HerdrError("internal_error", "the server closed the connection without answering")
    doc = json.loads(line)
    if not isinstance(doc, dict):
        raise HerdrError("internal_error", "the server sent something other than an object")
    return doc


def _result(envelope: Mapping[str, Any]) -> Result:
    error = envelope.get("error")
    if isinstance(error, Mapping):
        raise HerdrError(
            str(error.get("code", "internal_error")),
            str(error.get("message", "")),
            str(envelope.get("id", "")),
        )
    result = envelope.get("result")
    if not isinstance(result, dict):
        raise HerdrError("internal_error", "response has neither result nor error")
    return result


def _clean(params: Mapping[str, Any]) -> Params:
    """Drop ``None`` values so optional params are simply omitted."""
    return {k: v for k, v in params.items() if v is not None}


def _match(substring: str | None, regex: str | None) -> dict[str, str]:
    if (substring is None) == (regex is None):
        raise ValueError("give exactly one of substring= or regex=")
    if regex is not None:
        return {"type": "regex", "value": regex}
    assert substring is not None
    return {"type": "substring", "value": substring}


def _require_protocol(path: Path, pong: Result) -> None:
    protocol = pong.get("protocol")
    if protocol != PROTOCOL_VERSION:
        raise HerdrError(
            "protocol_mismatch",
            f"the server at {path} speaks protocol {protocol}, this client speaks "
            f"{PROTOCOL_VERSION}; run `herdr server stop`, then start it again",
        )


class _Methods:
    """Typed convenience wrappers shared by both clients (they only build params)."""

    def _invoke(self, method: str, params: Params, timeout: float | None = None) -> Any:
        raise NotImplementedError

    # server
    def ping(self) -> Any:
        return self._invoke("ping", {})

    def server_stop(self) -> Any:
        return self._invoke("server.stop", {})

    def session_snapshot(self) -> Any:
        return self._invoke("session.snapshot", {})

    # workspaces
    def workspace_list(self) -> Any:
        return self._invoke("workspace.list", {})

    def workspace_create(
        self,
        *,
        cwd: str | None = None,
        label: str | None = None,
        env: Mapping[str, str] | None = None,
        focus: bool = False,
    ) -> Any:
        params = _clean({"cwd": cwd, "label": label, "env": dict(env) if env else None})
        return self._invoke("workspace.create", {**params, "focus": focus})

    def workspace_get(self, workspace_id: str) -> Any:
        return self._invoke("workspace.get", {"workspace_id": workspace_id})

    def workspace_focus(self, workspace_id: str) -> Any:
        return self._invoke("workspace.focus", {"workspace_id": workspace_id})

    def workspace_rename(self, workspace_id: str, label: str) -> Any:
        return self._invoke("workspace.rename", {"workspace_id": workspace_id, "label": label})

    def workspace_close(self, workspace_id: str) -> Any:
        return self._invoke("workspace.close", {"workspace_id": workspace_id})

    # tabs
    def tab_list(self, workspace_id: str | None = None) -> Any:
        return self._invoke("tab.list", _clean({"workspace_id": workspace_id}))

    def tab_create(
        self,
        *,
        workspace_id: str | None = None,
        cwd: str | None = None,
        label: str | None = None,
        env: Mapping[str, str] | None = None,
        focus: bool = False,
    ) -> Any:
        params = _clean(
            {"workspace_id": workspace_id, "cwd": cwd, "label": label, "env": env and dict(env)}
        )
        return self._invoke("tab.create", {**params, "focus": focus})

    def tab_get(self, tab_id: str) -> Any:
        return self._invoke("tab.get", {"tab_id": tab_id})

    def tab_focus(self, tab_id: str) -> Any:
        return self._invoke("tab.focus", {"tab_id": tab_id})

    def tab_rename(self, tab_id: str, label: str) -> Any:
        return self._invoke("tab.rename", {"tab_id": tab_id, "label": label})

    def tab_close(self, tab_id: str) -> Any:
        return self._invoke("tab.close", {"tab_id": tab_id})

    # panes
    def pane_list(self, workspace_id: str | None = None) -> Any:
        return self._invoke("pane.list", _clean({"workspace_id": workspace_id}))

    def pane_get(self, pane_id: str) -> Any:
        return self._invoke("pane.get", {"pane_id": pane_id})

    def pane_split(
        self,
        pane_id: str | None = None,
        *,
        direction: str = "right",
        ratio: float | None = None,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        focus: bool = False,
    ) -> Any:
        params = _clean(
            {"target_pane_id": pane_id, "ratio": ratio, "cwd": cwd, "env": env and dict(env)}
        )
        return self._invoke("pane.split", {**params, "direction": direction, "focus": focus})

    def pane_close(self, pane_id: str) -> Any:
        return self._invoke("pane.close", {"pane_id": pane_id})

    def pane_layout(self, pane_id: str | None = None) -> Any:
        return self._invoke("pane.layout", _clean({"pane_id": pane_id}))

    def pane_send_text(self, pane_id: str, text: str) -> Any:
        return self._invoke("pane.send_text", {"pane_id": pane_id, "text": text})

    def pane_send_keys(self, pane_id: str, keys: Sequence[str]) -> Any:
        return self._invoke("pane.send_keys", {"pane_id": pane_id, "keys": list(keys)})

    def pane_run(self, pane_id: str, command: str) -> Any:
        params = {"pane_id": pane_id, "text": command, "keys": ["Enter"]}
        return self._invoke("pane.send_input", params)

    def pane_read(
        self,
        pane_id: str,
        *,
        source: str = "visible",
        lines: int | None = None,
        format: str = "text",
    ) -> Any:
        params = _clean({"pane_id": pane_id, "source": source, "lines": lines, "format": format})
        return self._invoke("pane.read", params)

    def pane_wait_for_output(
        self,
        pane_id: str,
        *,
        substring: str | None = None,
        regex: str | None = None,
        source: str = "recent",
        lines: int | None = None,
        timeout_ms: int | None = None,
    ) -> Any:
        params = _clean(
            {
                "pane_id": pane_id,
                "source": source,
                "lines": lines,
                "timeout_ms": timeout_ms,
                "match": _match(substring, regex),
            }
        )
        return self._invoke("pane.wait_for_output", params, timeout=None)

    # agents
    def agent_list(self) -> Any:
        return self._invoke("agent.list", {})

    def agent_get(self, target: str) -> Any:
        return self._invoke("agent.get", {"target": target})

    # events
    def wait_event(
        self,
        match_event: Mapping[str, Any],
        *,
        timeout_ms: int | None = None,
        since_seq: int | None = None,
    ) -> Any:
        params = _clean(
            {"match_event": dict(match_event), "timeout_ms": timeout_ms, "since_seq": since_seq}
        )
        return self._invoke("events.wait", params, timeout=None)


class Client(_Methods):
    """Blocking client. ``call`` returns the ``result`` object or raises HerdrError."""

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        session: str | None = None,
        timeout: float | None = 30.0,
        machine: str | None = None,
    ) -> None:
        """``machine`` (a saved machine's name or an ssh target) sends every call over
        ssh to that machine's ``herdr api proxy`` and ``session`` names its session
        there (``socket_path`` is then unused)."""
        self.socket_path = (
            Path(socket_path) if socket_path is not None else default_socket_path(session)
        )
        self.timeout = timeout
        self.machine = machine
        self._session = session
        self._counter = 0
        self._protocol_checked = False

    def _next_id(self, method: str) -> str:
        self._counter += 1
        return f"py:{os.getpid()}:{self._counter}:{method}"

    def _connect_machine(self) -> socket.socket:
        """A stream over ssh (one shared ControlMaster per machine) to its server."""
        from herdr.remote import ssh_stream

        assert self.machine is not None
        try:
            fd, proc, label = ssh_stream.stream(self.machine, self._session, os.environ)
        except ssh_stream.MachineError as exc:
            raise HerdrError(exc.code, exc.message) from None
        sock = _MachineSocket(fileno=fd)
        sock.proc, sock.label = proc, label
        sock.route = (self.machine, self._session) if proc is None else None
        return sock

    def _connect(self, retries: Iterator[float] | None = None) -> socket.socket:
        """A socket to our (or root's) server; a full backlog is retried for ~1 s."""
        if self.machine is not None:
            return self._connect_machine()
        retries = iter(_RETRY_DELAYS_S) if retries is None else retries
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(5.0)
            try:
                sock.connect(str(self.socket_path))
            except BlockingIOError:  # EAGAIN: the listen backlog is full
                sock.close()
                delay = next(retries, None)
                if delay is None:
                    raise HerdrError(
                        "too_many_connections", f"the server at {self.socket_path} is too busy"
                    ) from None
                time.sleep(delay)
                continue
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                raise ServerNotRunning(self.socket_path) from None
            except OSError as exc:
                sock.close()
                raise ServerNotRunning(self.socket_path, f" ({exc})") from None
            try:
                _check_server(sock, self.socket_path)
            except BaseException:
                sock.close()
                raise
            return sock

    def _exchange(
        self, line: bytes, timeout: float | None
    ) -> tuple[socket.socket, _LineReader, dict[str, Any]]:
        """Connect, send ``line``, read the first answer (retrying a busy refusal)."""
        retries = iter(_RETRY_DELAYS_S)
        while True:
            sock = self._connect(retries)
            try:
                with contextlib.suppress(OSError):  # refused and closed before we sent:
                    sock.sendall(line)  # its one line is still there to read
                sock.settimeout(timeout)
                reader = _LineReader(sock)
                machine = isinstance(sock, _MachineSocket)
                try:
                    first = reader.readline()
                except ConnectionResetError:  # ssh exited before reading what we sent
                    if not machine:
                        raise
                    first = b""
                if not first and isinstance(sock, _MachineSocket):
                    reason = sock.eof_reason()
                    raise HerdrError(sock.eof_code, reason)
                envelope = _decode(first)
            except BaseException:
                sock.close()
                raise
            delay = next(retries, None) if _busy_refusal(envelope) else None
            if delay is None:
                return sock, reader, envelope
            sock.close()
            time.sleep(delay)

    def call(self, method: str, /, **params: Any) -> Result:
        """``client.call("pane.get", pane_id="w1:p1")`` → the result object."""
        return self.request(method, params)

    def request(
        self, method: str, params: Mapping[str, Any], timeout: float | None = _DEFAULT_TIMEOUT
    ) -> Result:
        self._check_once(method)
        line = _request_line(self._next_id(method), method, params)
        limit = self.timeout if timeout == _DEFAULT_TIMEOUT else timeout
        try:
            sock, _reader, envelope = self._exchange(line, limit)
        except TimeoutError:
            raise HerdrError("timeout", f"no answer to {method}") from None
        sock.close()
        return _result(envelope)

    def _invoke(
        self, method: str, params: Params, timeout: float | None = _DEFAULT_TIMEOUT
    ) -> Result:
        return self.request(method, params, timeout=timeout)

    def check_protocol(self) -> Result:
        """Ping; the pong, or ``protocol_mismatch`` for a server of another protocol."""
        pong = self.request("ping", {})
        _require_protocol(self.socket_path, pong)
        self._protocol_checked = True
        return pong

    def _check_once(self, method: str) -> None:
        """The first request of a client pings first, so an old server is refused clearly."""
        if not self._protocol_checked and method != "ping":
            self.check_protocol()

    def events(
        self, subscriptions: Sequence[Mapping[str, Any]], since_seq: int | None = None
    ) -> Subscription:
        """Subscribe; iterate the returned object for ``{"event","data","seq"}`` dicts."""
        self._check_once("events.subscribe")
        params = _clean({"subscriptions": [dict(s) for s in subscriptions], "since_seq": since_seq})
        line = _request_line(self._next_id("events.subscribe"), "events.subscribe", params)
        sock, reader, envelope = self._exchange(line, None)
        try:
            started = _result(envelope)
        except BaseException:
            sock.close()
            raise
        return Subscription(sock, reader, started)


class _MachineSocket(socket.socket):
    """A stream-local forward's connection, or a ``socketpair`` end whose peer is ``ssh
    ... herdr api proxy`` (reaped on close)."""

    proc: Any = None
    label = ""
    route: tuple[str, str | None] | None = None
    route_env: Any = None  # the environment to diagnose with (None: os.environ)
    stderr: int | None = None
    eof_code = "machine_unreachable"

    def close(self) -> None:
        super().close()
        if self.proc is not None:
            from herdr.remote.ssh_stream import reap

            reap(self.proc)

    def eof_reason(self) -> str:
        from herdr.remote.ssh_stream import Reaping

        return Reaping.eof_reason(self)  # type: ignore[arg-type]


class _LineReader:
    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buf = bytearray()

    def readline(self) -> bytes:
        while b"\n" not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                line = bytes(self._buf)
                self._buf.clear()
                return line
            self._buf += chunk
            if len(self._buf) > _MAX_LINE:
                raise HerdrError("internal_error", "line too long")
        line, _, rest = bytes(self._buf).partition(b"\n")
        self._buf[:] = rest
        return line


class Subscription:
    """A live event stream; iterate it, ``close()`` it (or use ``with``)."""

    def __init__(self, sock: socket.socket, reader: _LineReader, started: Result) -> None:
        self._sock = sock
        self._reader = reader
        self.started = started
        self.last_seq: int | None = started.get("last_seq")

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self

    def __next__(self) -> dict[str, Any]:
        try:
            line = self._reader.readline()
        except OSError:
            line = b""
        if not line:
            self.close()
            raise StopIteration
        event = _decode(line)
        seq = event.get("seq")
        if isinstance(seq, int):
            self.last_seq = seq
        return event

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_Methods):
    """asyncio client; every method is a coroutine returning the ``result`` object."""

    def __init__(
        self,
        socket_path: str | os.PathLike[str] | None = None,
        *,
        session: str | None = None,
        timeout: float | None = 30.0,
        machine: str | None = None,
    ) -> None:
        """``machine``: as for :class:`Client`, every call goes over ssh to it."""
        self.socket_path = (
            Path(socket_path) if socket_path is not None else default_socket_path(session)
        )
        self.timeout = timeout
        self.machine = machine
        self._session = session
        self._ssh: dict[int, Any] = {}  # id(writer) -> the ssh serving that stream
        self._counter = 0
        self._protocol_checked = False

    def _next_id(self, method: str) -> str:
        self._counter += 1
        return f"py:{os.getpid()}:{self._counter}:{method}"

    async def _open_machine(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A stream over ssh to the machine's server (finished ssh processes are reaped)."""
        import asyncio

        from herdr.remote import ssh_stream

        assert self.machine is not None
        for key, proc in list(self._ssh.items()):
            if proc.poll() is not None:
                del self._ssh[key]
        try:
            fd, proc, _label = await asyncio.to_thread(
                ssh_stream.stream, self.machine, self._session, os.environ
            )
        except ssh_stream.MachineError as exc:
            raise HerdrError(exc.code, exc.message) from None
        reader, writer = await asyncio.open_unix_connection(
            sock=socket.socket(fileno=fd), limit=_MAX_LINE
        )
        if proc is not None:
            self._ssh[id(writer)] = proc
        return reader, writer

    async def _open(
        self, retries: Iterator[float]
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection to our (or root's) server; a full backlog is retried for ~1 s."""
        import asyncio

        if self.machine is not None:
            return await self._open_machine()
        while True:
            try:
                reader, writer = await asyncio.open_unix_connection(
                    str(self.socket_path), limit=_MAX_LINE
                )
            except BlockingIOError:  # EAGAIN: the listen backlog is full (uvloop)
                await self._backoff(retries)
                continue
            except (FileNotFoundError, ConnectionRefusedError):
                raise ServerNotRunning(self.socket_path) from None
            sock = writer.get_extra_info("socket")
            try:
                # asyncio's selector loop takes EAGAIN for "in progress" and hands back
                # a socket that never connected: no peer name, so the backlog was full
                sock.getpeername()
            except OSError:
                writer.close()
                await self._backoff(retries)
                continue
            try:
                _check_server(sock, self.socket_path)
            except BaseException:
                writer.close()
                raise
            return reader, writer

    async def _backoff(self, retries: Iterator[float]) -> None:
        import asyncio

        delay = next(retries, None)
        if delay is None:
            raise HerdrError(
                "too_many_connections", f"the server at {self.socket_path} is too busy"
            )
        await asyncio.sleep(delay)

    async def _exchange(
        self, line: bytes, timeout: float | None
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, dict[str, Any]]:
        """Connect, send ``line``, read the first answer (retrying a busy refusal)."""
        import asyncio

        retries = iter(_RETRY_DELAYS_S)
        while True:
            reader, writer = await self._open(retries)
            try:
                writer.write(line)
                with contextlib.suppress(OSError):  # refused and closed before we sent:
                    await writer.drain()  # its one line is still there to read
                proc = self._ssh.get(id(writer))
                try:
                    answer = await asyncio.wait_for(reader.readline(), timeout)
                except (ConnectionResetError, BrokenPipeError):  # closed before it read ours
                    if self.machine is None:
                        raise
                    answer = b""
                if not answer and self.machine is not None:
                    from herdr.remote.ssh_stream import diagnose, reap

                    if proc is None:  # a forwarded stream: the remote proxy says why
                        code, message = await asyncio.to_thread(
                            diagnose, self.machine, self._session, os.environ
                        )
                        raise HerdrError(code, message)
                    status = await asyncio.to_thread(reap, proc)
                    raise HerdrError(
                        "machine_unreachable",
                        f"the connection to {self.machine} closed (ssh exit {status})",
                    )
                envelope = _decode(answer.rstrip(b"\n"))
            except BaseException:
                writer.close()
                raise
            if not _busy_refusal(envelope):
                return reader, writer, envelope
            writer.close()
            await self._backoff(retries)

    async def call(self, method: str, /, **params: Any) -> Result:
        return await self.request(method, params)

    async def request(
        self, method: str, params: Mapping[str, Any], timeout: float | None = _DEFAULT_TIMEOUT
    ) -> Result:
        await self._check_once(method)
        line = _request_line(self._next_id(method), method, params)
        limit = self.timeout if timeout == _DEFAULT_TIMEOUT else timeout
        try:
            _reader, writer, envelope = await self._exchange(line, limit)
        except TimeoutError:
            raise HerdrError("timeout", f"no answer to {method}") from None
        writer.close()
        return _result(envelope)

    def _invoke(self, method: str, params: Params, timeout: float | None = _DEFAULT_TIMEOUT) -> Any:
        return self.request(method, params, timeout=timeout)

    async def check_protocol(self) -> Result:
        """Ping; the pong, or ``protocol_mismatch`` for a server of another protocol."""
        pong = await self.request("ping", {})
        _require_protocol(self.socket_path, pong)
        self._protocol_checked = True
        return pong

    async def _check_once(self, method: str) -> None:
        if not self._protocol_checked and method != "ping":
            await self.check_protocol()

    async def events(
        self, subscriptions: Sequence[Mapping[str, Any]], since_seq: int | None = None
    ) -> AsyncSubscription:
        """``async for event in await client.events([...])``."""
        await self._check_once("events.subscribe")
        params = _clean({"subscriptions": [dict(s) for s in subscriptions], "since_seq": since_seq})
        line = _request_line(self._next_id("events.subscribe"), "events.subscribe", params)
        reader, writer, envelope = await self._exchange(line, None)
        try:
            started = _result(envelope)
        except BaseException:
            writer.close()
            raise
        return AsyncSubscription(reader, writer, started)


class AsyncSubscription:
    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, started: Result
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.started = started
        self.last_seq: int | None = started.get("last_seq")

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self

    async def __anext__(self) -> dict[str, Any]:
        try:
            line = await self._reader.readline()
        except OSError:
            line = b""
        if not line:
            self.close()
            raise StopAsyncIteration
        event = _decode(line.rstrip(b"\n"))
        seq = event.get("seq")
        if isinstance(seq, int):
            self.last_seq = seq
        return event

    def close(self) -> None:
        self._writer.close()

    async def __aenter__(self) -> AsyncSubscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
