"""The ``open_worktree`` picker's rows: a pure function of ``worktree.list``'s worktrees
and the text typed (filter by every word; offer "create" for a new branch name)."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.client.worktrees import Row, rows

MAIN = {"path": "/r/proj", "branch": "main", "label": "proj", "open_workspace_id": "w1"}
FEAT = {"path": "/r/proj-feat", "branch": "feat", "label": "proj-feat"}
DETACHED = {"path": "/r/proj-old", "branch": None, "label": "old", "is_detached": True}
BARE = {"path": "/r/bare.git", "is_bare": True, "label": "bare"}
GONE = {"path": "/r/gone", "branch": "gone", "is_prunable": True, "label": "gone"}
ALL = [MAIN, FEAT, DETACHED, BARE, GONE]


@pytest.mark.parametrize(
    ("trees", "query", "expected"),
    [
        pytest.param(
            ALL,
            "",
            [
                Row("main  /r/proj  · open", "/r/proj", "w1"),
                Row("feat  /r/proj-feat", "/r/proj-feat"),
                Row("(detached)  /r/proj-old", "/r/proj-old"),
            ],
            id="all-but-bare-and-prunable",
        ),
        pytest.param(
            ALL,
            "FEAT",
            [Row("feat  /r/proj-feat", "/r/proj-feat")],
            id="filter-is-case-insensitive-and-an-existing-branch-is-not-offered-again",
        ),
        pytest.param(
            ALL,
            "fe",
            [
                Row("feat  /r/proj-feat", "/r/proj-feat"),
                Row("create worktree on new branch fe", new_branch="fe"),
            ],
            id="a-prefix-of-a-branch-is-a-new-name",
        ),
        pytest.param(
            ALL,
            "proj old",
            [
                Row("(detached)  /r/proj-old", "/r/proj-old"),
            ],
            id="every-word-must-match-and-words-never-name-a-branch",
        ),
        pytest.param(
            ALL,
            "gone",
            [Row("create worktree on new branch gone", new_branch="gone")],
            id="prunable",
        ),
        pytest.param([], "", [], id="nothing"),
    ],
)
def test_rows(trees: list[dict[str, Any]], query: str, expected: list[Row]) -> None:
    assert rows(trees, query) == expected
