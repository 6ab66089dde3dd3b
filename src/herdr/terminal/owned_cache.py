"""Cache entries only we could have written: open, check and replace them fd-relatively.

The FFI module in the cache is Python that the server executes, so whoever can write it
or a directory above it (up to the cache root we create) could run code as us. Every
step here goes through a file descriptor: a directory is opened with ``O_NOFOLLOW`` and
judged by ``fstat`` of that descriptor, the file is opened relative to it and its bytes
are read from the descriptor that was checked, so nothing can be swapped in between
the check and the use. Trusted means: owned by our effective uid, not writable by group
or others, the expected type, and never a symlink.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import NoReturn

DIR_MODE = 0o700
FILE_MODE = 0o600
MAX_FILE_BYTES = 16 * 1024 * 1024  # the FFI module is ~120 kB
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class Untrusted(Exception):
    """A cache entry we refuse to use; the message names its path, owner and mode."""


def describe(path: Path | str, st: os.stat_result) -> str:
    return f"{path} (owner uid {st.st_uid}, mode {stat.filemode(st.st_mode)})"


def problem(st: os.stat_result, *, directory: bool) -> str | None:
    """Why an entry with this ``lstat``/``fstat`` result is not ours alone, or None."""
    if stat.S_ISLNK(st.st_mode):
        return "a symlink"
    if directory and not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if not directory and not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_uid != os.geteuid():
        return f"not owned by uid {os.geteuid()}"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "writable by group or others"
    return None


def _refuse(path: Path, st: os.stat_result, directory: bool) -> Untrusted:
    reason = problem(st, directory=directory) or "changed while it was checked"
    return Untrusted(f"{describe(path, st)}: {reason}")


def _checked(fd: int, path: Path, *, directory: bool) -> int:
    st = os.fstat(fd)
    if problem(st, directory=directory) is not None:
        os.close(fd)
        raise _refuse(path, st, directory)
    return fd


def _refusal_after(
    exc: OSError, name: str, parent_fd: int, path: Path, *, directory: bool
) -> NoReturn:
    """Turn an ``O_NOFOLLOW`` failure on a symlink (ELOOP, ENOTDIR, ...) into Untrusted."""
    try:
        st = os.lstat(name, dir_fd=parent_fd)
    except OSError:
        raise exc from None
    if problem(st, directory=directory) is not None:
        raise _refuse(path, st, directory) from exc
    raise exc


def open_private_dir(base: Path, parts: tuple[str, ...]) -> int:
    """A descriptor of ``base/parts...``, each part created 0700 if missing and checked.

    ``base`` itself (``$XDG_CACHE_HOME``) is the user's choice and may be a symlink; it is
    created 0700 if missing. Raises Untrusted for a part we do not own alone, OSError
    when the cache cannot be made at all (read-only home, a file in the way).
    """
    os.makedirs(base, mode=DIR_MODE, exist_ok=True)
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    path = base
    for name in parts:
        path = path / name
        fd = _open_child_dir(fd, name, path)
    return fd


def _open_child_dir(parent_fd: int, name: str, path: Path) -> int:
    """Open (or create 0700) ``name`` under ``parent_fd``; closes ``parent_fd``."""
    try:
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        except FileNotFoundError:
            with contextlib.suppress(FileExistsError):  # a concurrent start made it
                os.mkdir(name, DIR_MODE, dir_fd=parent_fd)
            fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
        except OSError as exc:
            _refusal_after(exc, name, parent_fd, path, directory=True)
    finally:
        os.close(parent_fd)
    return _checked(fd, path, directory=True)


def read_private_file(dir_fd: int, name: str, path: Path) -> bytes | None:
    """The bytes of ``name`` if it is ours alone, None if it does not exist.

    The bytes come from the very descriptor whose ``fstat`` passed the check.
    """
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        _refusal_after(exc, name, dir_fd, path, directory=False)
    fd = _checked(fd, path, directory=False)
    with os.fdopen(fd, "rb") as stream:
        data = stream.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise OSError(f"{path} is larger than {MAX_FILE_BYTES} bytes")
    return data


def install_file(dir_fd: int, name: str, data: bytes) -> None:
    """Write ``name`` atomically (temp file in the same directory, then rename), 0600.

    A concurrent reader sees the old entry or the complete new file, never a half one;
    an entry in the way (someone else's file, a symlink) is replaced, never followed.
    """
    tmp = f".{name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, FILE_MODE, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
