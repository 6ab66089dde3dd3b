"""worktree.list|create|open|remove on a real git repository, through a real server.

Every success is checked against herdr's published protocol-22 schema; every refusal
has one specific code and leaves git and the session as they were.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from herdr_testing import HerdrEnv, ServerHandle, wait_until
from herdr_testing.git_repos import git, make_repo, start_git_server
from herdr_testing.held import HeldConnection
from herdr_testing.schema22 import assert_valid_result, reference


@pytest.fixture
def repo_server(herdr_env: HerdrEnv) -> tuple[ServerHandle, Path]:
    repo = make_repo(herdr_env)
    return start_git_server(herdr_env), repo


def ok(resp: dict[str, Any]) -> dict[str, Any]:
    assert "result" in resp, resp
    result: dict[str, Any] = resp["result"]
    assert_valid_result(result)
    return result


def code(resp: dict[str, Any]) -> str:
    assert "error" in resp, resp
    return str(resp["error"]["code"])


def git_worktrees(herdr: HerdrEnv, repo: Path) -> list[str]:
    out = git(herdr, repo, "worktree", "list", "--porcelain")
    return [line[len("worktree ") :] for line in out.splitlines() if line.startswith("worktree ")]


def event_problems(envelope: dict[str, Any]) -> list[str]:
    """Why an event line is not a protocol-22 EventEnvelope (empty: it is one)."""
    schema = {**reference()["schemas"]["event"], "$id": "urn:herdr-events-22"}
    line = {k: v for k, v in envelope.items() if k in ("event", "data")}
    text = json.dumps(schema).replace("#/schemas/event/", "#/")
    return [e.message for e in Draft202012Validator(json.loads(text)).iter_errors(line)]


def events(server: ServerHandle, kind: str, count: int) -> list[dict[str, Any]]:
    """The first `count` logged `kind` events (replayed from seq 0)."""
    held = HeldConnection(
        server.socket_path,
        "events.subscribe",
        {"subscriptions": [{"type": kind}], "since_seq": 0},
    )
    try:
        ack = held.next()
        assert ack is not None and "result" in ack, ack
        found: list[dict[str, Any]] = []
        while len(found) < count:
            line = held.next()
            assert line is not None
            found.append(line)
        return found
    finally:
        held.close()


def test_create_list_open_remove_round_trip(repo_server: tuple[ServerHandle, Path]) -> None:
    server, repo = repo_server
    herdr = server.herdr
    created = ok(server.request("worktree.create", {"cwd": str(repo), "branch": "feat/login"}))
    path = created["worktree"]["path"]
    # default: <worktrees.directory>/<repo>/<branch-slug>, directory = ~/.herdr/worktrees
    assert path == os.path.realpath(f"{herdr.env['HOME']}/.herdr/worktrees/proj/feat-login")
    assert created["worktree"]["branch"] == "feat/login"
    assert created["worktree"]["is_linked_worktree"] is True
    ws = created["workspace"]
    assert ws["worktree"]["checkout_path"] == path
    assert ws["worktree"]["is_linked_worktree"] is True
    assert created["root_pane"]["workspace_id"] == ws["workspace_id"]
    assert path in git_worktrees(herdr, repo)
    assert git(herdr, repo, "rev-parse", "feat/login") == git(herdr, repo, "rev-parse", "main")

    listed = ok(server.request("worktree.list", {"cwd": str(repo)}))
    assert listed["source"]["repo_root"] == os.path.realpath(repo)
    by_path = {w["path"]: w for w in listed["worktrees"]}
    assert by_path[path]["open_workspace_id"] == ws["workspace_id"]
    parent_id = listed["source"]["source_workspace_id"]  # the main checkout got one
    assert by_path[os.path.realpath(repo)]["open_workspace_id"] == parent_id

    opened = ok(server.request("worktree.open", {"cwd": str(repo), "branch": "feat/login"}))
    assert opened["already_open"] is True
    assert opened["workspace"]["workspace_id"] == ws["workspace_id"]

    removed = ok(server.request("worktree.remove", {"workspace_id": ws["workspace_id"]}))
    assert removed == {
        "type": "worktree_removed",
        "workspace_id": ws["workspace_id"],
        "path": path,
        "forced": False,
    }
    assert path not in git_worktrees(herdr, repo)
    assert not os.path.exists(path)
    assert "feat/login" in git(herdr, repo, "branch", "--list", "feat/login")  # branch kept
    assert code(server.request("workspace.get", {"workspace_id": ws["workspace_id"]})) == (
        "workspace_not_found"
    )
    for kind in ("worktree.created", "worktree.opened", "worktree.removed"):
        (event,) = events(server, kind, 1)
        assert event["event"] == kind.replace(".", "_"), event
        assert not event_problems(event), event_problems(event)
        assert event["data"]["worktree"]["path"] == path


def test_create_from_workspace_with_base_label_and_path_with_spaces(
    repo_server: tuple[ServerHandle, Path],
) -> None:
    server, repo = repo_server
    herdr = server.herdr
    ws = ok(server.request("workspace.create", {"cwd": str(repo), "focus": True}))
    source_id = ws["workspace"]["workspace_id"]
    first = git(herdr, repo, "rev-parse", "HEAD").strip()
    (repo / "more").write_text("x\n", encoding="utf-8")
    git(herdr, repo, "add", "more")
    git(herdr, repo, "commit", "-q", "-m", "second")
    target = herdr.root / "check outs" / "old one"
    created = ok(
        server.request(
            "worktree.create",
            {
                "workspace_id": source_id,
                "branch": "old",
                "base": first,
                "path": str(target),
                "label": "Old Work",
                "focus": True,
            },
        )
    )
    assert created["worktree"]["path"] == os.path.realpath(target)
    assert created["workspace"]["label"] == "Old Work"
    assert created["workspace"]["focused"] is True
    assert git(herdr, target, "rev-parse", "HEAD").strip() == first
    listed = ok(server.request("worktree.list", {"workspace_id": source_id}))
    assert listed["source"]["source_workspace_id"] == source_id
    # the source workspace became the group's parent
    parent = ok(server.request("workspace.get", {"workspace_id": source_id}))["workspace"]
    assert parent["worktree"]["is_linked_worktree"] is False


def test_existing_branch_is_checked_out_not_recreated(
    repo_server: tuple[ServerHandle, Path],
) -> None:
    server, repo = repo_server
    herdr = server.herdr
    git(herdr, repo, "branch", "topic")
    created = ok(server.request("worktree.create", {"cwd": str(repo), "branch": "topic"}))
    assert created["worktree"]["branch"] == "topic"
    # a branch checked out in another worktree cannot be checked out twice
    nested = herdr.root / "new-parent" / "deeper" / "second"
    again = server.request(
        "worktree.create", {"cwd": str(repo), "branch": "topic", "path": str(nested)}
    )
    assert code(again) == "worktree_create_failed"
    assert "already checked out" in again["error"]["message"]
    assert not (herdr.root / "new-parent").exists()  # the parents it made are gone again


def _state(server: ServerHandle, herdr: HerdrEnv, repo: Path) -> tuple[Any, list[str], str]:
    workspaces = server.request("workspace.list", {})["result"]["workspaces"]
    branches = git(herdr, repo, "branch", "--list")
    return workspaces, git_worktrees(herdr, repo), branches


BAD_CREATE = [
    pytest.param({"branch": "-D"}, "invalid_params", id="branch-starting-with-dash"),
    pytest.param({"branch": "--force"}, "invalid_params", id="branch-double-dash-option"),
    pytest.param({"branch": "a..b"}, "invalid_params", id="branch-not-a-ref-name"),
    pytest.param({"branch": "   "}, "invalid_params", id="branch-blank"),
    pytest.param({"branch": "x\ny"}, "invalid_params", id="branch-control-char"),
    pytest.param({"branch": "ok", "base": "-h"}, "invalid_params", id="base-starting-with-dash"),
    pytest.param({"branch": "ok", "base": "nope"}, "invalid_params", id="base-not-a-commit"),
    pytest.param({"branch": "ok", "path": "rel/dir"}, "invalid_params", id="relative-path"),
    pytest.param({"branch": "ok", "path": "/"}, "worktree_create_failed", id="path-exists"),
    pytest.param({"branch": 7}, "invalid_request", id="branch-not-a-string"),
]


@pytest.mark.parametrize(("extra", "expected"), BAD_CREATE)
def test_bad_create_is_refused_and_changes_nothing(
    repo_server: tuple[ServerHandle, Path], extra: dict[str, Any], expected: str
) -> None:
    server, repo = repo_server
    before = _state(server, server.herdr, repo)
    assert code(server.request("worktree.create", {"cwd": str(repo), **extra})) == expected
    assert _state(server, server.herdr, repo) == before
    assert server.request("ping", {})["result"]["type"] == "pong"


def test_not_a_repository_and_source_errors(repo_server: tuple[ServerHandle, Path]) -> None:
    server, repo = repo_server
    plain = server.herdr.root / "plain"
    plain.mkdir()
    for method in ("worktree.list", "worktree.create"):
        assert code(server.request(method, {"cwd": str(plain)})) == "not_git_worktree"
    assert code(server.request("worktree.open", {"cwd": str(plain), "branch": "x"})) == (
        "not_git_worktree"
    )
    both = {"cwd": str(repo), "workspace_id": "w1"}
    assert code(server.request("worktree.list", both)) == "invalid_request"
    assert code(server.request("worktree.list", {"workspace_id": "w99"})) == "workspace_not_found"
    assert code(server.request("worktree.list", {"cwd": "relative"})) == "invalid_params"
    assert code(server.request("worktree.list", {"cwd": "/no/such/dir"})) == "invalid_params"
    # no cwd, no workspace_id, no workspace at all
    assert code(server.request("worktree.list", {})) == "invalid_request"


def test_open_errors(repo_server: tuple[ServerHandle, Path]) -> None:
    server, repo = repo_server
    cases = [
        ({}, "invalid_request"),
        ({"branch": "main", "path": str(repo)}, "invalid_request"),
        ({"branch": "nope"}, "worktree_not_found"),
        ({"path": str(server.herdr.root)}, "worktree_not_found"),
    ]
    for extra, expected in cases:
        assert code(server.request("worktree.open", {"cwd": str(repo), **extra})) == expected


def test_open_a_worktree_made_outside_herdr(repo_server: tuple[ServerHandle, Path]) -> None:
    server, repo = repo_server
    herdr = server.herdr
    outside = herdr.root / "outside"
    git(herdr, repo, "worktree", "add", "-q", "-b", "manual", str(outside))
    opened = ok(
        server.request("worktree.open", {"cwd": str(repo), "path": str(outside), "label": "M"})
    )
    assert opened["already_open"] is False
    assert opened["workspace"]["label"] == "M"
    assert opened["worktree"]["branch"] == "manual"
    # from the linked worktree itself, create/open refuse; list works
    assert code(server.request("worktree.open", {"cwd": str(outside), "branch": "main"})) == (
        "linked_worktree_source"
    )
    listed = ok(server.request("worktree.list", {"cwd": str(outside)}))
    assert listed["source"]["repo_root"] == os.path.realpath(repo)


def test_remove_refuses_dirty_then_force(repo_server: tuple[ServerHandle, Path]) -> None:
    server, repo = repo_server
    herdr = server.herdr
    created = ok(server.request("worktree.create", {"cwd": str(repo), "branch": "dirty"}))
    ws_id, path = created["workspace"]["workspace_id"], created["worktree"]["path"]
    Path(path, "scratch.txt").write_text("unsaved\n", encoding="utf-8")
    refused = server.request("worktree.remove", {"workspace_id": ws_id})
    assert code(refused) == "dirty_worktree_requires_force"
    assert path in git_worktrees(herdr, repo)
    assert Path(path, "scratch.txt").exists()
    assert ok(server.request("workspace.get", {"workspace_id": ws_id}))
    removed = ok(server.request("worktree.remove", {"workspace_id": ws_id, "force": True}))
    assert removed["forced"] is True
    assert not os.path.exists(path)


def test_remove_of_a_checkout_deleted_behind_gits_back(
    repo_server: tuple[ServerHandle, Path],
) -> None:
    server, repo = repo_server
    herdr = server.herdr
    created = ok(server.request("worktree.create", {"cwd": str(repo), "branch": "vanished"}))
    ws_id, path = created["workspace"]["workspace_id"], created["worktree"]["path"]
    subprocess.run(["rm", "-rf", path], check=True)
    removed = ok(server.request("worktree.remove", {"workspace_id": ws_id}))
    assert removed["forced"] is False
    assert path not in git_worktrees(herdr, repo)
    assert code(server.request("workspace.get", {"workspace_id": ws_id})) == "workspace_not_found"


def test_remove_refuses_a_workspace_that_is_not_a_linked_worktree(
    repo_server: tuple[ServerHandle, Path],
) -> None:
    server, repo = repo_server
    plain = ok(server.request("workspace.create", {"cwd": str(repo)}))["workspace"]
    assert code(server.request("worktree.remove", {"workspace_id": plain["workspace_id"]})) == (
        "not_linked_worktree"
    )
    ok(server.request("worktree.create", {"cwd": str(repo), "branch": "b1"}))
    listed = ok(server.request("worktree.list", {"cwd": str(repo)}))
    parent = listed["source"]["source_workspace_id"]
    assert code(server.request("worktree.remove", {"workspace_id": parent})) == (
        "not_linked_worktree"
    )
    assert code(server.request("worktree.remove", {"workspace_id": "w77"})) == (
        "workspace_not_found"
    )


def test_close_group(repo_server: tuple[ServerHandle, Path]) -> None:
    server, repo = repo_server
    one = ok(server.request("worktree.create", {"cwd": str(repo), "branch": "g1"}))
    two = ok(server.request("worktree.create", {"cwd": str(repo), "branch": "g2"}))
    other = ok(server.request("workspace.create", {"cwd": str(server.herdr.root)}))
    parent = ok(server.request("worktree.list", {"cwd": str(repo)}))["source"][
        "source_workspace_id"
    ]
    before = server.request("workspace.list", {})["result"]["workspaces"]
    refused = server.request("workspace.close", {"workspace_id": parent})
    assert code(refused) == "workspace_group_close_required"
    assert server.request("workspace.list", {})["result"]["workspaces"] == before
    # a linked worktree workspace closes alone
    two_id = two["workspace"]["workspace_id"]
    assert ok(server.request("workspace.close", {"workspace_id": two_id}))["type"] == "ok"
    assert ok(server.request("workspace.close", {"workspace_id": parent, "close_group": True}))
    left = [w["workspace_id"] for w in server.request("workspace.list", {})["result"]["workspaces"]]
    assert left == [other["workspace"]["workspace_id"]]
    assert one["workspace"]["workspace_id"] not in left
    # closing workspaces never deletes checkouts
    assert os.path.isdir(one["worktree"]["path"])


def test_workspace_create_follows_source_workspace_cwd(
    repo_server: tuple[ServerHandle, Path],
) -> None:
    server, repo = repo_server
    elsewhere = server.herdr.root / "elsewhere"
    elsewhere.mkdir()
    focused = ok(server.request("workspace.create", {"cwd": str(elsewhere), "focus": True}))
    source = ok(server.request("workspace.create", {"cwd": str(repo)}))["workspace"]
    created = ok(
        server.request("workspace.create", {"source_workspace_id": source["workspace_id"]})
    )
    assert created["root_pane"]["cwd"] == str(repo)
    plain = ok(server.request("workspace.create", {}))  # follows the focused one
    assert plain["root_pane"]["cwd"] == str(elsewhere)
    assert focused["workspace"]["focused"] is True
    assert code(server.request("workspace.create", {"source_workspace_id": "w99"})) == (
        "workspace_not_found"
    )


def test_worktree_workspaces_survive_a_restart(herdr_env: HerdrEnv) -> None:
    repo = make_repo(herdr_env)
    server = start_git_server(herdr_env)
    created = ok(server.request("worktree.create", {"cwd": str(repo), "branch": "keep"}))
    before = server.request("workspace.list", {})["result"]["workspaces"]
    assert server.server.stop() == 0
    again = ServerHandle(herdr_env, herdr_env.start_server())
    after = again.request("workspace.list", {})["result"]["workspaces"]
    assert [w["worktree"] for w in after] == [w["worktree"] for w in before]
    ws_id = created["workspace"]["workspace_id"]
    removed = ok(again.request("worktree.remove", {"workspace_id": ws_id}))
    assert removed["path"] == created["worktree"]["path"]


def test_concurrent_requests_are_answered_while_git_runs(
    repo_server: tuple[ServerHandle, Path],
) -> None:
    """git runs off the loop: a ping sent while a create is in flight is answered."""
    server, repo = repo_server
    hook = repo / ".git" / "hooks" / "post-checkout"
    flag = server.herdr.root / "hook-ran"
    release = server.herdr.root / "release"
    hook.write_text(
        f"#!/bin/sh\ntouch '{flag}'\nwhile [ ! -e '{release}' ]; do sleep 0.05; done\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    held = HeldConnection(
        server.socket_path, "worktree.create", {"cwd": str(repo), "branch": "slow"}, timeout=60
    )
    try:
        wait_until(flag.exists, 30, message="post-checkout hook never ran")
        assert server.request("ping", {})["result"]["type"] == "pong"
        ok(server.request("worktree.list", {"cwd": str(repo)}))  # git itself is not blocked
        same = server.request("worktree.create", {"cwd": str(repo), "branch": "slow"})
        assert code(same) == "worktree_operation_in_progress"
        release.touch()
        answer = held.next()
        assert answer is not None
        ok(answer)
    finally:
        release.touch()
        held.close()


def test_a_hook_that_leaves_a_job_running_does_not_hold_the_create(
    repo_server: tuple[ServerHandle, Path],
) -> None:
    """A post-checkout hook that starts a background job (a watcher, an install) leaves
    git's output open after git exits: the create still answers, it does not time out."""
    server, repo = repo_server
    pid_file = server.herdr.root / "job.pid"
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(
        f"#!/bin/sh\nsleep 120 &\necho $! > '{pid_file}'\necho hook-done\n", encoding="utf-8"
    )
    hook.chmod(0o755)
    try:
        created = ok(server.request("worktree.create", {"cwd": str(repo), "branch": "hooked"}))
        assert created["worktree"]["branch"] == "hooked"
        assert created["worktree"]["path"] in git_worktrees(server.herdr, repo)
        job = int(pid_file.read_text().strip())
        os.kill(job, 0)  # the user's job is left alone: it is still running
    finally:
        if pid_file.exists():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid_file.read_text().strip()), 9)


def _as_nobody_possible() -> bool:
    return os.geteuid() == 0


@pytest.mark.skipif(not _as_nobody_possible(), reason="needs root to chown a repo to uid 65534")
def test_trust_repository_for_a_repo_owned_by_another_user(herdr_env: HerdrEnv) -> None:
    repo = make_repo(herdr_env, "foreign")
    subprocess.run(["chown", "-R", "65534:65534", str(repo)], check=True)
    server = start_git_server(herdr_env)
    refused = server.request("worktree.list", {"cwd": str(repo)})
    assert code(refused) == "repository_not_trusted"
    assert "trust_repository" in refused["error"]["message"]
    listed = ok(server.request("worktree.list", {"cwd": str(repo), "trust_repository": True}))
    assert listed["source"]["repo_root"] == os.path.realpath(repo)
    # trusted once: later requests (and a restarted server) need no flag
    ok(server.request("worktree.list", {"cwd": str(repo)}))
    store = Path(herdr_env.env["XDG_STATE_HOME"]) / "herdr" / "trusted-repositories.json"
    assert os.path.realpath(repo) in store.read_text(encoding="utf-8")
    assert server.server.stop() == 0
    again = ServerHandle(herdr_env, herdr_env.start_server())
    ok(again.request("worktree.list", {"cwd": str(repo)}))
