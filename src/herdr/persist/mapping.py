"""PURE mapping between the runtime model and the snapshot: capture and restore plans.

The model knows layout, labels and numbers; the server knows what the model does not
(the foreground process's cwd, agent names, reported session references), so capture
takes a `facts` callback per pane. Restore rebuilds the model with the saved public
ids (via `Session.restore_workspace`) and returns, per pane, everything the server
needs to start it: the cwd to use (a vanished one falls back to ``$HOME``), whether
to resume a native agent conversation or start a shell, and the session reference to
keep on the new terminal. All file and PATH checks come in as callables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from msgspec import Struct

from herdr.persist import resume
from herdr.persist.errors import SnapshotFormatError
from herdr.persist.snapshot import (
    PaneSnapshot,
    SessionSnapshot,
    TabSnapshot,
    WorkspaceSnapshot,
    WorktreeSpaceSnapshot,
)
from herdr.runtime import ids
from herdr.runtime import layout as lay
from herdr.runtime.agent_state import AgentSession
from herdr.runtime.model import (
    ModelError,
    PaneLoc,
    PaneSeed,
    Session,
    TabSeed,
    Workspace,
    WorktreeMembership,
)


class PaneFacts(Struct, frozen=True):
    """What the server knows about a pane beyond the model; None = take the model's."""

    cwd: str | None = None  # the foreground process's cwd
    agent_name: str | None = None
    managed_agent_kind: str | None = None
    agent_session: AgentSession | None = None
    launch_argv: tuple[str, ...] | None = None


FactsOf = Callable[[PaneLoc], PaneFacts]


# --------------------------------------------------------------------------- capture


def capture(
    session: Session, facts: FactsOf | None = None, *, selected: int | None = None
) -> SessionSnapshot:
    """The snapshot of `session` now. `selected` is the sidebar selection index
    (default: the active workspace)."""
    workspaces = tuple(_capture_ws(session, ws, facts) for ws in session.workspaces)
    active = next(
        (i for i, ws in enumerate(session.workspaces) if ws.number == session.active_workspace),
        None,
    )
    if selected is None or not 0 <= selected < max(1, len(workspaces)):
        selected = active or 0
    return SessionSnapshot(workspaces, active, selected, session.next_workspace_number)


def _capture_ws(session: Session, ws: Workspace, facts: FactsOf | None) -> WorkspaceSnapshot:
    tabs: list[TabSnapshot] = []
    numbers: dict[int, int] = {}
    for tab in ws.tabs:
        panes: dict[int, PaneSnapshot] = {}
        for key in tab.pane_keys():
            pane = tab.panes[key]
            numbers[key] = pane.number
            extra = facts(PaneLoc(ws, tab, pane)) if facts is not None else PaneFacts()
            argv = extra.launch_argv
            if argv is None and pane.command is not None:
                argv = tuple(pane.command)
            panes[key] = PaneSnapshot(
                cwd=extra.cwd or pane.cwd or ws.identity_cwd,
                label=pane.label,
                agent_name=extra.agent_name,
                managed_agent_kind=extra.managed_agent_kind,
                agent_session=extra.agent_session,
                launch_argv=argv,
            )
        tabs.append(
            TabSnapshot(
                layout=tab.root,
                panes=panes,
                custom_name=tab.label,
                zoomed=tab.zoomed,
                focused=tab.focused,
                root_pane=tab.root_pane,
            )
        )
    active_tab = next((i for i, t in enumerate(ws.tabs) if t.number == ws.active_tab), 0)
    return WorkspaceSnapshot(
        id=ws.id,
        identity_cwd=ws.identity_cwd,
        tabs=tuple(tabs),
        public_pane_numbers=numbers,
        public_tab_numbers=tuple(t.number for t in ws.tabs),
        next_public_pane_number=ws.next_pane_number,
        next_public_tab_number=ws.next_tab_number,
        custom_name=ws.label,
        active_tab=active_tab,
        worktree_space=_space_snapshot(ws.worktree),
    )


def _space_snapshot(member: WorktreeMembership | None) -> WorktreeSpaceSnapshot | None:
    if member is None:
        return None
    return WorktreeSpaceSnapshot(
        member.repo_key,
        member.repo_name,
        member.repo_root,
        member.checkout_path,
        member.is_linked_worktree,
    )


def _space_member(space: WorktreeSpaceSnapshot | None) -> WorktreeMembership | None:
    if space is None:
        return None
    return WorktreeMembership(
        space.key, space.label, space.repo_root, space.checkout_path, space.is_linked_worktree
    )


# --------------------------------------------------------------------------- restore


class PaneRestore(Struct, frozen=True):
    """How to bring one restored pane to life."""

    pane_id: str  # public id, the same as before the restart
    key: int  # the model's (new) internal pane key
    saved: PaneSnapshot
    cwd: str  # where to start: the saved cwd, or the fallback
    cwd_fallback: bool  # the saved cwd vanished (log it)
    decision: resume.ResumeDecision  # ResumePlan: run its argv; ResumeFallback: a shell
    agent_name: str | None  # restored only with a resume of the same managed agent kind
    agent_session: AgentSession | None  # keep on the terminal so the next save has it

    @property
    def replay_history(self) -> bool:
        """Native resume owns the conversation; history is replayed only into shells."""
        return not isinstance(self.decision, resume.ResumePlan)


def resolve_cwd(saved: str, home: str, exists: Callable[[str], bool]) -> tuple[str, bool]:
    """(cwd to start in, whether it fell back): saved -> $HOME -> /."""
    if saved.startswith("/") and exists(saved):
        return saved, False
    return (home if home.startswith("/") and exists(home) else "/"), True


def restore(
    session: Session,
    snapshot: SessionSnapshot,
    *,
    home: str,
    exists: Callable[[str], bool],
    resume_enabled: bool = True,
    which: Callable[[str], bool] | None = None,
    recipes: Mapping[str, resume.ResumeRecipe] | None = None,
) -> list[PaneRestore]:
    """Rebuild `snapshot` into the empty `session`; panes in workspace/tab/tree order.

    All or nothing: the workspaces are first restored into a scratch session, so a
    snapshot the model refuses raises `SnapshotFormatError` with `session` untouched
    (the caller then backs the file up via `SessionStore.quarantine`).
    """
    if session.workspaces:
        raise ValueError("restore needs an empty session")
    cwds: dict[tuple[int, int], tuple[str, bool]] = {
        (i, key): resolve_cwd(p.cwd, home, exists)
        for i, ws_snap in enumerate(snapshot.workspaces)
        for tab in ws_snap.tabs
        for key, p in tab.panes.items()
    }
    _apply(Session(), snapshot, cwds)  # dry run
    _apply(session, snapshot, cwds)
    saved: list[tuple[str, int, PaneSnapshot, tuple[str, bool]]] = []
    for i, ws_snap in enumerate(snapshot.workspaces):
        ws = session.workspace_by_number(ws_snap.number)
        assert ws is not None
        by_number = {p.number: p for t in ws.tabs for p in t.panes.values()}
        for tab_snap in ws_snap.tabs:
            for key in lay.leaves(tab_snap.layout):
                pane = by_number[ws_snap.public_pane_numbers[key]]
                pane_id = ids.pane_id(ws.id, pane.number)
                saved.append((pane_id, pane.key, tab_snap.panes[key], cwds[i, key]))
    decisions = resume.plan_restore(
        ((pane_id, p.agent_session, cwd[0]) for pane_id, _, p, cwd in saved),
        enabled=resume_enabled,
        exists=exists,
        which=which,
        extra=recipes,
    )
    out: list[PaneRestore] = []
    for pane_id, key, p, (cwd, fell_back) in saved:
        decision = decisions[pane_id]
        plan = decision if isinstance(decision, resume.ResumePlan) else None
        # A duplicate belongs to another pane; an invalid reference (hand-edited file,
        # older herdr) is dropped so the next save does not write it back.
        dropped = isinstance(decision, resume.ResumeFallback) and (
            decision.reason in ("duplicate_ref", "invalid_ref")
        )
        same_agent = plan is not None and p.managed_agent_kind == plan.agent
        out.append(
            PaneRestore(
                pane_id=pane_id,
                key=key,
                saved=p,
                cwd=cwd,
                cwd_fallback=fell_back,
                decision=decision,
                agent_name=p.agent_name if same_agent else None,
                agent_session=None if dropped else p.agent_session,
            )
        )
    return out


def _apply(
    session: Session, snapshot: SessionSnapshot, cwds: dict[tuple[int, int], tuple[str, bool]]
) -> None:
    for i, ws_snap in enumerate(snapshot.workspaces):
        numbers = ws_snap.public_pane_numbers
        seeds = [
            TabSeed(
                number=ws_snap.public_tab_numbers[t],
                root=lay.map_leaves(tab.layout, numbers.__getitem__),
                panes=tuple(
                    PaneSeed(numbers[key], cwds[i, key][0], tab.panes[key].label)
                    for key in lay.leaves(tab.layout)
                ),
                focused=numbers[tab.focused] if tab.focused is not None else None,
                label=tab.custom_name,
                zoomed=tab.zoomed,
            )
            for t, tab in enumerate(ws_snap.tabs)
        ]
        try:
            session.restore_workspace(
                number=ws_snap.number,
                identity_cwd=ws_snap.identity_cwd,
                tabs=seeds,
                active_tab=ws_snap.public_tab_numbers[ws_snap.active_tab],
                label=ws_snap.custom_name,
                next_tab_number=ws_snap.next_public_tab_number,
                next_pane_number=ws_snap.next_public_pane_number,
                focus=i == snapshot.active,
                worktree=_space_member(ws_snap.worktree_space),
            )
        except ModelError as err:
            raise SnapshotFormatError(f"$.workspaces[{i}]", err.message) from err
    session.reserve_workspace_number(snapshot.workspace_counter() - 1)
