"""The pure worktree facts: git's porcelain, repository spaces, names and refusals."""

from __future__ import annotations

import pytest

from herdr.runtime import worktrees as wt

PORCELAIN = (
    "worktree /src/proj\0HEAD 1111\0branch refs/heads/main\0\0"
    "worktree /w/a dir\nwith newline\0HEAD 2222\0detached\0\0"
    "worktree /w/gone\0HEAD 3333\0branch refs/heads/feat/x\0prunable gitdir file points nowhere\0\0"
    "worktree /bare.git\0bare\0\0"
)


def test_parse_worktree_list() -> None:
    assert wt.parse_worktree_list(PORCELAIN) == [
        wt.Worktree("/src/proj", "main"),
        wt.Worktree("/w/a dir\nwith newline", None, is_detached=True),
        wt.Worktree("/w/gone", "feat/x", is_prunable=True),
        wt.Worktree("/bare.git", None, is_bare=True),
    ]
    assert wt.parse_worktree_list("") == []


@pytest.mark.parametrize(
    ("toplevel", "common", "root", "name", "linked"),
    [
        pytest.param("/src/proj", "/src/proj/.git", "/src/proj", "proj", False, id="main"),
        pytest.param("/w/feat", "/src/proj/.git", "/src/proj", "proj", True, id="linked"),
        pytest.param("/w/feat", "/srv/proj.git", "/srv/proj.git", "proj", True, id="bare-repo"),
    ],
)
def test_space_from_rev_parse(
    toplevel: str, common: str, root: str, name: str, linked: bool
) -> None:
    space = wt.space_from_rev_parse(toplevel, common)
    assert (space.repo_root, space.repo_name, space.is_linked_worktree) == (root, name, linked)
    assert space.repo_key == common


@pytest.mark.parametrize(
    ("value", "bad"),
    [
        pytest.param("feature/x", False, id="plain"),
        pytest.param("-D", True, id="leading-dash"),
        pytest.param("--upload-pack=evil", True, id="option"),
        pytest.param("", True, id="empty"),
        pytest.param("  ", True, id="blank"),
        pytest.param("a\tb", True, id="control"),
        pytest.param("x" * 300, True, id="too-long"),
    ],
)
def test_ref_problem(value: str, bad: bool) -> None:
    assert (wt.ref_problem(value, "branch") is not None) is bad


@pytest.mark.parametrize(
    ("branch", "slug"),
    [
        pytest.param("feature/Login UI", "feature-login-ui", id="mixed"),
        pytest.param("///", "worktree", id="nothing-left"),
        pytest.param("fix--x", "fix-x", id="runs-folded"),
        pytest.param("ünïcode", "n-code", id="non-ascii"),
    ],
)
def test_branch_slug(branch: str, slug: str) -> None:
    assert wt.branch_slug(branch) == slug


def test_default_checkout_path_and_generated_branch() -> None:
    path = wt.default_checkout_path("~/.herdr/worktrees", "/home/u", "My Repo", "feat/a")
    assert path == "/home/u/.herdr/worktrees/my-repo/feat-a"
    assert wt.default_checkout_path("/abs", "/home/u", "r", "b") == "/abs/r/b"
    name = wt.generated_branch(123456)
    assert name.startswith("worktree/") and wt.ref_problem(name, "branch") is None


@pytest.mark.parametrize(
    ("stderr", "code"),
    [
        pytest.param(
            "fatal: detected dubious ownership in repository at '/r'",
            "repository_not_trusted",
            id="dubious",
        ),
        pytest.param("fatal: not a git repository (or any", "not_git_worktree", id="not-repo"),
        pytest.param(
            "fatal: '/w' contains modified or untracked files, use --force to delete it",
            "dirty_worktree_requires_force",
            id="dirty",
        ),
        pytest.param("fatal: '/w' is not a working tree", "worktree_not_found", id="gone"),
        pytest.param("fatal: something else", "worktree_remove_failed", id="fallback"),
    ],
)
def test_failure_code(stderr: str, code: str) -> None:
    assert wt.failure_code(stderr, "worktree_remove_failed") == code


def test_dubious_path() -> None:
    text = "fatal: detected dubious ownership in repository at '/srv/a b'\nTo add an exception"
    assert wt.dubious_path(text) == "/srv/a b"
    assert wt.dubious_path("fatal: nope") is None
