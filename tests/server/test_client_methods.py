"""The client-facing methods against a real server and real attached clients:
notification.show, client.window_title.*, client_shell.surface.set, agent.view.*,
pane.input.set and popup.close. Every result is checked against herdr's protocol-22
schema; every push is read off a real ``client.attach`` stream and decoded with the
typed attach protocol."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from herdr.api import attach_messages as am
from herdr_testing import ServerHandle, wait_until
from herdr_testing.attach_stream import Stream
from herdr_testing.schema22 import assert_valid_response, assert_valid_result


def ok(reply: dict[str, Any]) -> dict[str, Any]:
    assert "result" in reply, reply
    assert_valid_response(reply)
    result: dict[str, Any] = reply["result"]
    assert_valid_result(result)
    return result


def error(reply: dict[str, Any]) -> str:
    assert "error" in reply, reply
    assert_valid_response(reply)
    return str(reply["error"]["code"])


def set_delivery(server: ServerHandle, delivery: str) -> None:
    config = Path(server.env["XDG_CONFIG_HOME"]) / "herdr" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[ui.toast]\ndelivery = "{delivery}"\n')
    assert ok(server.request("server.reload_config", {}))["status"] == "applied"


@pytest.fixture
def server(herdr_server: ServerHandle) -> ServerHandle:
    ok(herdr_server.request("workspace.create", {"cwd": "/tmp", "focus": True}))
    return herdr_server


@pytest.fixture
def stream(server: ServerHandle) -> Iterator[Stream]:
    s = Stream(server.socket_path)
    s.pump(lambda: bool(s.state))
    yield s
    s.close()


# ----------------------------------------------------------------------------- notification


@pytest.mark.parametrize("delivery", ["herdr", "terminal", "system"])
def test_no_attached_client_is_no_foreground_client(server: ServerHandle, delivery: str) -> None:
    set_delivery(server, delivery)
    result = ok(server.request("notification.show", {"title": "build failed"}))
    assert result == {"type": "notification_show", "shown": False, "reason": "no_foreground_client"}


def test_notifications_are_off_by_default(server: ServerHandle, stream: Stream) -> None:
    result = ok(server.request("notification.show", {"title": "hi"}))
    assert result == {"type": "notification_show", "shown": False, "reason": "disabled"}


def test_toast_reaches_the_client_sanitised_then_busy(server: ServerHandle, stream: Stream) -> None:
    set_delivery(server, "herdr")
    params = {
        "title": "build\x1b]0;pwned\x07 failed\n\tagain",
        "body": "see\x1b[2J log\x9b31m",
        "position": "top-left",
        "sound": "done",
    }
    result = ok(server.request("notification.show", params))
    assert result == {"type": "notification_show", "shown": True, "reason": "shown"}
    stream.pump(lambda: bool(stream.of(am.Toast)))
    toast = stream.of(am.Toast)[0]
    assert toast.title == "build]0;pwned failed again"  # ESC and BEL gone, breaks are spaces
    assert toast.body == "see[2J log31m"
    assert (toast.position, toast.sound, toast.delivery) == ("top-left", "done", "herdr")
    # one toast lives at a time: the next one, while it is on screen, is refused
    again = ok(server.request("notification.show", {"title": "second"}))
    assert again == {"type": "notification_show", "shown": False, "reason": "busy"}


def test_terminal_delivery_is_rate_limited(server: ServerHandle, stream: Stream) -> None:
    set_delivery(server, "terminal")
    first = ok(server.request("notification.show", {"title": "one"}))
    assert first["reason"] == "shown"
    second = ok(server.request("notification.show", {"title": "two"}))
    assert second == {"type": "notification_show", "shown": False, "reason": "rate_limited"}
    stream.pump(lambda: bool(stream.of(am.Toast)))
    assert [(t.title, t.delivery) for t in stream.of(am.Toast)] == [("one", "terminal")]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"title": "\x1b\x07\n "}, "invalid_params"),  # nothing printable left
        ({"title": "x", "position": "middle"}, "invalid_request"),
        ({"title": "x", "sound": "loud"}, "invalid_request"),
        ({}, "invalid_request"),
        ({"title": 5}, "invalid_request"),
    ],
    ids=["empty_after_sanitising", "bad_position", "bad_sound", "no_title", "title_not_text"],
)
def test_bad_notification_params(
    server: ServerHandle, stream: Stream, params: dict[str, Any], code: str
) -> None:
    set_delivery(server, "herdr")
    assert error(server.request("notification.show", params)) == code
    # nothing was shown, so nothing is busy or rate limited now
    assert ok(server.request("notification.show", {"title": "fine"}))["reason"] == "shown"


def test_the_most_recently_active_client_gets_the_toast(server: ServerHandle) -> None:
    set_delivery(server, "terminal")
    first, second = Stream(server.socket_path), Stream(server.socket_path)
    try:
        first.pump(lambda: bool(first.state))
        second.pump(lambda: bool(second.state))
        first.send({"t": "resize", "cols": 90, "rows": 30})  # first is active again
        first.pump(lambda: first.state.get("area") == [90, 30])
        assert ok(server.request("notification.show", {"title": "to first"}))["shown"]
        first.pump(lambda: bool(first.of(am.Toast)))
        # the other client sees the next state change, and no toast before it
        ok(server.request("pane.split", {"target_pane_id": "w1:p1", "direction": "right"}))
        second.pump(lambda: len(second.state["panes"]) == 2)
        assert second.of(am.Toast) == []
    finally:
        first.close()
        second.close()


# ----------------------------------------------------------------------------- window title


def test_window_title_without_a_client(server: ServerHandle) -> None:
    for method, params in (
        ("client.window_title.set", {"title": "x"}),
        ("client.window_title.clear", {}),
    ):
        result = ok(server.request(method, params))
        assert result == {
            "type": "client_window_title",
            "changed": False,
            "reason": "no_foreground_client",
        }


def test_window_title_set_clear_and_later_clients(server: ServerHandle, stream: Stream) -> None:
    result = ok(
        server.request("client.window_title.set", {"title": "w1\x1b]2;evil\x07\x1b\\ build"})
    )
    assert result == {"type": "client_window_title", "changed": True, "reason": "set"}
    stream.pump(lambda: bool(stream.of(am.WindowTitle)))
    assert stream.of(am.WindowTitle)[0].title == "w1]2;evil\\ build"
    # a client that attaches later gets the title too, before its first frame
    late = Stream(server.socket_path)
    try:
        late.pump(lambda: bool(late.of(am.WindowTitle)))
        assert late.of(am.WindowTitle)[0].title == "w1]2;evil\\ build"
        cleared = ok(server.request("client.window_title.clear", {}))
        assert cleared == {"type": "client_window_title", "changed": True, "reason": "cleared"}
        late.pump(lambda: len(late.of(am.WindowTitle)) == 2)
        assert late.of(am.WindowTitle)[1].title is None
    finally:
        late.close()


def test_window_title_follows_the_foreground_client(server: ServerHandle) -> None:
    first, second = Stream(server.socket_path), Stream(server.socket_path)
    try:
        first.pump(lambda: bool(first.state))
        second.pump(lambda: bool(second.state))
        ok(server.request("client.window_title.set", {"title": "mine"}))
        second.pump(lambda: bool(second.of(am.WindowTitle)))  # the latest client
        assert first.of(am.WindowTitle) == []
        first.send({"t": "in", "pane_id": "w1:p1", "data": "x"})  # first is active again
        first.pump(lambda: bool(first.of(am.WindowTitle)))
        assert first.of(am.WindowTitle)[0].title == "mine"
        first.send({"t": "in", "pane_id": "w1:p1", "data": "y"})
        ok(server.request("client.window_title.clear", {}))
        first.pump(lambda: len(first.of(am.WindowTitle)) == 2)
        assert first.of(am.WindowTitle)[1].title is None  # given once, then cleared
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("title", ["", "\x1b\x07", "\n\t "], ids=["empty", "controls", "blank"])
def test_window_title_with_nothing_printable(
    server: ServerHandle, stream: Stream, title: str
) -> None:
    assert error(server.request("client.window_title.set", {"title": title})) == "invalid_params"


# ----------------------------------------------------------------------------- surface lease


def test_surface_set_on_a_plain_connection_is_refused_as_herdr_does(server: ServerHandle) -> None:
    reply = server.request("client_shell.surface.set", {"active": True})
    assert error(reply) == "connection_local_only"
    assert "client shell endpoint" in reply["error"]["message"]
    assert error(server.request("client_shell.surface.set", {"active": "yes"})) == "invalid_request"


def test_surface_lease_on_the_attach_stream(server: ServerHandle, stream: Stream) -> None:
    stream.pump(lambda: bool(stream.of(am.Rows)))
    stream.send({"t": "surface", "active": False})
    stream.pump(lambda: bool(stream.of(am.SurfaceSet)))
    off = stream.of(am.SurfaceSet)[0]
    assert off.active is False
    rows_before = len(stream.of(am.Rows))
    ok(server.request("pane.split", {"target_pane_id": "w1:p1", "direction": "right"}))
    stream.pump(lambda: len(stream.state["panes"]) == 2)  # state still comes
    assert len(stream.of(am.Rows)) == rows_before  # rows do not, while released
    set_delivery(server, "herdr")  # and a released client is no foreground client
    passive = ok(server.request("notification.show", {"title": "x"}))
    assert passive["reason"] == "no_foreground_client"
    stream.send({"t": "surface", "active": True})
    stream.pump(lambda: len(stream.of(am.SurfaceSet)) == 2)
    on = stream.of(am.SurfaceSet)[1]
    assert on.active is True and on.projection_revision > off.projection_revision
    stream.pump(lambda: {"w1:p1", "w1:p2"} <= {r.pane_id for r in stream.of(am.Rows)[rows_before:]})
    assert all(r.full for r in stream.of(am.Rows)[rows_before:][:2])


# ----------------------------------------------------------------------------- agent view

VIEW = {
    "source": " example.views ",
    "label": "Working",
    "filter": {"op": "eq", "field": "status", "value": "working"},
    "sort": [{"field": "attention", "order": "desc"}, {"field": {"token": "prio"}}],
}


def test_agent_view_set_reaches_the_state_and_clear_is_source_guarded(
    server: ServerHandle, stream: Stream
) -> None:
    result = ok(server.request("agent.view.set", VIEW))
    assert result == {
        "type": "agent_view",
        "active": True,
        "source": "example.views",
        "label": "Working",
    }
    stream.pump(lambda: bool(stream.state.get("agent_view")))
    view = stream.state["agent_view"]
    assert view["source"] == "example.views"
    assert view["sort"][1] == {"field": {"token": "prio"}, "order": "asc"}
    other = ok(server.request("agent.view.clear", {"source": "other.views"}))
    assert other["active"] is True and other["source"] == "example.views"
    cleared = ok(server.request("agent.view.clear", {"source": "example.views"}))
    assert cleared == {"type": "agent_view", "active": False, "source": None, "label": None}
    stream.pump(lambda: stream.state.get("agent_view") is None)
    assert ok(server.request("agent.view.clear", {}))["active"] is False  # idempotent


ANY_EMPTY = {"op": "any", "filters": []}
DEEP: dict[str, Any] = {"op": "exists", "field": "agent"}
for _ in range(8):
    DEEP = {"op": "not", "filter": DEEP}
HOSTILE: dict[str, Any] = {"op": "exists", "field": "agent"}
for _ in range(400):  # deep enough to exhaust a recursive schema walk
    HOSTILE = {"op": "any", "filters": [{"op": "exists", "field": "agent"}, HOSTILE]}


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"source": "bad source!"}, "invalid_agent_view"),
        ({"source": "   "}, "invalid_agent_view"),
        ({"source": "x" * 121}, "invalid_agent_view"),
        ({"source": "ok", "label": "\x1b\x07"}, "invalid_agent_view"),
        ({"source": "ok", "filter": ANY_EMPTY}, "invalid_agent_view"),
        ({"source": "ok", "filter": DEEP}, "invalid_agent_view"),
        ({"source": "ok", "filter": HOSTILE}, "invalid_agent_view"),
        (
            {"source": "ok", "filter": {"op": "eq", "field": "status", "value": "asleep"}},
            "invalid_agent_view",
        ),
        (
            {"source": "ok", "filter": {"op": "eq", "field": "seen", "value": "yes"}},
            "invalid_agent_view",
        ),
        (
            {
                "source": "ok",
                "filter": {
                    "op": "eq",
                    "field": "pane_id",
                    "value": {"context": "current_workspace_id"},
                },
            },
            "invalid_agent_view",
        ),
        (
            {"source": "ok", "filter": {"op": "in", "field": "agent", "values": []}},
            "invalid_agent_view",
        ),
        ({"source": "ok", "sort": [{"field": "agent"}] * 9}, "invalid_agent_view"),
        ({"source": "ok", "sort": [{"field": {"token": "bad token"}}]}, "invalid_agent_view"),
        ({"source": "plugin:someone.views"}, "plugin_not_found"),
        ({"source": "ok", "filter": {"op": "nand"}}, "invalid_request"),
        ({"label": "no source"}, "invalid_request"),
    ],
    ids=[
        "source_chars",
        "source_blank",
        "source_long",
        "label_unprintable",
        "any_empty",
        "too_deep",
        "hostile_depth",
        "unknown_status",
        "seen_not_bool",
        "context_wrong_field",
        "in_empty",
        "sort_too_long",
        "token_chars",
        "plugin_source",
        "unknown_op",
        "no_source",
    ],
)
def test_bad_agent_view_changes_nothing(
    server: ServerHandle, params: dict[str, Any], code: str
) -> None:
    ok(server.request("agent.view.set", VIEW))
    assert error(server.request("agent.view.set", params)) == code
    still = ok(server.request("agent.view.clear", {"source": "not.it"}))
    assert (still["active"], still["source"]) == (True, "example.views")


# ----------------------------------------------------------------------------- pane input


def _record(stream: Stream, pane_id: str) -> dict[str, Any]:
    return next(p for p in stream.state["panes"] if p["pane_id"] == pane_id)


def test_pane_input_set_routes_right_clicks(server: ServerHandle, stream: Stream) -> None:
    assert "right_click" not in _record(stream, "w1:p1")
    assert ok(server.request("pane.input.set", {"pane_id": "w1:p1", "right_click": "pane"})) == {
        "type": "ok"
    }
    stream.pump(lambda: _record(stream, "w1:p1").get("right_click") == "pane")
    # PaneInfo stays protocol-22's (herdr does not publish the routing there)
    pane = ok(server.request("pane.get", {"pane_id": "w1:p1"}))["pane"]
    assert "right_click" not in pane
    ok(server.request("pane.input.set", {"pane_id": "w1:p1", "right_click": "herdr"}))
    stream.pump(lambda: "right_click" not in _record(stream, "w1:p1"))


def test_pane_split_with_right_click_pane(server: ServerHandle, stream: Stream) -> None:
    split = {"target_pane_id": "w1:p1", "direction": "right", "right_click": "pane"}
    pane_id = ok(server.request("pane.split", split))["pane"]["pane_id"]
    stream.pump(lambda: any(p["pane_id"] == pane_id for p in stream.state["panes"]))
    stream.pump(lambda: _record(stream, pane_id).get("right_click") == "pane")
    plain = ok(server.request("pane.split", {"target_pane_id": "w1:p1", "direction": "down"}))
    other = plain["pane"]["pane_id"]
    stream.pump(lambda: any(p["pane_id"] == other for p in stream.state["panes"]))
    assert "right_click" not in _record(stream, other)


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"pane_id": "w9:p9", "right_click": "pane"}, "pane_not_found"),
        ({"pane_id": "w1:p1", "right_click": "menu"}, "invalid_request"),
        ({"pane_id": "w1:p1"}, "invalid_request"),
    ],
    ids=["unknown_pane", "bad_target", "missing_target"],
)
def test_bad_pane_input_set(server: ServerHandle, params: dict[str, Any], code: str) -> None:
    assert error(server.request("pane.input.set", params)) == code


# ----------------------------------------------------------------------------- popups


def test_popup_close_without_a_popup(server: ServerHandle, stream: Stream) -> None:
    reply = server.request("popup.close", {})
    assert error(reply) == "popup_not_open"
    assert reply["error"]["message"] == "no popup is open"


def test_server_survives_a_client_leaving_mid_toast(server: ServerHandle) -> None:
    set_delivery(server, "herdr")
    leaving = Stream(server.socket_path)
    leaving.pump(lambda: bool(leaving.state))
    leaving.close()
    wait_until(
        lambda: (
            ok(server.request("notification.show", {"title": "x"}))["reason"]
            == "no_foreground_client"
        ),
        10,
    )
    assert ok(server.request("ping", {}))["type"] == "pong"
