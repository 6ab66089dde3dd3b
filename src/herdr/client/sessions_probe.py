"""The other sessions for the navigator: found as ``herdr session list`` finds them,
read with ``session.snapshot`` (I/O, async, off the input path).

Each probe is short (:data:`TIMEOUT_S`) and runs beside the others; a socket is asked
only when it is a socket owned by us (or root) and its peer passes the uid check
(:func:`herdr.client.connection.check_server`), so another user's socket in our config
dir is never talked to. A session that cannot be read is listed with the reason.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Mapping, Sequence

from herdr import PROTOCOL_VERSION
from herdr.client.connection import Connection, UntrustedServer
from herdr.client.navigator import OtherSession
from herdr.config import paths

TIMEOUT_S = 0.75


def session_names(entries: Sequence[str]) -> list[str]:
    """Named sessions among the entries of the sessions dir (PURE), sorted."""
    return sorted(
        e for e in entries if e != paths.DEFAULT_SESSION and paths.is_valid_session_name(e)
    )


def candidates(env: Mapping[str, str], current_socket: str) -> list[tuple[str, str]]:
    """(name, socket path) of every session but the one at ``current_socket``."""
    root = paths.sessions_root(env)
    try:
        named = [n for n in session_names(os.listdir(root)) if os.path.isdir(os.path.join(root, n))]
    except OSError:
        named = []
    here = os.path.realpath(current_socket)
    out = []
    for name in [paths.DEFAULT_SESSION, *named]:
        path = paths.session_socket_path(env, None if name == paths.DEFAULT_SESSION else name)
        if os.path.realpath(path) != here:
            out.append((name, path))
    return out


async def probe_all(
    current_socket: str, env: Mapping[str, str] | None = None
) -> list[OtherSession]:
    """Every other session, each probed at once (the slowest one bounds the wait)."""
    found = candidates(os.environ if env is None else env, current_socket)
    return list(await asyncio.gather(*(probe(name, path) for name, path in found)))


async def probe(name: str, path: str, timeout: float = TIMEOUT_S) -> OtherSession:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return OtherSession(name)
    except OSError as exc:
        return OtherSession(name, note=f"unreadable: {exc.strerror}")
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid not in (os.getuid(), 0):
        return OtherSession(name, note="not our socket")
    try:
        envelope = await asyncio.wait_for(Connection(path).call("session.snapshot", {}), timeout)
    except UntrustedServer:
        return OtherSession(name, note="untrusted server")
    except (ConnectionRefusedError, FileNotFoundError):
        return OtherSession(name)  # a stale socket: the server is gone
    except TimeoutError:
        return OtherSession(name, note="not answering")
    except (OSError, ValueError) as exc:
        return OtherSession(name, note=f"unreachable: {exc}"[:80])
    result = envelope.get("result")
    snap = result.get("snapshot") if isinstance(result, dict) else None
    if not isinstance(snap, dict):
        error = envelope.get("error")
        message = error.get("message") if isinstance(error, dict) else "no snapshot"
        return OtherSession(name, note=f"error: {message}"[:80])
    if snap.get("protocol") != PROTOCOL_VERSION:
        return OtherSession(name, note=f"protocol {snap.get('protocol')}")
    return OtherSession(name, snap)
