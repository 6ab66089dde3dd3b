"""The ``open_worktree`` picker and ``remove_worktree`` (herdr's keys, unset by default).

``open_worktree`` lists the git worktrees of the focused workspace's repository
(``worktree.list``); typing filters them, Enter switches to the workspace already open
on one or opens it (``worktree.open``), and a name that is no worktree's branch offers
to create one (``worktree.create``). ``remove_worktree`` asks first, then removes the
focused workspace's linked worktree (``worktree.remove``; git refuses a dirty one and
the refusal is shown). The rows are a pure function of the list and the text typed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from herdr.client.prompt import Prompt
from herdr.client.view import Panel

if TYPE_CHECKING:
    from herdr.client.app import App

HINT = "type to filter or name a new branch · up/down · enter open · esc close"


class Row(Struct, frozen=True):
    """One line of the picker: an existing worktree, or "create" for the typed name."""

    text: str
    path: str | None = None
    open_workspace_id: str | None = None
    new_branch: str | None = None


def rows(worktrees: Sequence[Mapping[str, Any]], query: str) -> list[Row]:
    """Worktrees (bare and prunable ones left out) whose branch, label or path holds
    every word typed, then "create" when the typed name is a new branch (PURE)."""
    words = query.lower().split()
    found: list[Row] = []
    branches: set[str] = set()
    for tree in worktrees:
        if tree.get("is_bare") or tree.get("is_prunable"):
            continue
        path = str(tree.get("path") or "")
        branch = tree.get("branch")
        name = branch if isinstance(branch, str) and branch else "(detached)"
        if isinstance(branch, str):
            branches.add(branch.lower())
        opened = tree.get("open_workspace_id")
        opened = opened if isinstance(opened, str) and opened else None
        text = f"{name}  {path}" + ("  · open" if opened else "")
        haystack = f"{name} {tree.get('label') or ''} {path}".lower()
        if all(word in haystack for word in words):
            found.append(Row(text, path, opened))
    name = query.strip()
    if name and " " not in name and name.lower() not in branches:  # "Feat" is feat's
        found.append(Row(f"create worktree on new branch {name}", new_branch=name))
    return found


def _choice(prompt: Prompt, shown: Sequence[Row]) -> int:
    return min(max(0, prompt.choice), max(0, len(shown) - 1))


def open_picker(app: App) -> None:
    """Fetch the focused workspace's worktrees, then open the picker over them."""
    if app.ws_id is None:
        app.notice("open worktree: no workspace")
        return
    app.spawn(_open(app, app.ws_id))


async def _open(app: App, workspace_id: str) -> None:
    try:
        envelope = await app.conn.call("worktree.list", {"workspace_id": workspace_id})
    except (OSError, ValueError) as exc:
        app.notice(f"open worktree: {exc}")
        return
    error = envelope.get("error")
    if isinstance(error, dict):
        app.notice(f"open worktree: {error.get('message')}")
        return
    result = envelope.get("result")
    trees = result.get("worktrees") if isinstance(result, dict) else None
    app.worktree_list = tuple(t for t in trees or () if isinstance(t, dict))
    prompt = Prompt("worktree", workspace_id, "", choice=0, heading="open worktree")
    for action in app.machine.open_prompt(prompt):
        app.do(action)


def panel(app: App, prompt: Prompt) -> Panel:
    shown = rows(app.worktree_list, prompt.text)
    return Panel(
        "worktrees",
        tuple(row.text for row in shown),
        _choice(prompt, shown) if shown else None,
        HINT,
        empty="no worktree matches",
    )


def changed(app: App, prompt: Prompt) -> None:
    """The selection stays in range as the filter narrows."""
    shown = rows(app.worktree_list, prompt.text)
    choice = _choice(prompt, shown)
    if choice != prompt.choice:
        for action in app.machine.open_prompt(
            Prompt(prompt.kind, prompt.target, prompt.text, prompt.cursor, choice=choice)
        ):
            app.do(action)


def submit(app: App, prompt: Prompt) -> None:
    shown = rows(app.worktree_list, prompt.text)
    if not shown:
        return
    row = shown[_choice(prompt, shown)]
    if row.open_workspace_id is not None:
        app.switch_workspace(row.open_workspace_id)
        return
    params: dict[str, Any] = {"workspace_id": prompt.target, "focus": True}
    if row.new_branch is not None:
        params["branch"] = row.new_branch
        app.request("worktree.create", params, switch=True)
        return
    params["path"] = row.path
    app.request("worktree.open", params, switch=True)


def remove(app: App) -> None:
    """Ask, then remove the focused workspace's linked worktree (git keeps a dirty one)."""
    record = next(
        (w for w in (app.doc.workspaces if app.doc else []) if w.get("workspace_id") == app.ws_id),
        None,
    )
    tree = record.get("worktree") if record else None
    if record is None or not isinstance(tree, dict) or not tree.get("is_linked_worktree"):
        app.notice("remove worktree: this workspace is not a linked git worktree")
        return
    workspace_id = str(record["workspace_id"])
    path = str(tree.get("checkout_path") or "")
    app.pending_close = ("worktree.remove", {"workspace_id": workspace_id})
    text = f"remove the worktree at {path} and close its workspace? (y/n)"
    prompt = Prompt("confirm", workspace_id, text, len(text), heading="remove?")
    for action in app.machine.open_prompt(prompt):
        app.do(action)
