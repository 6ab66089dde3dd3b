"""``worktree.list|create|open|remove``: git worktrees, each opened as a workspace.

A repository's main checkout and the linked worktrees opened from it form a group: each
workspace carries its `WorktreeMembership` (persisted with the session). The source of a
request is ``cwd``, else ``workspace_id``'s membership or focused pane cwd, else the
active workspace. git runs off the loop (`herdr.server.git_worktrees`); the session is
changed only after git has succeeded, so a refusal changes nothing.
"""

from __future__ import annotations

import os
import time
from typing import Any

from msgspec import Struct

from herdr.api import protocol
from herdr.runtime import model as m
from herdr.runtime import worktrees as wt
from herdr.server.core import ApiError, Result
from herdr.server.git_worktrees import GitRequest, git_env
from herdr.server.methods_workspaces import start_or_undo
from herdr.server.panes import PaneHost
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode


class Source(Struct, frozen=True):
    """The repository a request works on and the parent workspace found for it."""

    space: wt.GitSpace  # checkout_path = the main checkout the request starts from
    workspace: m.Workspace | None


def _git(call: Call) -> GitRequest:
    trust = bool(call.params.get("trust_repository", False))
    return GitRequest(git_env(call.server.panes.env), call.server.worktrees.trusted, trust)


def _real(path: str) -> str:
    return os.path.realpath(path)


def _absolute(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.startswith("/"):
        raise ApiError(protocol.INVALID_PARAMS, f"params.{field}: must be an absolute path")
    if "\0" in value:
        raise ApiError(protocol.INVALID_PARAMS, f"params.{field}: must not contain NUL")
    return os.path.normpath(value)


# --- finding workspaces ---------------------------------------------------------------


def _identity(host: PaneHost, ws: m.Workspace) -> str:
    return _real(ws.identity_cwd)


def parent_workspace(host: PaneHost, space: wt.GitSpace) -> m.Workspace | None:
    """The workspace of the repository's main checkout: by membership, else one opened
    on that directory."""
    for ws in host.session.workspaces:
        member = ws.worktree
        if member is not None and member.repo_key == space.repo_key:
            if member.is_linked_worktree:
                continue
            return ws
    for ws in host.session.workspaces:
        if ws.worktree is None and _identity(host, ws) == space.repo_root:
            return ws
    return None


def workspace_for_checkout(host: PaneHost, checkout: str) -> m.Workspace | None:
    """The workspace showing `checkout` (a real path): membership first, and a workspace
    with a membership is never matched by where its shell went."""
    for ws in host.session.workspaces:
        if ws.worktree is not None and ws.worktree.checkout_path == checkout:
            return ws
    for ws in host.session.workspaces:
        if ws.worktree is None and _identity(host, ws) == checkout:
            return ws
    return None


def _membership(space: wt.GitSpace, checkout: str) -> m.WorktreeMembership:
    return m.WorktreeMembership(
        space.repo_key, space.repo_name, space.repo_root, checkout, checkout != space.repo_root
    )


async def resolve_source(call: Call, git: GitRequest, *, allow_linked: bool) -> Source:
    """The repository of ``cwd`` / ``workspace_id`` / the active workspace.

    ``worktree.list`` may start from a linked worktree (it lists the whole repository);
    create and open start from the main checkout (herdr: ``linked_worktree_source``).
    """
    host = call.server.panes
    p = call.params
    workspace_id, cwd = p.get("workspace_id"), p.get("cwd")
    if workspace_id is not None and cwd is not None:
        raise ApiError(protocol.INVALID_REQUEST, "only one of workspace_id or cwd may be supplied")
    ws: m.Workspace | None = None
    if cwd is not None:
        path = _absolute(cwd, "cwd")
        if not os.path.isdir(path):
            raise ApiError(protocol.INVALID_PARAMS, f"params.cwd: {path} is not a directory")
    else:
        ws = host.session.workspace(workspace_id) if workspace_id is not None else None
        ws = ws or host.session.active()
        if ws is None:
            raise ApiError(
                protocol.INVALID_REQUEST,
                "workspace_id or cwd is required when no workspace is active",
            )
        if ws.worktree is not None:
            member = ws.worktree
            if member.is_linked_worktree and not allow_linked:
                raise _linked_source()
            space = wt.GitSpace(
                member.repo_root, member.repo_root, member.repo_key, member.repo_name
            )
            return Source(space, parent_workspace(host, space))
        tab = ws.active()
        loc = m.PaneLoc(ws, tab, tab.panes[tab.focused])
        path = host.working_dir(loc, ws.identity_cwd) or ws.identity_cwd
    found = await git.discover(path)
    if found.is_linked_worktree and not allow_linked:
        raise _linked_source()
    space = wt.GitSpace(found.repo_root, found.repo_root, found.repo_key, found.repo_name)
    if ws is not None and not found.is_linked_worktree:
        return Source(space, ws)
    return Source(space, parent_workspace(host, space))


def _linked_source() -> ApiError:
    return ApiError(
        wt.LINKED_WORKTREE_SOURCE,
        "new and open worktree actions start from the repository's main checkout workspace",
    )


# --- records --------------------------------------------------------------------------


def worktree_record(host: PaneHost, space: wt.GitSpace, entry: wt.Worktree) -> Result:
    """WorktreeInfo; ``label`` is the repository name, as herdr shows it."""
    real = _real(entry.path)
    record: Result = {
        "path": entry.path,
        "is_bare": entry.is_bare,
        "is_detached": entry.is_detached,
        "is_prunable": entry.is_prunable,
        "is_linked_worktree": real != space.repo_root,
        "label": space.repo_name,
    }
    if entry.branch is not None:
        record["branch"] = entry.branch
    ws = None if entry.is_bare else workspace_for_checkout(host, real)
    if ws is not None:
        record["open_workspace_id"] = ws.id
    return record


def source_record(source: Source) -> Result:
    record: Result = {
        "repo_key": source.space.repo_key,
        "repo_name": source.space.repo_name,
        "repo_root": source.space.repo_root,
        "source_checkout_path": source.space.checkout_path,
    }
    if source.workspace is not None:
        record["source_workspace_id"] = source.workspace.id
    return record


# --- opening workspaces -----------------------------------------------------------------


def _open_workspace(
    host: PaneHost, path: str, member: m.WorktreeMembership, *, label: str | None, focus: bool
) -> m.Workspace:
    """A new workspace on `path` with its membership, and its creation events."""
    before = host.session.focused_ids()
    created = host.session.create_workspace(path, label=label, focus=focus)
    created.workspace.worktree = member
    start_or_undo(host, created, "worktree_open_failed")
    ws = created.workspace
    host.emit("workspace_created", {"workspace": host.workspace_record(ws)})
    host.emit("tab_created", {"tab": host.tab_record(ws, created.tab)})
    host.emit("pane_created", {"pane": host.pane_record(created.loc)})
    host.emit_focus_changes(before)
    return ws


def _still_open(host: PaneHost, ws: m.Workspace | None) -> bool:
    return any(other is ws for other in host.session.workspaces)


def _ensure_parent(host: PaneHost, source: Source) -> m.Workspace:
    """The main checkout's workspace, marked as the group's parent (opened if none is)."""
    member = _membership(source.space, source.space.repo_root)
    ws = source.workspace if _still_open(host, source.workspace) else None
    ws = ws or parent_workspace(host, source.space)
    if ws is None:
        return _open_workspace(host, source.space.repo_root, member, label=None, focus=False)
    if ws.worktree != member:
        ws.worktree = member
        host.emit("workspace_updated", {"workspace": host.workspace_record(ws)})
    return ws


def _opened_result(
    kind: str, host: PaneHost, ws: m.Workspace, worktree: Result, **extra: bool
) -> Result:
    tab = ws.active()
    loc = m.PaneLoc(ws, tab, tab.panes[tab.root_pane])
    return {
        "type": kind,
        "workspace": host.workspace_record(ws),
        "tab": host.tab_record(ws, tab),
        "root_pane": host.pane_record(loc),
        "worktree": worktree,
        **extra,
    }


# --- methods ----------------------------------------------------------------------------


async def worktree_list(call: Call) -> Result:
    git = _git(call)
    source = await resolve_source(call, git, allow_linked=True)
    entries = await git.list(source.space)
    git.remember_trust()
    host = call.server.panes
    return {
        "type": "worktree_list",
        "source": source_record(source),
        "worktrees": [worktree_record(host, source.space, entry) for entry in entries],
    }


async def _checked_ref(git: GitRequest, space: wt.GitSpace, value: str, field: str) -> str:
    problem = wt.ref_problem(value, f"params.{field}")
    if problem is not None:
        raise ApiError(protocol.INVALID_PARAMS, problem)
    if field == "branch" and not await git.valid_branch_name(space, value):
        raise ApiError(
            protocol.INVALID_PARAMS, f"params.branch: {value!r} is not a valid branch name"
        )
    return value


async def worktree_create(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    git = _git(call)
    raw_branch = p.get("branch")
    if raw_branch is not None and not raw_branch.strip():
        raise ApiError(protocol.INVALID_PARAMS, "params.branch: must not be empty")
    path = _absolute(p["path"], "path") if p.get("path") is not None else None
    source = await resolve_source(call, git, allow_linked=False)
    branch = (
        raw_branch.strip()
        if raw_branch is not None
        else wt.generated_branch(time.time_ns() // 1000)
    )
    branch = await _checked_ref(git, source.space, branch, "branch")
    base = await _checked_ref(git, source.space, p.get("base") or "HEAD", "base")
    if path is None:
        directory = host.settings.worktree_directory
        path = wt.default_checkout_path(directory, host.home(), source.space.repo_name, branch)
    real = _real(path)
    with call.server.worktrees.claim(real):
        existing = await git.branch_exists(source.space, branch)
        if not existing and not await git.is_commit(source.space, base):
            raise ApiError(protocol.INVALID_PARAMS, f"params.base: {base!r} is not a commit")
        if os.path.lexists(path) and not (os.path.isdir(path) and not os.listdir(path)):
            raise ApiError("worktree_create_failed", f"{path} already exists")
        made = _make_parents(path)
        try:
            await git.add(source.space, path, branch, base, existing=existing)
        except BaseException:
            _remove_empty(made)
            raise
        git.remember_trust()
        real = _real(path)
        _ensure_parent(host, source)
        ws = _open_workspace(
            host,
            real,
            _membership(source.space, real),
            label=p.get("label"),
            focus=bool(p.get("focus", False)),
        )
    worktree = worktree_record(host, source.space, wt.Worktree(real, branch))
    host.emit("worktree_created", {"workspace": host.workspace_record(ws), "worktree": worktree})
    return _opened_result("worktree_created", host, ws, worktree)


def _make_parents(path: str) -> list[str]:
    """Create the missing parents of `path`; returns them (outermost first) so a failed
    ``git worktree add`` leaves nothing behind."""
    missing: list[str] = []
    parent = os.path.dirname(path)
    while parent != "/" and not os.path.lexists(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    missing.reverse()
    try:
        for directory in missing:
            os.mkdir(directory)
    except OSError as err:
        _remove_empty(missing)
        raise ApiError("worktree_create_failed", f"cannot create {path}: {err}") from None
    return missing


def _remove_empty(directories: list[str]) -> None:
    for directory in reversed(directories):
        try:
            os.rmdir(directory)
        except OSError:
            return


def _find_entry(entries: list[wt.Worktree], path: str | None, branch: str | None) -> wt.Worktree:
    for entry in entries:
        if path is not None and _real(entry.path) == _real(path):
            return entry
        if branch is not None and entry.branch == branch:
            return entry
    wanted = f"path {path}" if path is not None else f"branch {branch}"
    raise ApiError(ErrorCode.WORKTREE_NOT_FOUND, f"no worktree with {wanted}")


async def worktree_open(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    path, branch = p.get("path"), p.get("branch")
    if (path is None) == (branch is None):
        raise ApiError(protocol.INVALID_REQUEST, "exactly one of path or branch is required")
    if path is not None:
        path = _absolute(path, "path")
    git = _git(call)
    source = await resolve_source(call, git, allow_linked=False)
    entry = _find_entry(await git.list(source.space), path, branch)
    if entry.is_bare or entry.is_prunable:
        raise ApiError(ErrorCode.WORKTREE_NOT_FOUND, f"worktree {entry.path} cannot be opened")
    git.remember_trust()
    real = _real(entry.path)
    label, focus = p.get("label"), bool(p.get("focus", False))
    ws = workspace_for_checkout(host, real)
    already_open = ws is not None
    parent = _ensure_parent(host, source)
    if ws is None and real == source.space.repo_root:
        ws = parent
    if ws is None:
        ws = _open_workspace(host, real, _membership(source.space, real), label=label, focus=focus)
    else:
        member = _membership(source.space, real)
        if ws.worktree != member:
            ws.worktree = member
            host.emit("workspace_updated", {"workspace": host.workspace_record(ws)})
        if label is not None:
            renamed = host.session.rename_workspace(ws.id, label)
            host.emit(
                "workspace_renamed", {"workspace_id": ws.id, "label": renamed.display_label()}
            )
        if focus:
            before = host.session.focused_ids()
            host.session.focus_workspace(ws.id)
            host.emit_focus_changes(before)
    worktree = worktree_record(host, source.space, entry)
    host.emit(
        "worktree_opened",
        {
            "workspace": host.workspace_record(ws),
            "worktree": worktree,
            "already_open": already_open,
        },
    )
    return _opened_result("worktree_opened", host, ws, worktree, already_open=already_open)


async def worktree_remove(call: Call) -> Result:
    host = call.server.panes
    p = call.params
    ws = host.session.workspace(p["workspace_id"])
    member = ws.worktree
    if member is None or not member.is_linked_worktree:
        raise ApiError(
            wt.NOT_LINKED_WORKTREE, f"workspace {ws.id} is not a linked worktree checkout"
        )
    force = bool(p.get("force", False))
    git = _git(call)
    space = wt.GitSpace(member.repo_root, member.repo_root, member.repo_key, member.repo_name)
    checkout = member.checkout_path
    with call.server.worktrees.claim(checkout):
        branch = None
        if os.path.isdir(checkout):
            if not force and await git.is_dirty(checkout):
                raise ApiError(
                    wt.DIRTY_WORKTREE,
                    f"{checkout} contains modified or untracked files; use force to delete it",
                )
            branch = next(
                (e.branch for e in await git.list(space) if _real(e.path) == checkout), None
            )
        await git.remove(space, checkout, force=force)
        git.remember_trust()
    if not _still_open(host, ws):  # closed while git ran: nothing left to close
        return {
            "type": "worktree_removed",
            "workspace_id": ws.id,
            "path": checkout,
            "forced": force,
        }
    workspace = host.workspace_record(ws)
    worktree = worktree_record(host, space, wt.Worktree(checkout, branch))
    worktree.pop("open_workspace_id", None)
    before = host.session.focused_ids()
    closed = host.session.close_workspace(ws.id)
    host.emit_closed(closed)
    host.emit_focus_changes(before)
    host.emit(
        "worktree_removed",
        {"workspace_id": ws.id, "worktree": worktree, "forced": force, "workspace": workspace},
    )
    return {"type": "worktree_removed", "workspace_id": ws.id, "path": checkout, "forced": force}
