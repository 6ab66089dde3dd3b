"""The private temp file ``pane.edit_scrollback`` hands to ``$EDITOR``.

It lives in ``<state_dir>/scrollback`` (created 0700 and checked by
:mod:`herdr.config.safe_paths`), is created 0600 with ``O_EXCL | O_NOFOLLOW`` under a
random name, so nothing planted there can be written through or read by others.
"""

from __future__ import annotations

import contextlib
import os
import secrets

from herdr.config.safe_paths import ensure_private_dir

__all__ = ["remove_quietly", "write_private_text"]

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def write_private_text(directory: str, text: str) -> str:
    """Write ``text`` to a new 0600 file in the private ``directory``; its path."""
    ensure_private_dir(directory)
    for _ in range(16):
        path = os.path.join(directory, f"scrollback-{secrets.token_hex(8)}.txt")
        try:
            fd = os.open(path, _FLAGS, 0o600)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as handle:
                handle.write(text)
        except BaseException:
            remove_quietly(path)
            raise
        return path
    raise FileExistsError(f"no free scrollback file name in {directory}")


def remove_quietly(path: str) -> None:
    """Remove ``path`` if it is still there (the editor may have moved it)."""
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        os.unlink(path)
