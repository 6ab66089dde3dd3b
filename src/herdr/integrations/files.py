"""Reading and replacing files in an agent's config directory, safely.

The directories belong to the agents (and to the user), not to herdr, so the rules are
the persistence layer's: never write through a symlink someone else made, never into a
directory another user owns or others can write, replace files atomically (a crash
leaves the old bytes or the new ones) and keep the mode the user gave a file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from herdr.persist.errors import PersistWriteError
from herdr.persist.files import atomic_write, resolve_write_target

MAX_CONFIG_BYTES = 8 << 20


class IntegrationError(Exception):
    """An install/uninstall that cannot go ahead; the message names the file (and line)."""


def _why(err: PersistWriteError) -> str:
    cause = err.__cause__ if isinstance(err.__cause__, OSError) else None
    detail = cause.strerror if cause is not None and cause.strerror else str(err)
    return f"{detail}"


def require_own_dir(directory: str, missing: str) -> None:
    """The agent's config dir must exist, be a directory and be ours (by uid)."""
    try:
        st = os.stat(directory)
    except OSError:
        raise IntegrationError(missing) from None
    if not stat.S_ISDIR(st.st_mode):
        raise IntegrationError(missing)
    if st.st_uid != os.geteuid():
        raise IntegrationError(
            f"refusing to write into {directory}: it is owned by uid {st.st_uid}, not by you"
        )


def read_text(path: str) -> str | None:
    """The file's text, or None when it does not exist. A link is read only if it is one
    we may write through; a FIFO, device or foreign file is refused."""
    try:
        target = resolve_write_target(Path(path))
    except PersistWriteError as err:
        raise IntegrationError(f"cannot use {path}: {_why(err)}") from None
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise IntegrationError(f"cannot read {path}: {err.strerror}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IntegrationError(f"cannot read {path}: not a regular file")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1 << 16):
            size += len(chunk)
            if size > MAX_CONFIG_BYTES:
                raise IntegrationError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes")
            chunks.append(chunk)
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as err:
        raise IntegrationError(f"failed to parse {path}: not UTF-8 ({err.reason})") from None


def write_text(path: str, text: str, *, default_mode: int = 0o644) -> None:
    """Replace ``path`` atomically; an existing file keeps its permission bits."""
    mode = default_mode
    try:
        target = resolve_write_target(Path(path))
        st = os.stat(target)
        mode = stat.S_IMODE(st.st_mode)
    except FileNotFoundError:
        pass
    except PersistWriteError as err:
        raise IntegrationError(f"cannot write {path}: {_why(err)}") from None
    try:
        atomic_write(Path(path), text.encode("utf-8"), mode=mode)
    except PersistWriteError as err:
        raise IntegrationError(f"cannot write {path}: {_why(err)}") from None


def write_owned(path: str, text: str, mode: int) -> None:
    """A file that is wholly ours (a hook script): always our mode."""
    try:
        atomic_write(Path(path), text.encode("utf-8"), mode=mode)
    except PersistWriteError as err:
        raise IntegrationError(f"cannot write {path}: {_why(err)}") from None


def remove(path: str) -> bool:
    """Delete our file (never what a link points to); False when there was none."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as err:
        raise IntegrationError(f"cannot remove {path}: {err.strerror}") from None
    if st.st_uid != os.geteuid():
        raise IntegrationError(f"refusing to remove {path}: owned by uid {st.st_uid}")
    try:
        os.unlink(path)
    except OSError as err:
        if err.errno == errno.ENOENT:
            return False
        raise IntegrationError(f"cannot remove {path}: {err.strerror}") from None
    return True


def make_dir(path: str) -> None:
    try:
        os.makedirs(path, mode=0o755, exist_ok=True)
    except OSError as err:
        raise IntegrationError(f"cannot create {path}: {err.strerror}") from None


def is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def on_path(command: str, path_var: str) -> bool:
    """``command`` is an executable regular file in one of ``path_var``'s directories."""
    for directory in path_var.split(os.pathsep):
        if not directory:
            continue
        candidate = os.path.join(directory, command)
        try:
            st = os.stat(candidate)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and os.access(candidate, os.X_OK):
            return True
    return False
