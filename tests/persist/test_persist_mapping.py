"""Model ⇄ snapshot: a restart brings back the same ids, labels, layout, focus and cwds."""

from __future__ import annotations

from pathlib import Path

import pytest

from herdr.persist import mapping
from herdr.persist.errors import SnapshotFormatError
from herdr.persist.mapping import PaneFacts, capture, resolve_cwd, restore
from herdr.persist.resume import ResumeFallback, ResumePlan
from herdr.persist.snapshot import SessionSnapshot, decode, encode
from herdr.persist.store import SessionStore
from herdr.runtime import ids
from herdr.runtime import layout as lay
from herdr.runtime.agent_state import AgentSession, SessionRef
from herdr.runtime.model import ModelError, PaneLoc, Session

HOME = "/home/u"
CLAUDE = AgentSession("herdr:claude", "claude", SessionRef("id", "c-1"))


def exists_all(path: str) -> bool:
    return True


def public_view(snap: SessionSnapshot) -> object:
    """The snapshot with internal pane keys replaced by public pane ids: what a user sees."""
    out = []
    for ws in snap.workspaces:
        pid = {k: ids.pane_id(ws.id, n) for k, n in ws.public_pane_numbers.items()}
        tabs = [
            (
                tab.custom_name,
                lay.map_leaves(tab.layout, pid.__getitem__),
                {pid[k]: p for k, p in tab.panes.items()},
                tab.zoomed,
                pid[tab.focused] if tab.focused is not None else None,
            )
            for tab in ws.tabs
        ]
        out.append(
            (ws.id, ws.custom_name, ws.identity_cwd, ws.public_tab_numbers, tabs, ws.active_tab)
        )
    counters = [(ws.next_public_pane_number, ws.next_public_tab_number) for ws in snap.workspaces]
    return out, counters, snap.active, snap.workspace_counter()


def build() -> Session:
    """w1 "keep": tab 1 = p1 | p2 (p3 split off p2, then closed), tab 2 "logs";
    w2; w3 closed. Focus on w2, w1's first tab zoomed on p2."""
    s = Session()
    s.create_workspace("/src/app", label="keep")
    s.split_pane("w1:p1", direction="right", ratio=0.3, cwd="/src/app/api", label="api")
    s.split_pane("w1:p2", direction="down", cwd="/tmp")
    s.create_tab("w1", cwd="/var/log", label="logs")
    s.close_pane("w1:p3")
    s.create_workspace("/etc")
    s.create_workspace("/opt")
    s.close_workspace("w3")
    s.focus_pane("w1:p2")
    s.zoom("w1:p2", "on")
    s.focus_workspace("w2")
    return s


def round_trip(s: Session, **kwargs: object) -> tuple[Session, list[mapping.PaneRestore]]:
    restored = Session()
    snap = decode(encode(capture(s)))
    plans = restore(restored, snap, home=HOME, exists=exists_all, **kwargs)  # type: ignore[arg-type]
    return restored, plans


def test_restart_restores_ids_labels_layout_focus_zoom_and_cwds() -> None:
    s = build()
    restored, plans = round_trip(s)
    assert public_view(capture(restored)) == public_view(capture(s))
    assert [p.pane_id for p in plans] == ["w1:p1", "w1:p2", "w1:p4", "w2:p1"]
    assert [p.cwd for p in plans] == ["/src/app", "/src/app/api", "/var/log", "/etc"]
    ws = restored.workspace("w1")
    assert ws.label == "keep"
    assert [t.label for t in ws.tabs] == [None, "logs"]
    tab = ws.tabs[0]
    assert tab.zoomed and tab.panes[tab.focused].number == 2
    assert isinstance(tab.root, lay.Split) and (tab.root.direction, tab.root.ratio) == (
        "right",
        0.3,
    )
    assert restored.pane("w1:p2").pane.label == "api"
    assert restored.focused_ids() == s.focused_ids() == ("w2", "w2:t1", "w2:p1")


def test_counters_survive_so_ids_are_never_reused() -> None:
    restored, _ = round_trip(build())
    assert restored.create_workspace("/x").workspace.id == "w4"  # w3 was closed, still reserved
    assert restored.split_pane("w1:p1", direction="down").pane_id == "w1:p5"  # p3 is gone for good
    assert restored.create_tab("w1").tab.number == 3


def test_plans_carry_the_new_model_keys() -> None:
    restored, plans = round_trip(build())
    for plan in plans:
        loc = restored.pane(plan.pane_id)
        assert loc.pane.key == plan.key
        assert loc.pane.cwd == plan.cwd


def test_capture_uses_live_facts_over_the_model() -> None:
    s = Session()
    s.create_workspace("/src", command=["make", "watch"])

    def facts(loc: PaneLoc) -> PaneFacts:
        return PaneFacts(
            cwd="/src/sub", agent_name="rev", managed_agent_kind="claude", agent_session=CLAUDE
        )

    pane = next(iter(capture(s, facts).workspaces[0].tabs[0].panes.values()))
    assert (pane.cwd, pane.agent_name, pane.managed_agent_kind) == ("/src/sub", "rev", "claude")
    assert pane.agent_session == CLAUDE
    assert pane.launch_argv == ("make", "watch")  # from the model when facts do not say


def test_capture_of_an_empty_session() -> None:
    snap = capture(Session())
    assert snap == SessionSnapshot(next_workspace_number=1)
    assert decode(encode(snap)) == snap


@pytest.mark.parametrize(
    ("saved", "existing", "expected"),
    [
        ("/src", {"/src", HOME}, ("/src", False)),
        ("/gone", {HOME}, (HOME, True)),
        ("/gone", set(), ("/", True)),
        ("relative", {"relative", HOME}, (HOME, True)),
    ],
    ids=["exists", "vanished", "no-home", "relative"],
)
def test_resolve_cwd(saved: str, existing: set[str], expected: tuple[str, bool]) -> None:
    assert resolve_cwd(saved, HOME, existing.__contains__) == expected


def test_vanished_cwd_falls_back_to_home_in_model_and_plan() -> None:
    s = Session()
    s.create_workspace("/gone/project")
    restored = Session()
    [plan] = restore(restored, capture(s), home=HOME, exists=lambda p: p == HOME)
    assert plan.cwd == HOME and plan.cwd_fallback
    assert restored.pane("w1:p1").pane.cwd == HOME
    assert plan.saved.cwd == "/gone/project"


def agent_session() -> Session:
    s = Session()
    s.create_workspace("/src")
    s.split_pane("w1:p1", direction="right")
    s.split_pane("w1:p2", direction="right")
    return s


def agent_facts(loc: PaneLoc) -> PaneFacts:
    """p1 and p3 report the same Claude conversation; p2 is a managed codex agent named qa."""
    if loc.pane.number == 2:
        codex = AgentSession("herdr:codex", "codex", SessionRef("id", "x-1"))
        return PaneFacts(agent_name="qa", managed_agent_kind="codex", agent_session=codex)
    return PaneFacts(agent_name="rev", managed_agent_kind="codex", agent_session=CLAUDE)


def test_native_resume_dedupe_and_agent_names() -> None:
    snap = decode(encode(capture(agent_session(), agent_facts)))
    p1, p2, p3 = restore(Session(), snap, home=HOME, exists=exists_all)
    assert isinstance(p1.decision, ResumePlan)
    assert p1.decision.argv == ("claude", "--resume=c-1") and p1.decision.cwd == "/src"
    assert p1.agent_name is None  # managed kind (codex) is not the resumed agent (claude)
    assert not p1.replay_history
    assert isinstance(p2.decision, ResumePlan)
    assert p2.decision.argv == ("codex", "resume", "--", "x-1")
    assert p2.agent_name == "qa"
    assert isinstance(p3.decision, ResumeFallback) and p3.decision.reason == "duplicate_ref"
    assert p3.agent_session is None and p3.replay_history
    assert p1.agent_session == CLAUDE


def test_resume_disabled_keeps_the_session_reference_for_later() -> None:
    snap = capture(agent_session(), agent_facts)
    plans = restore(Session(), snap, home=HOME, exists=exists_all, resume_enabled=False)
    assert all(isinstance(p.decision, ResumeFallback) for p in plans)
    assert {p.decision.reason for p in plans if isinstance(p.decision, ResumeFallback)} == {
        "disabled"
    }
    assert [p.agent_session is not None for p in plans] == [True, True, True]
    assert all(p.replay_history for p in plans)


def test_invalid_stored_reference_is_dropped_not_carried() -> None:
    """A hand-edited (or older) file with a flag as the session id: a plain shell, and
    the reference is not handed on, so the next save does not write it back."""
    flag = AgentSession("herdr:codex", "codex", SessionRef("id", "--full-auto"))
    good = AgentSession("herdr:claude", "claude", SessionRef("id", "c-9"))

    def facts(loc: PaneLoc) -> PaneFacts:
        return PaneFacts(agent_session=flag if loc.pane.number == 1 else good)

    p1, p2, _ = restore(Session(), capture(agent_session(), facts), home=HOME, exists=exists_all)
    assert isinstance(p1.decision, ResumeFallback) and p1.decision.reason == "invalid_ref"
    assert "'--full-auto'" in p1.decision.detail
    assert p1.agent_session is None and p1.replay_history
    assert p2.agent_session == good


def test_restore_needs_an_empty_session() -> None:
    s = Session()
    s.create_workspace("/x")
    with pytest.raises(ValueError, match="empty"):
        restore(s, capture(build()), home=HOME, exists=exists_all)


def test_model_refusal_is_a_format_error_and_leaves_the_session_untouched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = Session.restore_workspace

    def picky(self: Session, **kwargs: object) -> object:
        if kwargs["number"] == 2:
            raise ModelError("invalid_params", "no thanks")
        return real(self, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Session, "restore_workspace", picky)
    target = Session()
    with pytest.raises(SnapshotFormatError) as info:
        restore(target, capture(build()), home=HOME, exists=exists_all)
    assert info.value.path == "$.workspaces[1]"
    assert target.workspaces == [] and target.next_workspace_number == 1


def test_restore_from_file_written_by_store(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    store.save(capture(build()))
    result = SessionStore(tmp_path).load()
    assert result.snapshot is not None
    restored = Session()
    restore(restored, result.snapshot, home=HOME, exists=exists_all)
    assert [ws.id for ws in restored.workspaces] == ["w1", "w2"]
