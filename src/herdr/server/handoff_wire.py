"""Frames on the live-handoff socketpair: a JSON header, an optional body, maybe fds.

Blocking, stdlib only: the old server runs its side in a worker thread, the new one
before it serves anything. A frame is two big-endian u32 lengths (header, body), the
header (JSON object with a ``kind``), then the body; descriptors travel as
``SCM_RIGHTS`` on the frame's first bytes, at most `MAX_FDS` a frame. Every frame is
answered before the next is sent, so a frame's descriptors are never mixed with the
next one's. A closed peer or a silent one past the deadline is a `HandoffWireError`.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import time
from typing import Any

MAX_FDS = 200  # per sendmsg: well under the kernel's SCM_MAX_FD (253)
MAX_HEADER = 1 << 20
MAX_BODY = 1 << 31
_PREFIX = struct.Struct(">II")


class HandoffWireError(Exception):
    """The other side closed, went silent, or sent something that is not a frame."""


def send_frame(
    sock: socket.socket,
    header: dict[str, Any],
    body: bytes = b"",
    fds: list[int] | tuple[int, ...] = (),
) -> None:
    if len(fds) > MAX_FDS:
        raise ValueError(f"at most {MAX_FDS} descriptors a frame")
    head = json.dumps(header, separators=(",", ":")).encode()
    first = _PREFIX.pack(len(head), len(body)) + head
    try:
        sent = socket.send_fds(sock, [first], list(fds)) if fds else sock.send(first)
        rest = first[sent:] + body
        if rest:  # sendall(b"") still writes: EPIPE once a fast peer answered and closed
            sock.sendall(rest)
    except OSError as err:
        raise HandoffWireError(f"cannot write to the other server: {err}") from err


def _recv_exact(sock: socket.socket, size: int, deadline: float) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            chunk = sock.recv(min(left, 1 << 20))
        except TimeoutError:
            raise HandoffWireError("the other server went silent") from None
        except OSError as err:
            raise HandoffWireError(f"cannot read from the other server: {err}") from err
        if not chunk:
            raise HandoffWireError("the other server closed the handoff channel")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def recv_frame(sock: socket.socket, timeout: float) -> tuple[dict[str, Any], bytes, list[int]]:
    """(header, body, descriptors) of the next frame, within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    sock.settimeout(max(0.001, timeout))
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, _PREFIX.size, MAX_FDS)
    except TimeoutError:
        raise HandoffWireError("the other server went silent") from None
    except OSError as err:
        raise HandoffWireError(f"cannot read from the other server: {err}") from err
    try:
        if not data:
            raise HandoffWireError("the other server closed the handoff channel")
        if len(data) < _PREFIX.size:
            data += _recv_exact(sock, _PREFIX.size - len(data), deadline)
        head_len, body_len = _PREFIX.unpack(data)
        if head_len > MAX_HEADER or body_len > MAX_BODY:
            raise HandoffWireError("the other server sent an oversized frame")
        head = _recv_exact(sock, head_len, deadline)
        body = _recv_exact(sock, body_len, deadline) if body_len else b""
        try:
            header = json.loads(head)
        except ValueError:
            raise HandoffWireError("the other server sent a frame that is not JSON") from None
        if not isinstance(header, dict) or not isinstance(header.get("kind"), str):
            raise HandoffWireError("the other server sent a frame without a kind")
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return header, body, list(fds)


def expect(
    sock: socket.socket, kind: str, timeout: float
) -> tuple[dict[str, Any], bytes, list[int]]:
    """The next frame, which must be ``kind`` (an ``error`` frame's message is raised)."""
    header, body, fds = recv_frame(sock, timeout)
    if header["kind"] != kind:
        for fd in fds:
            os.close(fd)
        if header["kind"] == "error":
            raise HandoffWireError(str(header.get("message", "the other server failed")))
        raise HandoffWireError(f"expected {kind!r} from the other server, got {header['kind']!r}")
    return header, body, fds
