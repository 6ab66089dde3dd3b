"""What the worktree methods keep between requests: the trusted repositories and the
checkouts a git operation is running on (two requests on one checkout would race)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from herdr.runtime import worktrees as wt
from herdr.server.core import ApiError
from herdr.server.trusted_repos import TrustedRepos


class WorktreeOps:
    """One server's worktree bookkeeping."""

    def __init__(self, state_dir: Path) -> None:
        self.trusted = TrustedRepos(state_dir)
        self._busy: set[str] = set()

    @contextmanager
    def claim(self, *paths: str) -> Iterator[None]:
        """Hold `paths` for one operation; a second one on any of them is refused."""
        if any(path in self._busy for path in paths):
            raise ApiError(wt.IN_PROGRESS, "a worktree operation is already running there")
        self._busy.update(paths)
        try:
            yield
        finally:
            self._busy.difference_update(paths)
