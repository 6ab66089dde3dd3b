"""End to end: herdr's ``open_worktree`` and ``remove_worktree`` keys (unset by default)
in the real TUI inside a real tmux, on a real git repository: the picker lists the
repository's worktrees, opens one, creates one on a new branch, and the remove key asks
before it removes the focused worktree's checkout and closes its workspace."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# the harness lives beside its first tests (tests/e2e is on sys.path when they run)
from test_tui_tmux import TIMEOUT, Tui, _prompt_ready, harness  # type: ignore[import-not-found]

from herdr_testing import wait_until
from herdr_testing.git_repos import git_env

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]


@pytest.fixture
def tui() -> Iterator[Tui]:
    with harness("hw") as opened:
        opened.env.update(git_env(opened.root))
        yield opened


def _git(tui: Tui, cwd: Path, *args: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tui.root), **git_env(tui.root)}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _workspaces(tui: Tui) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = tui.request("workspace.list", {})["result"]["workspaces"]
    return listed


def _focused(tui: Tui) -> dict[str, Any]:
    return next(ws for ws in _workspaces(tui) if ws["focused"])


def _focused_checkout(tui: Tui) -> str | None:
    """The focused workspace's worktree checkout (None: a workspace opened on a plain
    directory, even inside a repository)."""
    tree = _focused(tui).get("worktree") or {}
    return str(tree["checkout_path"]) if tree else None


def test_the_worktree_picker_opens_creates_and_removes(tui: Tui) -> None:
    repo = tui.root / "work"  # the TUI's first workspace opens here
    repo.mkdir(exist_ok=True)
    _git(tui, repo, "init", "-q", "-b", "main")
    (repo / "README").write_text("hello\n")
    _git(tui, repo, "add", "README")
    _git(tui, repo, "commit", "-q", "-m", "first")
    feat = tui.root / "work-feat"
    _git(tui, repo, "worktree", "add", "-q", "-b", "feat", str(feat))
    config = tui.root / "c" / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[keys]\nopen_worktree = "prefix+y"\nremove_worktree = "prefix+u"\n')
    tui.open()
    tui.wait_for(_prompt_ready, message="no prompt")
    ws = _focused(tui)["workspace_id"]

    tui.keys("C-b", "y")
    screen = tui.wait_text("OPEN WORKTREE")
    assert str(feat) in screen and "main" in screen
    tui.literal("feat")
    tui.wait_for(lambda s: str(repo) + " " not in s, message="the filter did not narrow")
    tui.keys("Enter")
    wait_until(lambda: _focused_checkout(tui) == str(feat), TIMEOUT, message="feat not opened")

    tui.keys("C-b", "u")  # remove asks first; y removes the checkout and its workspace
    tui.wait_text("remove the worktree at")
    tui.keys("y")
    wait_until(lambda: not feat.exists(), TIMEOUT, message="the worktree stayed on disk")
    wait_until(
        lambda: all(
            (w.get("worktree") or {}).get("checkout_path") != str(feat) for w in _workspaces(tui)
        ),
        TIMEOUT,
        message="its workspace stayed",
    )

    tui.request("workspace.focus", {"workspace_id": ws})
    wait_until(lambda: _focused(tui)["workspace_id"] == ws, TIMEOUT, message="repo not focused")
    # the TUI's own view has dropped the removed workspace (keys act on the view it shows)
    tui.wait_for(lambda s: "work-feat" not in s, message="the TUI still shows the worktree")
    tui.keys("C-b", "y")
    tui.wait_text("OPEN WORKTREE")
    tui.literal("topic")
    tui.wait_text("create worktree on new branch topic")
    tui.keys("Enter")

    def new_checkout() -> str | None:
        path = _focused_checkout(tui)
        return path if path not in (None, str(repo), str(feat)) else None

    path = wait_until(new_checkout, TIMEOUT, message="no worktree on the new branch")
    assert path is not None and Path(path).is_dir()
