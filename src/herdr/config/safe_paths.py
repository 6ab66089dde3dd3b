"""Directories herdr uses must be ours, or we refuse to use them (as tmux does).

Another local user who can write into our config, state, cache or socket directory can
plant a socket, a lock file, a symlink or code that we would then trust. So before a
directory is used: it must be a directory owned by our effective uid, and a private
one (data, state, cache) must give group and others no access at all; a directory we
manage that is ours but too open is tightened, and a failed ``chmod`` is an error, not
a shrug. A socket directory the user chose (``HERDR_SOCKET_PATH``) may be a shared
sticky directory such as ``/tmp``: there only the owner of a file can replace it, and
the lock file and peer credentials guard the rest.

Standard library ``os``/``stat`` only, on plain strings: the CLI's auto-start path uses
this and must not import ``pathlib``.
"""

from __future__ import annotations

import contextlib
import os
import stat

PRIVATE_MODE = 0o700


class UnsafePathError(Exception):
    """A path herdr would use is not safe; the message is one line naming path, owner,
    mode and the fix."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


def _describe(st: os.stat_result) -> str:
    return f"owner uid {st.st_uid}, mode {stat.S_IMODE(st.st_mode):04o}"


def _unsafe(path: str, st: os.stat_result, need: str, fix: str) -> UnsafePathError:
    return UnsafePathError(
        path, f"directory {path} has unsafe permissions ({_describe(st)}): {need}; fix: {fix}"
    )


def _stat_dir(path: str, uid: int) -> os.stat_result:
    """``stat`` of the directory at ``path``; a symlink is accepted only if it is ours."""
    lst = os.lstat(path)
    if stat.S_ISLNK(lst.st_mode):
        if lst.st_uid != uid:
            raise UnsafePathError(
                path,
                f"{path} is a symlink owned by uid {lst.st_uid}, not by you (uid {uid}); "
                f"fix: remove it",
            )
        st = os.stat(path)
    else:
        st = lst
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePathError(path, f"{path} exists and is not a directory; fix: remove it")
    return st


def check_private_dir(path: str, *, uid: int | None = None, tighten: bool = True) -> None:
    """Refuse ``path`` unless it is our directory with no group/other access.

    With ``tighten``, a directory that is ours but wider than 0700 is chmod-ed to 0700
    (herdr manages it); a chmod that fails raises.
    """
    me = os.geteuid() if uid is None else uid
    st = _stat_dir(path, me)
    need = f"it must be owned by you (uid {me}) and not accessible to group or others"
    if st.st_uid != me:
        raise _unsafe(path, st, need, f"remove it, or use a directory of your own for {path}")
    if stat.S_IMODE(st.st_mode) & 0o077:
        if not tighten:
            raise _unsafe(path, st, need, f"chmod 700 {path}")
        try:
            os.chmod(path, PRIVATE_MODE)
        except OSError as err:
            raise UnsafePathError(
                path,
                f"directory {path} has unsafe permissions ({_describe(st)}) and chmod 700 "
                f"failed: {err.strerror}; fix: chmod 700 {path}",
            ) from err


def check_shared_dir(path: str, *, uid: int | None = None) -> None:
    """Refuse a socket directory the user chose unless it is ours or root's, and either
    not writable by group/other or sticky (``/tmp``)."""
    me = os.geteuid() if uid is None else uid
    st = _stat_dir(path, me)
    if st.st_uid not in (me, 0):
        raise _unsafe(
            path,
            st,
            f"it must be owned by you (uid {me}) or root",
            "choose a socket directory of your own",
        )
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o022 and not mode & stat.S_ISVTX:
        raise _unsafe(
            path,
            st,
            "group or others can write to it and it is not sticky, so they could replace "
            "the socket",
            f"chmod go-w {path}",
        )


def ensure_private_dir(path: str, *, uid: int | None = None, tighten: bool = True) -> None:
    """Create ``path`` (and missing parents) if needed, then :func:`check_private_dir`."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        parent = os.path.dirname(path.rstrip("/"))
        if parent and not os.path.lexists(parent):
            os.makedirs(parent, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # made meanwhile: the check decides
            os.mkdir(path, PRIVATE_MODE)
    check_private_dir(path, uid=uid, tighten=tighten)


def ensure_private_tree(root: str, leaf: str, *, uid: int | None = None) -> None:
    """Every directory from ``root`` down to ``leaf`` (inclusive) exists and is private.

    ``leaf`` must be ``root`` or below it; used for ``<config>/sessions/<name>``.
    """
    ensure_private_dir(root, uid=uid)
    rel = os.path.relpath(leaf, root)
    if rel == ".":
        return
    if rel.startswith(".."):
        raise ValueError(f"{leaf} is not below {root}")
    current = root
    for part in rel.split(os.sep):
        current = os.path.join(current, part)
        ensure_private_dir(current, uid=uid)


def open_private_append(path: str, *, uid: int | None = None) -> int:
    """An fd appending to ``path`` (created 0600): never through a symlink, and only a
    regular file of ours (a planted FIFO, device or foreign file is refused)."""
    me = os.geteuid() if uid is None else uid
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as err:
        try:
            lst = os.lstat(path)
        except OSError:
            raise err from None
        if stat.S_ISLNK(lst.st_mode):
            why = f"{path} is a symlink; refusing to write through it"
        elif not stat.S_ISREG(lst.st_mode):
            why = f"{path} is not a regular file ({_describe(lst)}); refusing to write to it"
        else:
            raise
        raise UnsafePathError(path, why) from err
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != me:
        os.close(fd)
        raise UnsafePathError(
            path,
            f"{path} is not a regular file of yours ({_describe(st)}); "
            "refusing to write to it; fix: remove it",
        )
    os.set_blocking(fd, True)
    return fd
