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
import os
import sys

from herdr import PROTOCOL_VERSION
from herdr.cli import envpaths, jsonlite

TYPE_CHECKING = False  # typing is not imported at run time: it costs every CLI call
if TYPE_CHECKING:
    import argparse
    from typing import Any, NoReturn

MAX_RESPONSE_BYTES = 64 * 1024 * 1024
MAX_SOCKET_PATH_BYTES = 107


class RequestFailed(Exception):
    """The server answered with an error envelope, or could not be reached."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def socket_path_for(args: argparse.Namespace) -> str:
    """``--session`` > ``$HERDR_SOCKET_PATH`` > ``$HERDR_SESSION`` > default."""
    return envpaths.socket_path(os.environ, getattr(args, "session", None))


def request_id(method: str) -> str:
    return f"cli:{method}"


def connect(path: str, *, timeout: float = 5.0) -> _socket.socket:
    """A connected socket, or :class:`RequestFailed` ``server_not_running``."""
    if len(os.fsencode(path)) > MAX_SOCKET_PATH_BYTES:
        raise RequestFailed("invalid_params", f"socket path is too long: {path}")
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        sock.close()
        raise RequestFailed("server_not_running", f"no herdr server is running at {path}") from None
    except OSError as exc:
        sock.close()
        raise RequestFailed("server_not_running", f"cannot connect to {path}: {exc}") from None
    return sock


def is_live(path: str, timeout: float = 0.5) -> bool:
    """Whether a server accepts connections at ``path``."""
    try:
        connect(path, timeout=timeout).close()
    except RequestFailed:
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
    path: str, method: str, params: dict[str, Any], *, timeout: float | None = 30.0
) -> dict[str, Any]:
    """Send one request and return the response envelope (success or error)."""
    sock = connect(path)
    try:
        sock.sendall(encode_request(method, params))
        sock.settimeout(timeout)
        line = read_line(sock, method, bytearray())
    finally:
        sock.close()
    return decode(line, method)


def check_protocol(path: str) -> dict[str, Any]:
    """Ping; return the pong, or raise ``protocol_mismatch`` for an incompatible server."""
    envelope = request(path, "ping", {}, timeout=5.0)
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
    try:
        if ping_first and method != "ping":
            check_protocol(path)
        envelope = request(path, method, params, timeout=timeout)
    except RequestFailed as exc:
        fail(exc.code, exc.message, request_id(method))
    error = envelope.get("error")
    if isinstance(error, dict):
        sys.stderr.write(jsonlite.dumps(envelope) + "\n")
        raise SystemExit(1)
    return envelope


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
    if not silent:
        print_json(envelope)
    return 0
