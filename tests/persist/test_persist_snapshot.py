"""session.json schema: the golden document, and every way a file can be wrong."""

from __future__ import annotations

import copy
from collections.abc import Callable

import orjson
import pytest

from herdr.persist.errors import SnapshotFormatError, SnapshotVersionError
from herdr.persist.snapshot import (
    SNAPSHOT_VERSION,
    PaneSnapshot,
    SessionSnapshot,
    TabSnapshot,
    WorkspaceSnapshot,
    decode,
    encode,
)
from herdr.runtime.agent_state import AgentSession, SessionRef
from herdr.runtime.layout import Leaf, Split
from herdr_testing.records import replace

Doc = dict[str, object]


def golden() -> Doc:
    """Two workspaces; w1 has a split tab with an agent pane and a second tab."""
    return {
        "version": 1,
        "workspaces": [
            {
                "id": "w1",
                "custom_name": "keep",
                "identity_cwd": "/src/app",
                "public_pane_numbers": {"1": 1, "2": 3, "9": 4},
                "next_public_pane_number": 5,
                "public_tab_numbers": [1, 3],
                "next_public_tab_number": 4,
                "tabs": [
                    {
                        "custom_name": None,
                        "layout": {
                            "Split": {
                                "direction": "Horizontal",
                                "ratio": 0.3,
                                "first": {"Pane": 1},
                                "second": {"Pane": 2},
                            }
                        },
                        "panes": {
                            "1": {"cwd": "/src/app"},
                            "2": {
                                "cwd": "/src/app/api",
                                "label": "review",
                                "agent_name": "rev",
                                "managed_agent_kind": "claude",
                                "agent_session": {
                                    "source": "herdr:claude",
                                    "agent": "claude",
                                    "kind": "id",
                                    "value": "abc-123",
                                },
                                "launch_argv": ["claude", "--model", "opus"],
                            },
                        },
                        "zoomed": True,
                        "focused": 2,
                        "root_pane": 1,
                    },
                    {
                        "custom_name": "logs",
                        "layout": {"Pane": 9},
                        "panes": {"9": {"cwd": "/var/log"}},
                        "zoomed": False,
                        "focused": 9,
                        "root_pane": 9,
                    },
                ],
                "active_tab": 1,
            },
            {
                "id": "w3",
                "custom_name": None,
                "identity_cwd": "/etc",
                "public_pane_numbers": {"10": 1},
                "next_public_pane_number": 2,
                "public_tab_numbers": [1],
                "next_public_tab_number": 2,
                "tabs": [
                    {
                        "custom_name": None,
                        "layout": {"Pane": 10},
                        "panes": {"10": {"cwd": "/etc"}},
                        "zoomed": False,
                        "focused": None,
                        "root_pane": None,
                    }
                ],
                "active_tab": 0,
            },
        ],
        "active": 1,
        "selected": 0,
        "next_workspace_number": 5,
    }


def golden_snapshot() -> SessionSnapshot:
    agent = PaneSnapshot(
        cwd="/src/app/api",
        label="review",
        agent_name="rev",
        managed_agent_kind="claude",
        agent_session=AgentSession("herdr:claude", "claude", SessionRef("id", "abc-123")),
        launch_argv=("claude", "--model", "opus"),
    )
    w1 = WorkspaceSnapshot(
        id="w1",
        identity_cwd="/src/app",
        tabs=(
            TabSnapshot(
                layout=Split("right", 0.3, Leaf(1), Leaf(2)),
                panes={1: PaneSnapshot("/src/app"), 2: agent},
                zoomed=True,
                focused=2,
                root_pane=1,
            ),
            TabSnapshot(
                layout=Leaf(9),
                panes={9: PaneSnapshot("/var/log")},
                custom_name="logs",
                focused=9,
                root_pane=9,
            ),
        ),
        public_pane_numbers={1: 1, 2: 3, 9: 4},
        public_tab_numbers=(1, 3),
        next_public_pane_number=5,
        next_public_tab_number=4,
        custom_name="keep",
        active_tab=1,
    )
    w3 = WorkspaceSnapshot(
        id="w3",
        identity_cwd="/etc",
        tabs=(TabSnapshot(layout=Leaf(10), panes={10: PaneSnapshot("/etc")}),),
        public_pane_numbers={10: 1},
        public_tab_numbers=(1,),
        next_public_pane_number=2,
        next_public_tab_number=2,
    )
    return SessionSnapshot((w1, w3), active=1, selected=0, next_workspace_number=5)


def test_version_is_explicitly_ours() -> None:
    assert SNAPSHOT_VERSION == 1


def test_golden_document_decodes_to_the_expected_values() -> None:
    assert decode(orjson.dumps(golden())) == golden_snapshot()


def test_encode_writes_the_golden_document() -> None:
    assert orjson.loads(encode(golden_snapshot())) == golden()


def test_encode_is_indented_and_ends_with_newline() -> None:
    data = encode(golden_snapshot())
    assert data.startswith(b'{\n  "version": 1,')
    assert data.endswith(b"}\n")


def test_optional_pane_members_are_omitted_not_null() -> None:
    pane = orjson.loads(encode(golden_snapshot()))["workspaces"][1]["tabs"][0]["panes"]["10"]
    assert pane == {"cwd": "/etc"}


def test_empty_session_round_trips() -> None:
    assert decode(encode(SessionSnapshot())) == SessionSnapshot()


def test_absent_optional_members_take_defaults() -> None:
    doc = golden()
    del doc["selected"], doc["next_workspace_number"], doc["active"]
    tab = _ws(doc, 1)["tabs"]
    assert isinstance(tab, list)
    del tab[0]["focused"], tab[0]["root_pane"], tab[0]["custom_name"]
    del _ws(doc, 1)["custom_name"]
    snap = decode(orjson.dumps(doc))
    assert snap.active is None and snap.selected == 0 and snap.next_workspace_number is None
    assert snap.workspace_counter() == 4  # one past w3


def test_unknown_members_are_ignored() -> None:
    doc = golden()
    doc["sidebar_width"] = 30
    _ws(doc, 0)["worktree_space"] = {"key": "x"}
    assert decode(orjson.dumps(doc)) == golden_snapshot()


def test_workspace_counter_never_reissues_a_saved_number() -> None:
    snap = golden_snapshot()
    assert snap.workspace_counter() == 5
    assert SessionSnapshot(snap.workspaces).workspace_counter() == 4


def test_lone_surrogates_are_replaced_instead_of_failing_every_save() -> None:
    snap = golden_snapshot()
    ws = snap.workspaces[1]
    bad_tab = TabSnapshot(layout=Leaf(10), panes={10: PaneSnapshot("/tmp/\udcff")})
    bad = SessionSnapshot((replace(ws, tabs=(bad_tab,)),))
    cwd = decode(encode(bad)).workspaces[0].tabs[0].panes[10].cwd
    assert cwd == "/tmp/?"


# --------------------------------------------------------------------------- newer / bad version


@pytest.mark.parametrize("version", [2, 3, 99])
def test_newer_version_is_refused_with_its_own_error(version: int) -> None:
    doc = {"version": version, "workspaces": "whatever a newer herdr writes"}
    with pytest.raises(SnapshotVersionError) as info:
        decode(orjson.dumps(doc))
    assert info.value.found == version
    assert info.value.supported == SNAPSHOT_VERSION
    assert not isinstance(info.value, SnapshotFormatError)


# --------------------------------------------------------------------------- malformed


def _ws(doc: Doc, i: int) -> dict[str, object]:
    workspaces = doc["workspaces"]
    assert isinstance(workspaces, list)
    ws = workspaces[i]
    assert isinstance(ws, dict)
    return ws


def _tab(doc: Doc, w: int, t: int) -> dict[str, object]:
    tabs = _ws(doc, w)["tabs"]
    assert isinstance(tabs, list)
    tab = tabs[t]
    assert isinstance(tab, dict)
    return tab


def _pane(doc: Doc, w: int, t: int, key: str) -> dict[str, object]:
    panes = _tab(doc, w, t)["panes"]
    assert isinstance(panes, dict)
    pane = panes[key]
    assert isinstance(pane, dict)
    return pane


def _split(doc: Doc) -> dict[str, object]:
    layout = _tab(doc, 0, 0)["layout"]
    assert isinstance(layout, dict)
    split = layout["Split"]
    assert isinstance(split, dict)
    return split


Mutation = Callable[[Doc], object]

W0 = "$.workspaces[0]"
W1 = "$.workspaces[1]"
T00 = W0 + ".tabs[0]"
T01 = W0 + ".tabs[1]"
SPLIT = T00 + ".layout.Split"
P1 = T00 + '.panes["1"]'
P2 = T00 + '.panes["2"]'
AGENT = {"source": "s", "agent": "a"}
ONE_PANE_TAB = {"layout": {"Pane": 9}, "panes": {"9": {"cwd": "/"}}, "focused": 9, "root_pane": 9}

MALFORMED: list[tuple[str, Mutation, str]] = [
    ("version-missing", lambda d: d.pop("version"), "$.version"),
    ("version-string", lambda d: d.update(version="1"), "$.version"),
    ("version-bool", lambda d: d.update(version=True), "$.version"),
    ("version-zero", lambda d: d.update(version=0), "$.version"),
    ("workspaces-missing", lambda d: d.pop("workspaces"), "$.workspaces"),
    ("workspaces-object", lambda d: d.update(workspaces={}), "$.workspaces"),
    ("workspace-not-object", lambda d: d.update(workspaces=[1]), W0),
    ("active-out-of-range", lambda d: d.update(active=2), "$.active"),
    ("active-negative", lambda d: d.update(active=-1), "$.active"),
    ("selected-out-of-range", lambda d: d.update(selected=5), "$.selected"),
    ("counter-too-low", lambda d: d.update(next_workspace_number=3), "$.next_workspace_number"),
    ("id-missing", lambda d: _ws(d, 0).pop("id"), W0 + ".id"),
    ("id-legacy-form", lambda d: _ws(d, 0).update(id="w_1"), W0 + ".id"),
    ("id-duplicate", lambda d: _ws(d, 1).update(id="w1"), W1 + ".id"),
    ("name-number", lambda d: _ws(d, 0).update(custom_name=3), W0 + ".custom_name"),
    ("identity-cwd-empty", lambda d: _ws(d, 0).update(identity_cwd=""), W0 + ".identity_cwd"),
    ("tabs-empty", lambda d: _ws(d, 1).update(tabs=[]), W1 + ".tabs"),
    (
        "tab-numbers-short",
        lambda d: _ws(d, 0).update(public_tab_numbers=[1]),
        W0 + ".public_tab_numbers",
    ),
    (
        "tab-numbers-dup",
        lambda d: _ws(d, 0).update(public_tab_numbers=[3, 3]),
        W0 + ".public_tab_numbers",
    ),
    (
        "tab-number-zero",
        lambda d: _ws(d, 0).update(public_tab_numbers=[0, 3]),
        W0 + ".public_tab_numbers[0]",
    ),
    (
        "next-tab-too-low",
        lambda d: _ws(d, 0).update(next_public_tab_number=3),
        W0 + ".next_public_tab_number",
    ),
    (
        "next-pane-too-low",
        lambda d: _ws(d, 0).update(next_public_pane_number=4),
        W0 + ".next_public_pane_number",
    ),
    (
        "pane-numbers-missing-key",
        lambda d: _ws(d, 0).update(public_pane_numbers={"1": 1, "2": 3}),
        W0 + ".public_pane_numbers",
    ),
    (
        "pane-numbers-extra-key",
        lambda d: _ws(d, 1).update(public_pane_numbers={"10": 1, "11": 2}),
        W1 + ".public_pane_numbers",
    ),
    (
        "pane-numbers-dup",
        lambda d: _ws(d, 0).update(public_pane_numbers={"1": 1, "2": 1, "9": 4}),
        W0 + ".public_pane_numbers",
    ),
    (
        "pane-numbers-bad-key",
        lambda d: _ws(d, 1).update(public_pane_numbers={"x": 1}),
        W1 + '.public_pane_numbers["x"]',
    ),
    (
        "pane-numbers-padded-key",
        lambda d: _ws(d, 1).update(public_pane_numbers={"010": 1}),
        W1 + '.public_pane_numbers["010"]',
    ),
    (
        "pane-key-in-two-workspaces",
        lambda d: _ws(d, 1).update(
            public_pane_numbers={"9": 1}, tabs=[{**_tab(d, 1, 0), **ONE_PANE_TAB}]
        ),
        W1 + ".public_pane_numbers",
    ),
    ("active-tab-out-of-range", lambda d: _ws(d, 0).update(active_tab=2), W0 + ".active_tab"),
    ("layout-missing", lambda d: _tab(d, 0, 1).pop("layout"), T01 + ".layout"),
    ("layout-unknown-variant", lambda d: _tab(d, 0, 1).update(layout={"Leaf": 9}), T01 + ".layout"),
    (
        "layout-two-variants",
        lambda d: _tab(d, 0, 1).update(layout={"Pane": 9, "Split": {}}),
        T01 + ".layout",
    ),
    (
        "layout-pane-string",
        lambda d: _tab(d, 0, 1).update(layout={"Pane": "9"}),
        T01 + ".layout.Pane",
    ),
    ("split-direction", lambda d: _split(d).update(direction="right"), SPLIT + ".direction"),
    ("split-ratio-zero", lambda d: _split(d).update(ratio=0), SPLIT + ".ratio"),
    ("split-ratio-one", lambda d: _split(d).update(ratio=1.0), SPLIT + ".ratio"),
    ("split-ratio-string", lambda d: _split(d).update(ratio="0.5"), SPLIT + ".ratio"),
    ("split-second-missing", lambda d: _split(d).pop("second"), SPLIT + ".second"),
    ("split-first-bad", lambda d: _split(d).update(first=[]), SPLIT + ".first"),
    ("layout-duplicate-leaf", lambda d: _split(d).update(second={"Pane": 1}), T00 + ".layout"),
    (
        "panes-missing-leaf",
        lambda d: _tab(d, 0, 0).update(panes={"1": {"cwd": "/"}}),
        T00 + ".panes",
    ),
    (
        "pane-in-two-tabs",
        lambda d: _tab(d, 0, 1).update(
            layout={"Pane": 1}, panes={"1": {"cwd": "/"}}, focused=1, root_pane=1
        ),
        T01 + ".panes",
    ),
    ("zoomed-missing", lambda d: _tab(d, 0, 0).pop("zoomed"), T00 + ".zoomed"),
    ("zoomed-int", lambda d: _tab(d, 0, 0).update(zoomed=1), T00 + ".zoomed"),
    ("focused-foreign", lambda d: _tab(d, 0, 0).update(focused=9), T00 + ".focused"),
    ("root-pane-foreign", lambda d: _tab(d, 0, 0).update(root_pane=10), T00 + ".root_pane"),
    ("cwd-missing", lambda d: _pane(d, 0, 0, "1").pop("cwd"), P1 + ".cwd"),
    ("cwd-null", lambda d: _pane(d, 0, 0, "1").update(cwd=None), P1 + ".cwd"),
    ("label-list", lambda d: _pane(d, 0, 0, "2").update(label=["x"]), P2 + ".label"),
    (
        "session-kind",
        lambda d: _pane(d, 0, 0, "2").update(agent_session={**AGENT, "kind": "url", "value": "v"}),
        P2 + ".agent_session.kind",
    ),
    (
        "session-value-missing",
        lambda d: _pane(d, 0, 0, "2").update(agent_session={**AGENT, "kind": "id"}),
        P2 + ".agent_session.value",
    ),
    (
        "argv-not-strings",
        lambda d: _pane(d, 0, 0, "2").update(launch_argv=["claude", 1]),
        P2 + ".launch_argv[1]",
    ),
]


@pytest.mark.parametrize(
    ("mutate", "path"), [(m, p) for _, m, p in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_malformed_document_names_the_path(mutate: Mutation, path: str) -> None:
    doc = golden()
    mutate(doc)
    with pytest.raises(SnapshotFormatError) as info:
        decode(orjson.dumps(doc))
    assert info.value.path == path, str(info.value)
    assert str(info.value).startswith(path + ": ")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{",
        b"[]",
        b"null",
        b'"x"',
        b"\xff\xfe",
        b'{"version": 1, "workspaces": [] } x',
        b"NaN",
    ],
    ids=["empty", "truncated", "array", "null", "string", "not-utf8", "trailing", "nan"],
)
def test_not_a_snapshot_object_fails_at_the_root(data: bytes) -> None:
    with pytest.raises(SnapshotFormatError) as info:
        decode(data)
    assert info.value.path == "$"


def test_deep_layout_is_refused_not_a_recursion_error() -> None:
    layout = '{"Pane": 9}'
    for _ in range(200):
        layout = (
            '{"Split": {"direction": "Vertical", "ratio": 0.5, "first": '
            + layout
            + ', "second": {"Pane": 9}}}'
        )
    doc = golden()
    _tab(doc, 0, 1)["layout"] = "@LAYOUT@"
    data = orjson.dumps(doc).replace(b'"@LAYOUT@"', layout.encode())
    with pytest.raises(SnapshotFormatError, match="nested deeper") as info:
        decode(data)
    assert info.value.path.startswith("$.workspaces[0].tabs[1].layout.Split.first.Split")


def test_encode_refuses_an_invalid_snapshot_instead_of_writing_it() -> None:
    snap = golden_snapshot()
    ws = snap.workspaces[0]
    broken = replace(ws, active_tab=7)
    with pytest.raises(SnapshotFormatError, match=r"\$\.workspaces\[0\]\.active_tab"):
        encode(SessionSnapshot((broken,)))


def test_decode_does_not_mutate_or_keep_the_input() -> None:
    doc = golden()
    before = copy.deepcopy(doc)
    decode(orjson.dumps(doc))
    assert doc == before
