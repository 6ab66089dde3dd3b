"""Atomic file primitives: a reader sees the old bytes or the new ones, never a mix.

Write a temp file in the same directory, fsync it, rename it over the target, fsync
the directory. Nothing is written through a link or into a file another user planted.
Used for ``session.json``, ``session-history.json`` and backups.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from herdr.persist.errors import PersistWriteError

FILE_MODE = 0o600  # the files name directories and commands; history holds screen text
DIR_MODE = 0o700
TEMP_SUFFIX = ".tmp"
_MAX_SYMLINK_HOPS = 16
_NO_DIR_FSYNC = {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}


def _refuse(path: Path, why: str, code: int = errno.EPERM) -> PersistWriteError:
    return PersistWriteError(path, OSError(code, why))


def _check_holder(entry: Path, uid: int) -> None:
    """The directory holding ``entry`` must be ours and not writable by group/other,
    or another user could swap what we are about to write through."""
    try:
        st = os.stat(entry.parent)
    except OSError as err:
        if err.errno == errno.ENOENT:
            return  # atomic_write creates it (0700) below a directory checked the same way
        raise PersistWriteError(entry, err) from err
    if st.st_uid != uid or stat.S_IMODE(st.st_mode) & 0o022:
        raise _refuse(
            entry,
            f"directory {entry.parent} is not yours or others can write to it "
            f"(owner uid {st.st_uid}, mode {stat.S_IMODE(st.st_mode):04o})",
        )


def resolve_write_target(path: Path, *, uid: int | None = None) -> Path:
    """The file a write to ``path`` should replace, following only links we made.

    A symlink (e.g. from a dotfile manager) is kept and written through only if the link
    is ours, sits in a directory of ours that others cannot write, and points to a
    regular file of ours (or to a missing file in such a directory). Anything else, a
    link planted by someone else, a FIFO, a device or a foreign file, is refused:
    nothing is written and the caller reports the error.
    """
    me = os.geteuid() if uid is None else uid
    current = path
    for _ in range(_MAX_SYMLINK_HOPS):
        _check_holder(current, me)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return current
        except OSError as err:
            raise PersistWriteError(current, err) from err
        if stat.S_ISLNK(st.st_mode):
            if st.st_uid != me:
                raise _refuse(current, f"symlink owned by uid {st.st_uid}; not following it")
            link = Path(os.readlink(current))
            current = link if link.is_absolute() else current.parent / link
            continue
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(current, "not a regular file; refusing to replace it")
        if st.st_uid != me:
            raise _refuse(current, f"file owned by uid {st.st_uid}; refusing to replace it")
        return current
    raise _refuse(path, "too many levels of symbolic links", errno.ELOOP)


def atomic_write(path: Path, data: bytes, *, mode: int = FILE_MODE) -> Path:
    """Replace `path` with `data` all at once; returns the file actually written.

    The temp file is created exclusively (``O_EXCL | O_NOFOLLOW``): a leftover from a
    crash is removed first (``unlink`` never follows a link), so nothing planted at the
    temp name is ever opened. Raises `PersistWriteError` (with the OSError as `cause`);
    the old file is then untouched and no temp file is left behind.
    """
    target = resolve_write_target(path)
    tmp = target.with_name(target.name + TEMP_SUFFIX)
    created = False
    try:
        target.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, mode)
        created = True
        try:
            os.fchmod(fd, mode)  # O_CREAT's mode is masked by umask
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        fsync_dir(target.parent)
    except OSError as err:
        if created:
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
