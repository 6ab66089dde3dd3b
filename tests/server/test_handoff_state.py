"""The live-handoff document: model, panes, events and blobs survive encode/decode."""

from __future__ import annotations

import json

import pytest

from herdr.runtime import agent_state
from herdr.runtime.model import Session, WorktreeMembership
from herdr.server import handoff_state as hs


def _session() -> Session:
    s = Session()
    first = s.create_workspace("/tmp", label="main", command=["sleep", "30"], env={"A": "1"})
    s.split_pane(first.workspace.pane_id(first.pane), direction="right", ratio=0.3)
    s.split_pane(None, direction="down", label="logs")
    s.create_tab(first.workspace.id, cwd="/", label="second")
    other = s.create_workspace("/var")
    other.workspace.worktree = WorktreeMembership("k", "repo", "/r", "/r/wt", True)
    s.zoom(None)
    return s


def _doc(session: Session) -> hs.HandoffDoc:
    st = agent_state.TerminalAgentState(agent_name="builder", seen=False)
    pane = hs.PaneState(
        terminal_id="term_1",
        pid=123,
        pgid=123,
        cols=80,
        rows=24,
        argv=("sleep", "30"),
        cwd="/tmp",
        screen=b"\x1b[Hhello\x1b[?2004h\x00\xff",
        terminal_title="t",
        osc_title="claude",
        osc_progress="4;1",
        modify_other_keys=2,
        restore_error=None,
        agent_blob=hs.pack(st),
    )
    return hs.HandoffDoc(
        protocol=22,
        herdr_version="1.0",
        old_pid=42,
        session=hs.session_to_json(session),
        panes=(pane,),
        last_seq=17,
        events=(hs.LoggedEvent(16, "pane_created", {"pane_id": "w1:p1", "type": "x"}),),
        workspace_meta_blob=hs.pack({"w1": 1}),
    )


def test_session_model_round_trips() -> None:
    session = _session()
    again = hs.session_from_json(json.loads(json.dumps(hs.session_to_json(session))))
    assert again == session
    assert [loc.pane_id for loc in again.iter_panes()] == [
        loc.pane_id for loc in session.iter_panes()
    ]
    assert again.focused_ids() == session.focused_ids()
    for loc in session.iter_panes():  # the indexes are rebuilt
        assert again.find_terminal(loc.pane.terminal_id) is not None


def test_document_round_trips() -> None:
    doc = _doc(_session())
    again = hs.decode(hs.encode(doc))
    assert again == doc
    st = hs.unpack(again.panes[0].agent_blob or b"")
    assert isinstance(st, agent_state.TerminalAgentState)
    assert (st.agent_name, st.seen) == ("builder", False)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        pytest.param(lambda d: d.update(version=99), "version 99", id="newer-version"),
        pytest.param(lambda d: d.update(kind="other"), "not a herdr", id="wrong-kind"),
        pytest.param(lambda d: d.pop("panes"), "panes", id="missing-panes"),
        pytest.param(lambda d: d["panes"][0].update(screen="%%%"), "base64", id="bad-screen"),
        pytest.param(
            lambda d: d["session"]["workspaces"][0]["tabs"][0].update(root={"leaf": 999}),
            "disagree",
            id="layout-mismatch",
        ),
        pytest.param(
            lambda d: d["session"]["workspaces"][0]["tabs"][0].update(
                root={"split": {"direction": "up", "ratio": 0.5, "first": {}, "second": {}}}
            ),
            "direction",
            id="bad-direction",
        ),
    ],
)
def test_malformed_documents_are_refused(mutate: object, message: str) -> None:
    raw = hs.to_json(_doc(_session()))
    raw = json.loads(json.dumps(raw))
    mutate(raw)  # type: ignore[operator]
    with pytest.raises(hs.HandoffFormatError, match=message):
        doc = hs.from_json(raw)
        hs.session_from_json(doc.session)


def test_not_json_is_refused() -> None:
    with pytest.raises(hs.HandoffFormatError):
        hs.decode(b"\xff not json")
