"""What attached clients show, as the agent runtime needs it for seen/done (spec §9.8).

Two small interfaces instead of parts patching each other's attributes:

* `ViewTracker` — asked by the agent runtime on every arbitration: does some attached,
  focused client show this pane right now? (An agent that finishes while watched is
  ``idle``, not ``done``.)
* `TabSeen` — told by the attach registry when a client starts showing a tab: that
  tab's panes count as seen.

`ViewedPanes` is the tracker the server uses: a set of pane ids, so a question is one
lookup. The attach registry replaces the set whenever what its clients show may have
changed (a client attached, left, or sent ``view``; or a structural event moved panes,
tabs or the focus).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class ViewTracker(Protocol):
    def pane_viewed(self, pane_id: str) -> bool:
        """Whether some attached, focused client currently shows ``pane_id``."""
        ...


class TabSeen(Protocol):
    def tab_viewed(self, workspace_id: str, tab_id: str) -> None:
        """A client started showing this tab: its panes count as seen."""
        ...


class ViewedPanes:
    """The pane ids attached, focused clients show (O(1) `pane_viewed`)."""

    def __init__(self) -> None:
        self._ids: frozenset[str] = frozenset()

    def pane_viewed(self, pane_id: str) -> bool:
        return pane_id in self._ids

    def replace(self, pane_ids: Iterable[str]) -> None:
        self._ids = frozenset(pane_ids)
