"""Who is at the other end of a Unix socket (``SO_PEERCRED``), for both directions.

The server answers only clients of its own uid (root excepted), and every client
(CLI, SDK, TUI) checks the server's uid right after connecting, before it sends
anything: another local user who binds a socket where ours should be (a squatter in a
shared directory) learns nothing and gets nothing. The kernel fills the credentials
in at ``connect()``/``listen()`` time, so they cannot be forged by the peer.

Imports only ``_socket`` and ``sys``: the CLI fast path uses this module, and the
``socket`` and ``struct`` modules cost it milliseconds (see :mod:`herdr.cli.transport`).
"""

from __future__ import annotations

import _socket
import os
import sys

TYPE_CHECKING = False  # typing is not imported at run time: the CLI path uses this module
if TYPE_CHECKING:
    from typing import Protocol

    class SockOpt(Protocol):
        """What we need of a socket: ``socket.socket``, ``_socket.socket``, uvloop's
        pseudo-socket and asyncio's ``TransportSocket`` all have it."""

        def getsockopt(self, level: int, optname: int, buflen: int, /) -> bytes: ...


# struct ucred {pid_t pid; uid_t uid; gid_t gid;}: three 32-bit ints in host order.
_UCRED_SIZE = 12
_SO_PEERCRED: int | None = getattr(_socket, "SO_PEERCRED", None)

SUPPORTED = _SO_PEERCRED is not None
"""Whether this platform can tell (Linux); elsewhere both checks are skipped."""


def peer_credentials(sock: SockOpt) -> tuple[int, int, int] | None:
    """``(pid, uid, gid)`` of the peer, or ``None`` where the platform cannot tell.

    Raises :class:`OSError` if the kernel refuses (callers treat that as untrusted).
    """
    if _SO_PEERCRED is None:
        return None
    raw = sock.getsockopt(_socket.SOL_SOCKET, _SO_PEERCRED, _UCRED_SIZE)
    if len(raw) < _UCRED_SIZE:
        raise OSError(f"SO_PEERCRED returned {len(raw)} bytes")
    order = sys.byteorder
    return (
        int.from_bytes(raw[0:4], order, signed=True),
        int.from_bytes(raw[4:8], order),
        int.from_bytes(raw[8:12], order),
    )


def trusted(uid: int, own_uid: int) -> bool:
    """Our own uid, or root (root may talk to anyone's server and run anyone's)."""
    return uid in (own_uid, 0)


def untrusted_server_uid(sock: SockOpt) -> int | None:
    """The server's uid when it is neither ours nor root, else ``None``.

    ``-1`` when the credentials cannot be read at all (fail closed).
    """
    try:
        creds = peer_credentials(sock)
    except OSError:
        return -1
    if creds is None or trusted(creds[1], os.geteuid()):
        return None
    return creds[1]


def untrusted_message(path: object, uid: int) -> str:
    """The one clear line every client prints for a foreign server."""
    who = "an unknown user" if uid < 0 else f"uid {uid}"
    return (
        f"refusing the server at {path}: it runs as {who}, not as you (uid {os.geteuid()})"
        " or root; another user may be squatting on the socket, so nothing was sent"
    )
