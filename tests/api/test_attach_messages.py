"""The attach stream's messages: every one round-trips, on the wire as before, and the
server's decoder stays as lenient with client lines as it always was."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

import msgspec
import pytest

from herdr.api import attach_messages as am
from herdr.api.schema import build_schema
from herdr.api.validate import Compiler

ATTACH_DEFS = build_schema()["extensions"]["attach_stream"]["$defs"]


def _doc() -> am.StateDoc:
    return am.StateDoc(
        workspaces=[{"workspace_id": "w1", "label": "proj", "agent_status": "idle"}],
        tabs=[{"tab_id": "w1:t1", "workspace_id": "w1", "label": "1"}],
        panes=[{"pane_id": "w1:p1", "workspace_id": "w1", "tab_id": "w1:t1", "agent": None}],
        layouts={
            "w1:t1": am.TabLayout(
                zoomed=False,
                focused_pane_id="w1:p1",
                panes=[("w1:p1", 0, 0, 50, 20), ("w1:p2", 51, 0, 49, 20)],
                splits=[([False], "right", (50, 0, 1, 20), (0, 0, 100, 20))],
            )
        },
        focused=("w1", "w1:t1", "w1:p1"),
        area=(100, 20),
    )


class Case(NamedTuple):
    test_id: str
    message: msgspec.Struct
    wire: dict[str, Any]  # the line as JSON: what the other side has always read


CASES = [
    Case(
        "in",
        am.Input(pane_id="w1:p1", data="echo hi\r"),
        {"t": "in", "pane_id": "w1:p1", "data": "echo hi\r"},
    ),
    Case(
        "in_focused_latin1",
        am.Input(data="\x1b[A\xe9\xff"),
        {"t": "in", "pane_id": None, "data": "\x1b[A\xe9\xff"},
    ),
    Case(
        "paste",
        am.Paste(pane_id="w1:p1", data="a\nb"),
        {"t": "paste", "pane_id": "w1:p1", "data": "a\nb"},
    ),
    Case(
        "scroll",
        am.Scroll(pane_id="w1:p1", delta=-30),
        {"t": "scroll", "pane_id": "w1:p1", "delta": -30},
    ),
    Case("resize", am.Resize(cols=100, rows=31), {"t": "resize", "cols": 100, "rows": 31}),
    Case(
        "view",
        am.View(workspace_id="w1", tab_id="w1:t2", focused=True),
        {"t": "view", "workspace_id": "w1", "tab_id": "w1:t2", "focused": True},
    ),
    Case(
        "view_empty",
        am.View(),
        {"t": "view", "workspace_id": None, "tab_id": None, "focused": None},
    ),
    Case(
        "state",
        am.State(state=_doc()),
        {
            "t": "state",
            "state": {
                "workspaces": [{"workspace_id": "w1", "label": "proj", "agent_status": "idle"}],
                "tabs": [{"tab_id": "w1:t1", "workspace_id": "w1", "label": "1"}],
                "panes": [
                    {"pane_id": "w1:p1", "workspace_id": "w1", "tab_id": "w1:t1", "agent": None}
                ],
                "layouts": {
                    "w1:t1": {
                        "zoomed": False,
                        "focused_pane_id": "w1:p1",
                        "panes": [["w1:p1", 0, 0, 50, 20], ["w1:p2", 51, 0, 49, 20]],
                        "splits": [[[False], "right", [50, 0, 1, 20], [0, 0, 100, 20]]],
                    }
                },
                "focused": ["w1", "w1:t1", "w1:p1"],
                "area": [100, 20],
                "agent_view": None,
                "follow": None,
            },
        },
    ),
    Case(
        "state_empty",
        am.State(state=am.StateDoc()),
        {
            "t": "state",
            "state": {
                "workspaces": [],
                "tabs": [],
                "panes": [],
                "layouts": {},
                "focused": [None, None, None],
                "area": [0, 0],
                "agent_view": None,
                "follow": None,
            },
        },
    ),
    Case(
        "rows",
        am.Rows(
            pane_id="w1:p1",
            size=(80, 24),
            rows=[(0, "\x1b[1m$ \x1b[0m"), (23, "")],
            cursor=(2, 0),
            mouse=1000,
            app_cursor=True,
            kitty=1,
            mok=2,
            full=False,
            offset=3,
            total=124,
            alt=True,
        ),
        {
            "t": "rows",
            "pane_id": "w1:p1",
            "size": [80, 24],
            "rows": [[0, "\x1b[1m$ \x1b[0m"], [23, ""]],
            "cursor": [2, 0],
            "mouse": 1000,
            "app_cursor": True,
            "kitty": 1,
            "mok": 2,
            "full": False,
            "offset": 3,
            "total": 124,
            "alt": True,
        },
    ),
    Case(
        "rows_hidden_cursor",
        am.Rows(pane_id="w1:p2", size=(10, 1), rows=[(0, "x")], full=True, total=1),
        {
            "t": "rows",
            "pane_id": "w1:p2",
            "size": [10, 1],
            "rows": [[0, "x"]],
            "cursor": None,
            "mouse": 0,
            "app_cursor": False,
            "kitty": 0,
            "mok": 0,
            "full": True,
            "offset": 0,
            "total": 1,
            "alt": False,
        },
    ),
    Case("bye", am.Bye(reason="server_stopping"), {"t": "bye", "reason": "server_stopping"}),
    Case(
        "toast",
        am.Toast(title="build failed", body="3 tests", position="top-left", sound="done"),
        {
            "t": "toast",
            "title": "build failed",
            "body": "3 tests",
            "position": "top-left",
            "sound": "done",
            "delivery": "herdr",
            "seconds": 3.0,
        },
    ),
    Case(
        "window_title", am.WindowTitle(title="w1 build"), {"t": "window_title", "title": "w1 build"}
    ),
    Case("window_title_clear", am.WindowTitle(), {"t": "window_title", "title": None}),
    Case("surface", am.Surface(active=False), {"t": "surface", "active": False}),
    Case(
        "popup_opened",
        am.PopupOpened(
            popup_id="popup_1", title="pick", plugin_id="p", entrypoint="e", rect=(25, 7, 50, 15)
        ),
        {
            "t": "popup_opened",
            "popup_id": "popup_1",
            "title": "pick",
            "plugin_id": "p",
            "entrypoint": "e",
            "rect": [25, 7, 50, 15],
        },
    ),
    Case(
        "popup_closed",
        am.PopupClosed(popup_id="popup_1"),
        {"t": "popup_closed", "popup_id": "popup_1"},
    ),
    Case(
        "surface_set",
        am.SurfaceSet(active=True, projection_revision=7),
        {"t": "surface_set", "active": True, "projection_revision": 7},
    ),
    Case(
        "attach_params",
        am.AttachParams(cols=80, rows=24),
        {"cols": 80, "rows": 24, "workspace_id": None, "tab_id": None},
    ),
    Case(
        "attach_started",
        am.AttachStarted(client_id="client_1", max_fps=60),
        {"type": "attach_started", "client_id": "client_1", "max_fps": 60},
    ),
]

_SCHEMA_NAME: dict[type[msgspec.Struct], str] = {
    **dict.fromkeys(am.CLIENT_MESSAGES, "ClientMessage"),
    **dict.fromkeys(am.SERVER_MESSAGES, "ServerMessage"),
    am.AttachParams: "AttachParams",
    am.AttachStarted: "AttachStarted",
}


def _decode(line: bytes, cls: type[msgspec.Struct]) -> object:
    """``line`` read as the receiving side reads it."""
    if cls in am.CLIENT_MESSAGES:
        return am.decode_client(line)
    if cls in am.SERVER_MESSAGES:
        return am.decode_server(line)
    return msgspec.json.decode(line, type=cls)


@pytest.mark.parametrize("case", CASES, ids=[c.test_id for c in CASES])
def test_message_round_trips_on_the_same_wire(case: Case) -> None:
    line = am.encode_line(case.message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == case.wire
    assert _decode(line, type(case.message)) == case.message
    assert _decode(json.dumps(case.wire).encode(), type(case.message)) == case.message
    check = Compiler(ATTACH_DEFS).ref(_SCHEMA_NAME[type(case.message)])
    assert check(case.wire, "line") is None  # the exported schema accepts it


def test_every_message_has_a_round_trip_case() -> None:
    covered = {type(case.message) for case in CASES}
    assert covered == set(_SCHEMA_NAME)


class LenientCase(NamedTuple):
    test_id: str
    line: bytes
    expected: am.ClientMessage | None  # None: the server ignores the line


LENIENT = [
    LenientCase("not_json", b"not json", None),
    LenientCase("invalid_utf8", b'{"t":"in","data":"\xff"}', None),
    LenientCase("empty", b"", None),
    LenientCase("array", b"[1, 2]", None),
    LenientCase("no_tag", b'{"data":"x"}', None),
    LenientCase("unknown_tag", b'{"t":"zzz","data":"x"}', None),
    LenientCase("tag_not_string", b'{"t":1}', None),
    LenientCase("in_without_data", b'{"t":"in","pane_id":"w1:p1"}', None),
    LenientCase("in_data_not_string", b'{"t":"in","data":5}', None),
    LenientCase(
        "in_bad_pane_is_the_focused_one",
        b'{"t":"in","pane_id":7,"data":"x"}',
        am.Input(data="x"),
    ),
    LenientCase("unknown_fields_ignored", b'{"t":"in","data":"x","z":1}', am.Input(data="x")),
    LenientCase(
        "resize_beyond_64_bit_keeps_cols",
        b'{"t":"resize","cols":%d,"rows":50}' % 2**70,
        am.Resize(rows=50),
    ),
    LenientCase("resize_not_integers", b'{"t":"resize","cols":"wide","rows":null}', am.Resize()),
    LenientCase("resize_float", b'{"t":"resize","cols":5.0,"rows":7}', am.Resize(rows=7)),
    LenientCase(
        "scroll_bool_delta", b'{"t":"scroll","pane_id":"p","delta":true}', am.Scroll(pane_id="p")
    ),
    LenientCase(
        "view_focused_not_bool",
        b'{"t":"view","tab_id":"w1:t2","focused":"yes"}',
        am.View(tab_id="w1:t2"),
    ),
]


@pytest.mark.parametrize("case", LENIENT, ids=[c.test_id for c in LENIENT])
def test_client_lines_are_read_as_leniently_as_before(case: LenientCase) -> None:
    assert am.decode_client(case.line) == case.expected


def test_server_lines_of_a_newer_kind_are_skipped_and_broken_ones_raise() -> None:
    assert am.decode_server(b'{"t":"hello","x":1}') is None
    for broken in (b"{", b"[]", b'{"t":"rows","pane_id":"p"}', b'{"t":5}', b'{"x":1}'):
        with pytest.raises(ValueError):
            am.decode_server(broken)


def test_state_documents_from_plain_values() -> None:
    plain = json.loads(am.encode_line(am.State(state=_doc())))["state"]
    assert am.decode_state(plain) == _doc()
    assert am.decode_state({"panes": []}) == am.StateDoc()
