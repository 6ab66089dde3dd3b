"""Atomic file primitives: a reader sees the old bytes or the new ones, never a mix.

Write a temp file in the same directory, fsync it, rename it over the target, fsync
the directory. Used for ``session.json``, ``session-history.json`` and backups.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from herdr.persist.errors import PersistWriteError

FILE_MODE = 0o600  # the files name directories and commands; history holds screen text
DIR_MODE = 0o700
TEMP_SUFFIX = ".tmp"
_MAX_SYMLINK_HOPS = 16
_NO_DIR_FSYNC = {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}


def resolve_write_target(path: Path) -> Path:
    """Follow symlinks by hand so a write through a (possibly dangling) link lands on its
    target and the link survives, as dotfile managers (stow) expect."""
    current = path
    for _ in range(_MAX_SYMLINK_HOPS):
        if not current.is_symlink():
            return current
        link = Path(os.readlink(current))
        current = link if link.is_absolute() else current.parent / link
    return current


def atomic_write(path: Path, data: bytes, *, mode: int = FILE_MODE) -> Path:
    """Replace `path` with `data` all at once; returns the file actually written.

    Raises `PersistWriteError` (with the OSError as `cause`); the old file is then
    untouched and no temp file is left behind.
    """
    target = resolve_write_target(path)
    tmp = target.with_name(target.name + TEMP_SUFFIX)
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, mode)
        try:
            os.fchmod(fd, mode)  # O_CREAT's mode is masked by umask and ignored if it existed
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        fsync_dir(target.parent)
    except OSError as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise PersistWriteError(target, err) from err
    return target


def fsync_dir(directory: Path) -> None:
    """Make a rename durable; file systems that cannot fsync a directory are fine."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in _NO_DIR_FSYNC:
            raise
    finally:
        os.close(fd)


def remove_file(path: Path) -> bool:
    """Delete `path` if present; True when something was removed."""
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    except OSError as err:
        raise PersistWriteError(path, err) from err
    return True
