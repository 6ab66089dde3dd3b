"""Claiming the socket path: private directory, one server per path, stale files.

A lock file next to the socket (held for the server's lifetime) makes "is another
server starting here?" race-free; a socket file nobody answers on is stale and is
replaced, a live one makes us refuse. Blocking stdlib only: this runs before the loop.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import stat
from pathlib import Path

from herdr.config.paths import MAX_SOCKET_PATH_BYTES, socket_path_too_long


class ClaimError(Exception):
    """The socket path cannot be used; the message says why and names the path."""


class AlreadyRunning(ClaimError):
    pass


def check_length(path: Path) -> None:
    if socket_path_too_long(path):
        size = len(os.fsencode(str(path)))
        raise ClaimError(
            f"socket path is too long ({size} bytes, the limit is {MAX_SOCKET_PATH_BYTES}): "
            f"{path}; use a shorter XDG_CONFIG_HOME or HERDR_SOCKET_PATH"
        )


def is_live(path: Path, timeout: float = 1.0) -> bool:
    """Whether something accepts connections on the socket at ``path``."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:
        return False
    finally:
        sock.close()
    return True


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def acquire_lock(path: Path) -> int:
    """Hold an exclusive lock for ``path``; raises :class:`AlreadyRunning` if taken.

    The lock file is never followed through a symlink and must be a regular file of
    ours (in a shared sticky directory somebody else may have created it first); it is
    truncated only once the lock is held, so a losing racer never wipes the winner's pid.
    """
    lock = lock_path(path)
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(lock, flags, 0o600)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise ClaimError(f"lock file {lock} is a symlink; refusing to follow it") from None
        raise ClaimError(f"cannot open lock file {lock}: {err.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            raise ClaimError(
                f"lock file {lock} is not a regular file of yours (owner uid {st.st_uid}, "
                f"mode {stat.S_IMODE(st.st_mode):04o}); remove it or use another socket path"
            )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AlreadyRunning(
                f"a herdr server is already running (socket busy at {path})"
            ) from None
    except BaseException:
        os.close(fd)
        raise
    os.set_blocking(fd, True)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd


def release_lock(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def clear_stale(path: Path) -> bool:
    """Remove a dead socket file at ``path``; returns whether one was removed."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return False
    if not stat.S_ISSOCK(st.st_mode):
        raise ClaimError(f"{path} exists and is not a socket; refusing to replace it")
    if st.st_uid != os.geteuid():
        raise ClaimError(
            f"socket {path} belongs to uid {st.st_uid}, not to you; refusing to use or "
            "replace it (remove it, or use another socket path)"
        )
    if is_live(path):
        raise AlreadyRunning(f"a herdr server is already running (socket busy at {path})")
    path.unlink(missing_ok=True)
    return True


def identity(path: Path) -> tuple[int, int]:
    st = path.lstat()
    return st.st_dev, st.st_ino


def remove_if_owned(path: Path, ident: tuple[int, int]) -> None:
    """Unlink our socket file, but never one another server has put there since."""
    with contextlib.suppress(FileNotFoundError):
        if identity(path) == ident:
            path.unlink()
