"""One request per connection to the session socket, for the CLI.

Blocking ``_socket`` + ``_json`` only: the CLI never imports asyncio or orjson (nor the
``socket`` wrapper module, whose enum/selectors imports cost ~8 ms a call, nor ``json``,
whose ``re`` import costs as much; see :mod:`herdr.cli.jsonlite`). Errors
come back as the spec's envelope on stderr with exit code 1. Control commands never
start a server; they ping first so an incompatible server is reported as
``protocol_mismatch`` instead of failing in some confusing way.
"""

from __future__ import annotations

import _socket
import contextlib
import os
import sys
import time

from herdr import PROTOCOL_VERSION
from herdr.api import peercred
from herdr.cli import jsonlite
from herdr.config import paths

TYPE_CHECKING = False  # typing is not imported at run time: it costs every CLI call
if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator
    from typing import Any, NoReturn

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
MAX_SOCKET_PATH_BYTES = 107
# Waits before each retry while the server is busy (full backlog, or it answered
# too_many_connections before reading the request): about a second in all.
RETRY_DELAYS_S = (0.005, 0.01, 0.02, 0.04, 0.08, 0.12, 0.16, 0.2, 0.2, 0.2)
# ``--machine NAME|TARGET`` (set by herdr.cli.main): every exchange goes over ssh to
# that machine's ``herdr api proxy`` (herdr.remote.ssh_stream) instead of a local socket.
MACHINE: list[str | None] = [None]
MACHINE_PREFIX = "herdr-machine:"  # herdr.remote.ssh_stream.machine_path's stand-in path


class RequestFailed(Exception):
    """The server answered with an error envelope, or could not be reached."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def socket_path_for(args: argparse.Namespace) -> str:
    """``--session`` > ``$HERDR_SOCKET_PATH`` > ``$HERDR_SESSION`` > default.

    With ``--machine``, a stand-in naming the machine and the session (resolved there).
    """
    machine = MACHINE[0]
    if machine is not None:
        return f"{MACHINE_PREFIX}{getattr(args, 'session', None) or ''}\0{machine}"
    return paths.active_socket_path(os.environ, getattr(args, "session", None))


# The ids herdr spells its own way (the rest are ``cli:<noun>:<verb>`` as typed).
ODD_IDS = {"pane:process-info": "pane:process_info"}


def request_id(method: str, args: object = None) -> str:
    """herdr's ``cli:<noun>:<verb>`` for the command typed (``args``' noun and verb).

    Without a command (the pre-flight ping, the TUI's own calls) the method names it:
    ``workspace.create`` -> ``cli:workspace:create``.
    """
    words = [w for w in (getattr(args, "noun", None), getattr(args, "verb", None)) if w]
    key = ":".join(words) if words else method.replace(".", ":")
    return "cli:" + ODD_IDS.get(key, key)


def connect(
    path: str, *, timeout: float = 5.0, retries: Iterator[float] | None = None
) -> _socket.socket:
    """A connected socket to a server of ours (or root's), else :class:`RequestFailed`.

    No server (no socket file, or nobody listening: ECONNREFUSED) is reported at once as
    ``server_not_running``; a full listen backlog (EAGAIN: the server is busy) is
    retried along ``retries`` (about a second in all) before ``too_many_connections``.
    A server of another user is refused (``server_untrusted``) before anything is sent.
    """
    if path.startswith(MACHINE_PREFIX):
        return _connect_machine(path)
    if len(os.fsencode(path)) > MAX_SOCKET_PATH_BYTES:
        raise RequestFailed("invalid_params", f"socket path is too long: {path}")
    if retries is None:
        retries = iter(RETRY_DELAYS_S)
    while True:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except BlockingIOError:  # EAGAIN: the backlog is full, the server is there
            sock.close()
            if backoff(retries):
                continue
            raise RequestFailed(
                "too_many_connections", f"the server at {path} is too busy to accept"
            ) from None
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            raise RequestFailed(
                "server_not_running", f"no herdr server is running at {path}"
            ) from None
        except OSError as exc:
            sock.close()
            raise RequestFailed("server_not_running", f"cannot connect to {path}: {exc}") from None
        uid = peercred.untrusted_server_uid(sock)
        if uid is not None:
            sock.close()
            raise RequestFailed("server_untrusted", peercred.untrusted_message(path, uid))
        return sock


def _connect_machine(path: str) -> _socket.socket:
    """A stream over ssh to another machine's server (``--machine``)."""
    from herdr.remote import ssh_stream

    machine, session = ssh_stream.split_machine_path(path) or ("", None)
    try:
        return ssh_stream.open_machine(machine, session, os.environ)
    except ssh_stream.MachineError as exc:
        raise RequestFailed(exc.code, exc.message) from None


def backoff(retries: Iterator[float]) -> bool:
    """Sleep the next delay; False once the budget is spent."""
    delay = next(retries, None)
    if delay is None:
        return False
    time.sleep(delay)
    return True


def is_live(path: str, timeout: float = 0.5) -> bool:
    """Whether a server accepts connections at ``path``.

    A socket held by another user's server raises ``server_untrusted`` instead of
    counting as live (or as free to start our own).
    """
    try:
        connect(path, timeout=timeout).close()
    except RequestFailed as exc:
        if exc.code == "server_untrusted":
            raise
        return False
    return True


def encode_request(method: str, params: dict[str, Any], rid: str | None = None) -> bytes:
    doc = {"id": rid or request_id(method), "method": method, "params": params}
    return jsonlite.dumps_compact(doc).encode("utf-8") + b"\n"


def read_line(sock: _socket.socket, method: str, buf: bytearray) -> bytes:
    """One response line from ``sock`` (``buf`` keeps what follows it)."""
    while b"\n" not in buf:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            raise RequestFailed("timeout", f"no answer to {method} from the server") from None
        except OSError as exc:
            raise RequestFailed(
                "internal_error", f"connection failed during {method}: {exc}"
            ) from None
        if not chunk:
            break
        buf += chunk
        if len(buf) > MAX_RESPONSE_BYTES:
            raise RequestFailed("internal_error", "response too large")
    line, _, rest = bytes(buf).partition(b"\n")
    buf[:] = rest
    return line


def decode(line: bytes, method: str) -> dict[str, Any]:
    if not line:
        raise RequestFailed("internal_error", f"the server closed the connection during {method}")
    try:
        envelope = jsonlite.loads(line)
    except ValueError as exc:
        raise RequestFailed("internal_error", f"unreadable response: {exc}") from None
    if not isinstance(envelope, dict):
        raise RequestFailed("internal_error", "response is not a JSON object")
    return envelope


def request(
    path: str,
    method: str,
    params: dict[str, Any],
    *,
    timeout: float | None = 30.0,
    rid: str | None = None,
) -> dict[str, Any]:
    """Send one request and return the response envelope (success or error).

    A busy server's ``too_many_connections`` refusal (sent before it read anything, so
    nothing ran) is retried within the same budget as a full backlog, then raised.
    """
    data = encode_request(method, params, rid)
    retries = iter(RETRY_DELAYS_S)
    while True:
        sock = connect(path, retries=retries)
        try:
            with contextlib.suppress(OSError):  # refused and closed before we sent:
                sock.sendall(data)  # its one line is still there to read
            sock.settimeout(timeout)
            eof_reason = getattr(sock, "eof_reason", None)  # a --machine stream's ssh
            try:
                line = read_line(sock, method, bytearray())
            except RequestFailed as exc:
                if eof_reason is None or exc.code == "timeout":
                    raise
                line = b""  # ssh exited before reading what we sent (a reset)
            if not line and eof_reason is not None:
                reason = eof_reason()
                raise RequestFailed(getattr(sock, "eof_code", "machine_unreachable"), reason)
        finally:
            sock.close()
        envelope = decode(line, method)
        refusal = envelope.get("error")
        machine_refusal = path.startswith(MACHINE_PREFIX) and envelope.get("id") is None
        if machine_refusal and isinstance(refusal, dict) and not _busy_refusal(envelope):
            raise RequestFailed(str(refusal.get("code")), str(refusal.get("message")))
        busy = _busy_refusal(envelope)
        if busy is None:
            return envelope
        if not backoff(retries):
            raise RequestFailed("too_many_connections", busy)


def _busy_refusal(envelope: dict[str, Any]) -> str | None:
    """The message of a ``too_many_connections`` refusal (id null: nothing ran)."""
    error = envelope.get("error")
    if not isinstance(error, dict) or envelope.get("id") is not None:
        return None
    if error.get("code") != "too_many_connections":
        return None
    return str(error.get("message", "the server is busy"))


def check_protocol(path: str) -> dict[str, Any]:
    """Ping; return the pong, or raise ``protocol_mismatch`` for an incompatible server.

    A ``--machine`` stream's remote proxy does this check itself, on every stream.
    """
    if path.startswith(MACHINE_PREFIX):
        return {}
    envelope = request(path, "ping", {}, timeout=5.0)
    error = envelope.get("error")
    if isinstance(error, dict) and envelope.get("id") is None:  # a --machine proxy's refusal
        raise RequestFailed(str(error.get("code")), str(error.get("message")))
    result = envelope.get("result")
    protocol = result.get("protocol") if isinstance(result, dict) else None
    if protocol != PROTOCOL_VERSION:
        raise RequestFailed(
            "protocol_mismatch",
            f"the server at {path} speaks protocol {protocol}, this client speaks "
            f"{PROTOCOL_VERSION}; run `herdr server stop`, then start it again",
        )
    return result if isinstance(result, dict) else {}


def fail(code: str, message: str, rid: str = "") -> NoReturn:
    """Print the error envelope on stderr and exit 1."""
    doc = {"id": rid, "error": {"code": code, "message": message}}
    sys.stderr.write(jsonlite.dumps(doc) + "\n")
    raise SystemExit(1)


def request_or_exit(
    args: argparse.Namespace,
    method: str,
    params: dict[str, Any],
    *,
    timeout: float | None = 30.0,
    ping_first: bool = True,
) -> dict[str, Any]:
    """Return a success envelope, or report the error the spec's way and exit 1."""
    path = socket_path_for(args)
    rid = request_id(method, args)
    try:
        if ping_first and method != "ping":
            check_protocol(path)
        envelope = request(path, method, params, timeout=timeout, rid=rid)
    except RequestFailed as exc:
        fail(exc.code, exc.message, rid)
    error = envelope.get("error")
    if isinstance(error, dict):
        sys.stderr.write(jsonlite.dumps(envelope) + "\n")
        raise SystemExit(1)
    return envelope


# Printed as a table (herdr.cli.tables) when stdout is a TTY and --json was not given.
TABLE_METHODS = frozenset({"pane.list", "tab.list", "workspace.list", "agent.list"})


def print_json(doc: object) -> None:
    """One compact JSON line on stdout (what scripts pipe into ``jq``)."""
    sys.stdout.write(jsonlite.dumps_compact(doc) + "\n")


def call_and_print(
    args: argparse.Namespace,
    method: str,
    params: dict[str, Any],
    *,
    silent: bool = False,
    timeout: float | None = 30.0,
) -> int:
    """The common verb: request, print the full envelope (unless a silent verb), exit 0."""
    envelope = request_or_exit(args, method, params, timeout=timeout)
    if silent:
        return 0
    if method in TABLE_METHODS and not getattr(args, "json", False) and sys.stdout.isatty():
        from herdr.cli.tables import render  # a person at a terminal: a table

        table = render(method, envelope.get("result"), os.environ.get("HOME", ""))
        if table is not None:
            sys.stdout.write(table)
            return 0
    print_json(envelope)
    return 0
