"""The tab order a move shows before the server's state arrives."""

from __future__ import annotations

import pytest

from herdr.client.more_commands import moved_tab_order


def _tabs(spec: str) -> list[dict[str, str]]:
    """``"a:1 a:2 b:1"`` → tab records (workspace ``a``/``b``, tab ids ``a:1``…)."""
    return [{"tab_id": t, "workspace_id": t.split(":")[0]} for t in spec.split()]


CASES = [
    ("left to the start", "a:1 a:2 a:3", "a:3", 0, "a:3 a:1 a:2"),
    ("right by one", "a:1 a:2 a:3", "a:1", 1, "a:2 a:1 a:3"),
    ("to the end", "a:1 a:2 a:3", "a:1", 2, "a:2 a:3 a:1"),
    ("in place", "a:1 a:2", "a:2", 1, "a:1 a:2"),
    ("other workspaces keep their slots", "a:1 b:1 a:2 b:2 a:3", "a:3", 0, "a:3 b:1 a:1 b:2 a:2"),
    ("a workspace's tabs after another's", "b:1 a:1 a:2", "a:2", 0, "b:1 a:2 a:1"),
]


@pytest.mark.parametrize(
    ("tabs", "tab_id", "target", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_moved_tab_order(tabs: str, tab_id: str, target: int, expected: str) -> None:
    order = moved_tab_order(_tabs(tabs), tab_id, target)
    assert " ".join(t["tab_id"] for t in order) == expected
