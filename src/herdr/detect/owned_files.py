"""Reading config files the user wrote (user kinds, local manifest overrides) safely.

These files decide how herdr reads agents' screens and what ``agent start --kind`` runs,
so another local user must not be able to supply them. The rule is the persistence
layer's (CHANGELOG "Security and robustness"): a file is read only if it is a regular
file owned by us that group and others cannot write, in a directory of ours that they
cannot write either; a symlink is followed only if the link itself is ours (a dotfile
manager's link of ours to a file of ours works), and the target then passes the same
checks. The bytes come from the descriptor that was checked, so nothing can be swapped
in between the check and the read.
"""

from __future__ import annotations

import os
import stat

_MAX_HOPS = 8
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class UntrustedFile(Exception):
    """A file or directory we refuse to read; ``str()`` is ``path: reason``."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def _mode(st: os.stat_result) -> str:
    return f"{stat.S_IMODE(st.st_mode):04o}"


def node_problem(st: os.stat_result, *, directory: bool, uid: int) -> str | None:
    """PURE: why an entry with this (followed) stat result is not ours alone, or None."""
    if directory and not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if not directory and not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    what = "directory" if directory else "file"
    if st.st_uid != uid:
        return f"{what} owned by uid {st.st_uid}, not by you (uid {uid}); not loaded"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"{what} is writable by group or others (mode {_mode(st)}); fix: chmod go-w"
    return None


def _link_problem(path: str, uid: int) -> str | None:
    """A symlink must be ours; returns why not (None for our link or no link)."""
    lst = os.lstat(path)
    if stat.S_ISLNK(lst.st_mode) and lst.st_uid != uid:
        return f"symlink owned by uid {lst.st_uid}, not by you (uid {uid}); not followed"
    return None


def check_dir(path: str, *, uid: int | None = None) -> None:
    """Raise `UntrustedFile` unless ``path`` is our directory that only we can write.

    A missing directory raises ``FileNotFoundError`` (the caller treats it as empty).
    """
    me = os.geteuid() if uid is None else uid
    why = _link_problem(path, me)
    if why is None:
        why = node_problem(os.stat(path), directory=True, uid=me)
    if why is not None:
        raise UntrustedFile(path, why)


def _resolve(path: str, uid: int) -> str:
    """Follow links of ours only; the final path (which may not exist)."""
    current = path
    for _ in range(_MAX_HOPS):
        try:
            lst = os.lstat(current)
        except FileNotFoundError:
            return current
        if not stat.S_ISLNK(lst.st_mode):
            return current
        if lst.st_uid != uid:
            raise UntrustedFile(
                path, f"symlink owned by uid {lst.st_uid}, not by you (uid {uid}); not followed"
            )
        target = os.readlink(current)
        current = os.path.join(os.path.dirname(current), target)
    raise UntrustedFile(path, "too many levels of symbolic links")


def read_owned(path: str, max_bytes: int, *, uid: int | None = None) -> bytes:
    """The bytes of our file at ``path`` (at most ``max_bytes + 1`` are read, so the
    caller can tell an oversized file). ``FileNotFoundError`` when it does not exist."""
    me = os.geteuid() if uid is None else uid
    target = _resolve(path, me)
    if target != path:
        holder = os.path.dirname(os.path.abspath(target))
        try:
            check_dir(holder, uid=me)
        except UntrustedFile as exc:
            raise UntrustedFile(path, f"links to {target}, whose {exc.reason}") from None
    try:
        fd = os.open(target, _FLAGS)
    except OSError as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise UntrustedFile(path, f"cannot open: {exc.strerror or exc}") from None
    try:
        why = node_problem(os.fstat(fd), directory=False, uid=me)
        if why is not None:
            shown = why if target == path else f"links to {target}: {why}"
            raise UntrustedFile(path, shown)
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes and (chunk := os.read(fd, max_bytes + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
