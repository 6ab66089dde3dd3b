"""The one rule for a pane's working directory (pure: the caller does the reads).

A pane works where its foreground process works: the foreground group leader's cwd,
else its shell's (both read live from /proc by ``terminal.procfs.live_cwds``), else
the cwd the model recorded for it, else a fallback (``$HOME``). A live reading counts
only when it is an absolute path to an existing directory: /proc shows a removed
directory as ``/path (deleted)``, and a vanished process reads as nothing. The
recorded cwd and the fallback are taken as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def usable(path: str | None, is_dir: Callable[[str], bool]) -> bool:
    """A live reading worth using: an absolute path to an existing directory."""
    return path is not None and path.startswith("/") and is_dir(path)


def working_dir(
    live: Iterable[str | None],
    recorded: str | None,
    fallback: str | None = None,
    *,
    is_dir: Callable[[str], bool],
) -> str | None:
    """The first usable live reading, else ``recorded``, else ``fallback``.

    ``live`` is consumed lazily, so a reader that yields the foreground process's cwd
    first does no second read when that one is usable. A reading equal to ``recorded``
    is taken without asking ``is_dir`` again (it was checked when it was recorded).
    """
    for path in live:
        if path is not None and path == recorded:
            return path
        if usable(path, is_dir):
            return path
    return recorded or fallback
