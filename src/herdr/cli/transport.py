"""One request per connection to the session socket, for the CLI.

Blocking stdlib socket + json only: the CLI never imports asyncio or orjson. Errors
come back as the spec's envelope on stderr with exit code 1.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any, NoReturn

from herdr.config.paths import resolve_socket_path, socket_path_too_long

MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class RequestFailed(Exception):
    """The server answered with an error envelope, or could not be reached."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def socket_path_for(args: argparse.Namespace) -> Path:
    return resolve_socket_path(os.environ, getattr(args, "session", None))


def _request_id(method: str) -> str:
    return f"cli:{method}:{os.getpid()}"


def request(
    path: Path, method: str, params: dict[str, Any], *, timeout: float | None = 30.0
) -> dict[str, Any]:
    """Send one request and return the response envelope (success or error)."""
    if socket_path_too_long(path):
        raise RequestFailed("invalid_params", f"socket path is too long: {path}")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(5.0)
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError):
            raise RequestFailed(
                "server_not_running", f"no herdr server is listening on {path}"
            ) from None
        except OSError as exc:
            raise RequestFailed("server_not_running", f"cannot connect to {path}: {exc}") from None
        line = json.dumps(
            {"id": _request_id(method), "method": method, "params": params},
            ensure_ascii=False,
            separators=(",", ":"),
        )
        sock.sendall(line.encode("utf-8") + b"\n")
        sock.settimeout(timeout)
        buf = bytearray()
        while b"\n" not in buf:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                raise RequestFailed("timeout", f"no answer to {method} from the server") from None
            if not chunk:
                break
            buf += chunk
            if len(buf) > MAX_RESPONSE_BYTES:
                raise RequestFailed("internal_error", "response too large")
    finally:
        sock.close()
    text = bytes(buf).split(b"\n", 1)[0]
    if not text:
        raise RequestFailed("internal_error", f"the server closed the connection during {method}")
    try:
        envelope = json.loads(text)
    except ValueError as exc:
        raise RequestFailed("internal_error", f"unreadable response: {exc}") from None
    if not isinstance(envelope, dict):
        raise RequestFailed("internal_error", "response is not a JSON object")
    return envelope


def fail(code: str, message: str, request_id: str = "") -> NoReturn:
    """Print the error envelope on stderr and exit 1."""
    doc = {"id": request_id, "error": {"code": code, "message": message}}
    sys.stderr.write(json.dumps(doc, ensure_ascii=False) + "\n")
    raise SystemExit(1)


def request_or_exit(
    args: argparse.Namespace,
    method: str,
    params: dict[str, Any],
    *,
    timeout: float | None = 30.0,
) -> dict[str, Any]:
    """Return a success envelope, or report the error the spec's way and exit 1."""
    try:
        envelope = request(socket_path_for(args), method, params, timeout=timeout)
    except RequestFailed as exc:
        fail(exc.code, exc.message)
    error = envelope.get("error")
    if isinstance(error, dict):
        sys.stderr.write(json.dumps(envelope, ensure_ascii=False) + "\n")
        raise SystemExit(1)
    return envelope
