"""``herdr worktree list|create|open|remove`` and ``workspace close --group`` through the
real CLI (``python -m herdr``) against a real server and a real git repository."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from herdr_testing import HerdrEnv, ServerHandle
from herdr_testing.git_repos import git, make_repo, start_git_server
from herdr_testing.schema22 import assert_valid_response


@pytest.fixture
def repo_server(herdr_env: HerdrEnv) -> tuple[ServerHandle, Path]:
    repo = make_repo(herdr_env)
    return start_git_server(herdr_env), repo


def run_ok(server: ServerHandle, *args: str, cwd: Path | None = None) -> dict[str, Any]:
    proc = server.cli(*args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    envelope: dict[str, Any] = json.loads(proc.stdout)
    assert_valid_response(envelope)
    result: dict[str, Any] = envelope["result"]
    return result


def run_error(server: ServerHandle, *args: str) -> str:
    proc = server.cli(*args)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    envelope = json.loads(proc.stderr.strip().splitlines()[-1])
    assert_valid_response(envelope)
    return str(envelope["error"]["code"])


def test_cli_create_list_open_remove(repo_server: tuple[ServerHandle, Path]) -> None:
    server, repo = repo_server
    herdr = server.herdr
    target = herdr.root / "my trees" / "feature one"
    created = run_ok(
        server,
        "worktree",
        "create",
        "--cwd",
        ".",
        "--branch",
        "feature/one",
        "--path",
        str(target),
        "--label",
        "Feature One",
        "--focus",
        cwd=repo,  # a relative --cwd is made absolute by the CLI
    )
    assert created["type"] == "worktree_created"
    assert created["worktree"]["path"] == os.path.realpath(target)
    assert created["workspace"]["label"] == "Feature One"
    assert created["workspace"]["focused"] is True
    ws_id = created["workspace"]["workspace_id"]

    listed = run_ok(server, "worktree", "list", "--cwd", str(repo))
    assert sorted(w["path"] for w in listed["worktrees"]) == sorted(
        [os.path.realpath(repo), os.path.realpath(target)]
    )
    parent = listed["source"]["source_workspace_id"]
    from_ws = run_ok(server, "worktree", "list", "--workspace", parent)
    assert from_ws["worktrees"] == listed["worktrees"]

    opened = run_ok(server, "worktree", "open", "--workspace", parent, "--branch", "feature/one")
    assert opened["already_open"] is True
    assert opened["workspace"]["workspace_id"] == ws_id

    (target / "new.txt").write_text("work\n", encoding="utf-8")
    assert run_error(server, "worktree", "remove", "--workspace", ws_id) == (
        "dirty_worktree_requires_force"
    )
    assert target.exists()
    removed = run_ok(server, "worktree", "remove", "--workspace", ws_id, "--force")
    assert removed == {
        "type": "worktree_removed",
        "workspace_id": ws_id,
        "path": os.path.realpath(target),
        "forced": True,
    }
    assert not target.exists()
    assert git(herdr, repo, "branch", "--list", "feature/one").strip()  # branch kept

    reopened = run_ok(
        server,
        "worktree",
        "create",
        "--workspace",
        parent,
        "--branch",
        "feature/one",
        "--no-focus",
    )
    assert reopened["worktree"]["branch"] == "feature/one"  # existing branch checked out


CLI_REFUSALS = [
    pytest.param(("worktree", "create", "--branch=-rf"), "invalid_params", id="branch-dash"),
    pytest.param(("worktree", "create", "--branch", "a b"), "invalid_params", id="branch-space"),
    pytest.param(("worktree", "open", "--branch", "nope"), "worktree_not_found", id="open-missing"),
    pytest.param(("worktree", "remove", "--workspace", "w9"), "workspace_not_found", id="rm-none"),
]


@pytest.mark.parametrize(("argv", "expected"), CLI_REFUSALS)
def test_cli_refusals(
    repo_server: tuple[ServerHandle, Path], argv: tuple[str, ...], expected: str
) -> None:
    server, repo = repo_server
    extra = ("--cwd", str(repo)) if argv[1] != "remove" else ()
    assert run_error(server, *argv, *extra) == expected


def test_cli_not_a_repository(repo_server: tuple[ServerHandle, Path]) -> None:
    server, _ = repo_server
    plain = server.herdr.root / "plain"
    plain.mkdir()
    assert run_error(server, "worktree", "list", "--cwd", str(plain)) == "not_git_worktree"


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(("worktree", "open"), id="open-needs-path-or-branch"),
        pytest.param(("worktree", "open", "--path", "/x", "--branch", "b"), id="open-both"),
        pytest.param(("worktree", "remove"), id="remove-needs-workspace"),
        pytest.param(("worktree", "list", "--cwd", "/", "--workspace", "w1"), id="cwd-and-ws"),
    ],
)
def test_cli_usage_errors(herdr_env: HerdrEnv, argv: tuple[str, ...]) -> None:
    proc = herdr_env.cli(*argv)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert "usage:" in proc.stderr


def test_cli_workspace_close_group(repo_server: tuple[ServerHandle, Path]) -> None:
    server, repo = repo_server
    created = run_ok(server, "worktree", "create", "--cwd", str(repo), "--branch", "g")
    parent = run_ok(server, "worktree", "list", "--cwd", str(repo))["source"]["source_workspace_id"]
    assert run_error(server, "workspace", "close", parent) == "workspace_group_close_required"
    assert run_ok(server, "workspace", "close", parent, "--group") == {"type": "ok"}
    left = run_ok(server, "workspace", "list")["workspaces"]
    assert created["workspace"]["workspace_id"] not in [w["workspace_id"] for w in left]
    assert os.path.isdir(created["worktree"]["path"])
