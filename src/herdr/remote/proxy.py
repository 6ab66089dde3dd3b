"""``herdr api proxy``: the remote end of ``--machine`` and ``--remote``.

Relays stdin to the session's server socket and the socket's bytes to stdout, in
chunks of at most 64 KiB, each written out in full before the next is read (so memory
stays bounded and a slow reader slows the server's stream instead of filling ours).
It starts nothing: with no server, it answers one error line in the API's envelope
(``id: null``) and exits 1. ``--expect-protocol N`` pings the server first (over the
local socket, cheap) and refuses a server of another protocol the same way, so the
client on the other end does not pay for a second ssh round trip to ping. End of
stdin is passed on as a half-close.
"""

from __future__ import annotations

import os
import select

from herdr.cli import jsonlite
from herdr.cli.transport import RequestFailed, connect, request, socket_path_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket
    import argparse

CHUNK = 64 * 1024
STDIN, STDOUT = 0, 1


def run_proxy(args: argparse.Namespace) -> int:
    return proxy(socket_path_for(args), getattr(args, "expect_protocol", None))


def proxy(path: str, expect_protocol: int | None) -> int:
    try:
        if expect_protocol is not None:
            _check(path, expect_protocol)
        sock = connect(path, timeout=5.0)
    except RequestFailed as exc:
        error = {"id": None, "error": {"code": exc.code, "message": exc.message}}
        _write_all(STDOUT, (jsonlite.dumps_compact(error) + "\n").encode())
        return 1
    try:
        relay(sock)
    except (BrokenPipeError, ConnectionResetError):
        return 0
    finally:
        sock.close()
    return 0


def _check(path: str, expected: int) -> None:
    result = request(path, "ping", {}, timeout=5.0).get("result")
    protocol = result.get("protocol") if isinstance(result, dict) else None
    if protocol != expected:
        raise RequestFailed(
            "protocol_mismatch",
            f"the server at {path} speaks protocol {protocol}, the client speaks {expected}",
        )


def run_fast(argv: list[str]) -> int | None:
    """``api proxy [--session N] [--expect-protocol N]`` without argparse (it runs on
    every remote call); anything else is left to argparse."""
    values: dict[str, str] = {}
    args = iter(argv)
    for arg in args:
        value = next(args, None)
        if arg not in ("--session", "--expect-protocol") or value is None:
            return None
        values[arg] = value
    expected = values.get("--expect-protocol")
    if expected is not None and not expected.isdigit():
        return None
    from herdr.config import paths

    try:
        path = paths.active_socket_path(os.environ, values.get("--session"))
    except ValueError:
        return None
    return proxy(path, int(expected) if expected is not None else None)


def relay(sock: _socket.socket) -> None:
    """Copy both ways until the server closes (or our stdout goes away)."""
    sock.settimeout(None)
    poller = select.poll()
    poller.register(STDIN, select.POLLIN)
    poller.register(sock.fileno(), select.POLLIN)
    while True:
        for fd, _events in poller.poll():
            if fd == STDIN:
                data = os.read(STDIN, CHUNK)
                if data:
                    sock.sendall(data)
                else:
                    poller.unregister(STDIN)
                    sock.shutdown(1)  # SHUT_WR: the client is done sending
            else:
                data = sock.recv(CHUNK)
                if not data:
                    return
                _write_all(STDOUT, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
