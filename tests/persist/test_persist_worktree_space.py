"""A workspace's worktree membership survives capture -> encode -> decode -> restore."""

from __future__ import annotations

from herdr.persist import mapping
from herdr.persist.snapshot import decode, encode
from herdr.runtime.model import Session, WorktreeMembership


def test_worktree_membership_round_trips() -> None:
    session = Session()
    parent = session.create_workspace("/src/proj").workspace
    linked = session.create_workspace("/w/feat").workspace
    parent.worktree = WorktreeMembership("/src/proj/.git", "proj", "/src/proj", "/src/proj", False)
    linked.worktree = WorktreeMembership("/src/proj/.git", "proj", "/src/proj", "/w/feat", True)
    plain = session.create_workspace("/tmp").workspace

    snapshot = decode(encode(mapping.capture(session)))
    restored = Session()
    mapping.restore(restored, snapshot, home="/home", exists=lambda _: True)
    by_id = {ws.id: ws for ws in restored.workspaces}
    assert by_id[parent.id].worktree == parent.worktree
    assert by_id[linked.id].worktree == linked.worktree
    assert by_id[plain.id].worktree is None
    info = restored.workspace_info(by_id[linked.id])
    assert info["worktree"] == linked.worktree.record()
