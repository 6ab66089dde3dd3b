"""Protocol-22 compatibility: every herdr 0.9 method, sent to a real server, answers in a
shape herdr's own published schema accepts.

For each method of the reference schema's ``request`` section there is one case: params
a protocol-22 client would send (checked against the reference first), pointing at
workspaces, tabs, panes and an agent this module created on a real server. The answer
must be a success whose ``result`` validates strictly against the reference's
``ResponseResult`` — or, for the methods in ``NOT_YET``, still the one "not supported by
this server yet" error (valid as an ``error_response``). ``NOT_YET`` must shrink as the
methods land: a method in it that starts answering fails here until it is moved out.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import herdr
from herdr.api import protocol
from herdr_testing import ServerHandle, herdr_tree, wait_until
from herdr_testing.fake_env import agent_server, launch, ok
from herdr_testing.held import HeldConnection
from herdr_testing.schema22 import (
    assert_valid_event,
    assert_valid_request,
    assert_valid_response,
    reference,
)

REFERENCE_METHODS: tuple[str, ...] = tuple(
    branch["properties"]["method"]["const"] for branch in reference()["schemas"]["request"]["oneOf"]
)

# Methods that today answer "method X is not supported by this server yet". When one
# lands, its case below fails: move it out of this set (its params are already here).
NOT_YET: frozenset[str] = frozenset()

# Methods whose faithful answer to these params is one of herdr 0.9's own refusals.
REFUSED = {
    "pane.graphics.set": "feature_disabled",  # pane graphics were removed in 0.9.2
    "pane.graphics.clear": "feature_disabled",
    "pane.graphics.info": "feature_disabled",
    "client_shell.surface.set": "connection_local_only",  # a lease lives on client.attach
    "product_announcement.dismiss": "stale_announcement",  # no announcement is current
    # A real handoff would replace the shared server: point it at a missing executable
    # (the success result is validated in tests/server/test_live_handoff.py).
    "server.live_handoff": "handoff_failed",
}

# Methods of ours that herdr's protocol 22 does not have (our own extensions).
OURS_ONLY = frozenset(
    {"pane.clear", "agent.approval", "agent.approve", "web.start", "web.stop", "custom_command.run"}
)

MARKER = "compat-marker"


@dataclass
class World:
    """Objects on one live server that the cases point at; destructive cases make their own."""

    server: ServerHandle
    workspace: str = ""
    tab: str = ""
    pane: str = ""  # a plain shell pane
    agent: str = ""  # a pane running the fake claude
    repo: str = ""  # a git repository (worktree cases)
    labels: Iterator[int] = field(default_factory=itertools.count)

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return ok(self.server.request(method, params))

    def new_workspace(self) -> str:
        label = f"compat-{next(self.labels)}"
        created = self.call("workspace.create", {"label": label, "focus": False})
        return str(created["workspace"]["workspace_id"])

    def new_tab(self) -> str:
        created = self.call("tab.create", {"workspace_id": self.workspace, "focus": False})
        return str(created["tab"]["tab_id"])

    def new_pane(self) -> str:
        params = {"target_pane_id": self.pane, "direction": "down", "focus": False}
        return str(self.call("pane.split", params)["pane"]["pane_id"])

    def first_pane(self, tab_id: str) -> str:
        panes = self.call("pane.list", {"workspace_id": self.workspace})["panes"]
        return str(next(p["pane_id"] for p in panes if p["tab_id"] == tab_id))

    def content_revision(self, pane_id: str) -> int:
        read = self.call("pane.read", {"pane_id": pane_id, "source": "visible"})["read"]
        return int(read.get("revision", 0))


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with herdr_tree() as herdr:
        server = agent_server(herdr)
        found = World(server)
        created = found.call("workspace.create", {"label": "compat", "cwd": str(herdr.root)})
        found.workspace = created["workspace"]["workspace_id"]
        found.pane = found.call("pane.list", {"workspace_id": found.workspace})["panes"][0][
            "pane_id"
        ]
        found.tab = found.new_tab()
        split = {"target_pane_id": found.pane, "direction": "right", "focus": False}
        found.agent = found.call("pane.split", split)["pane"]["pane_id"]
        launch(server, found.agent, "claude")
        found.call(
            "pane.send_input", {"pane_id": found.pane, "text": f"echo {MARKER}", "keys": ["Enter"]}
        )
        repo = herdr.root / "repo"
        repo.mkdir()
        git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "init"], check=True)
        found.repo = str(repo)
        yield found


Params = Callable[[World], dict[str, Any]]

_COMPAT_PLUGIN = """id = "compat"
name = "Compat"
version = "1.0.0"
min_herdr_version = "0.9.0"

[[actions]]
id = "compat"
title = "Compat"
command = ["true"]

[[panes]]
id = "main"
title = "Main"
command = ["/bin/cat"]
placement = "split"

[[panes]]
id = "pop"
title = "Pop"
command = ["/bin/cat"]
placement = "popup"
"""


def _plugin_dir(w: World) -> str:
    """A plugin ``compat`` (action ``compat``, split pane ``main``, popup ``pop``) next to
    the repo."""
    root = Path(w.repo).parent / "compat-plugin"
    root.mkdir(exist_ok=True)
    (root / "herdr-plugin.toml").write_text(_COMPAT_PLUGIN)
    return str(root)


def _plugin(w: World) -> str:
    w.call("plugin.link", {"path": _plugin_dir(w)})
    return "compat"


def _plugin_pane(w: World) -> str:
    opened = w.call("plugin.pane.open", {"plugin_id": _plugin(w), "entrypoint": "main"})
    return str(opened["plugin_pane"]["pane"]["pane_id"])


def _open_popup(w: World) -> dict[str, Any]:
    """Open the plugin's popup (spec §9: ``ok``), so ``popup.close`` has one to close."""
    popup = {"plugin_id": _plugin(w), "entrypoint": "pop", "width": "50%", "height": 10}
    assert w.call("plugin.pane.open", popup) == {"type": "ok"}
    return {}


def _point(row: int = 0, col: int = 0) -> dict[str, int]:
    return {"row": row, "col": col}


def _selection(w: World) -> dict[str, Any]:
    return {"pane_id": w.pane, "anchor": _point(0, 0), "cursor": _point(0, 4)}


def _layout_apply(w: World) -> dict[str, Any]:
    root = {
        "type": "split",
        "direction": "right",
        "ratio": 0.5,
        "first": {"type": "pane", "cwd": w.repo, "label": "left"},
        "second": {"type": "pane", "command": ["/bin/cat"]},
    }
    return {"workspace_id": w.workspace, "root": root, "tab_label": "applied", "focus": False}


def _pane_move(w: World) -> dict[str, Any]:
    destination = {"type": "tab", "tab_id": w.tab, "split": "right", "ratio": 0.5}
    return {"pane_id": w.new_pane(), "destination": destination, "focus": False}


def _integration_install(w: World) -> dict[str, Any]:
    """Claude's config dir must exist, as after a first run of Claude Code."""
    os.makedirs(os.path.join(w.server.env["HOME"], ".claude"), exist_ok=True)
    return {"target": "claude"}


def _worktree_open(w: World) -> dict[str, Any]:
    """Open a linked worktree git made behind herdr's back (already checked out)."""
    path = os.path.join(os.path.dirname(w.repo), "compat-open-checkout")
    if not os.path.isdir(path):
        subprocess.run(
            ["git", "-C", w.repo, "worktree", "add", "-q", "-b", "compat-open", "--", path],
            check=True,
            env=w.server.env,
            capture_output=True,
        )
    return {"cwd": w.repo, "path": path, "focus": False, "trust_repository": True}


def _worktree_remove(w: World) -> dict[str, Any]:
    params = {"cwd": w.repo, "branch": "compat-remove", "focus": False, "trust_repository": True}
    created = w.server.request("worktree.create", params)
    if "result" not in created:  # worktree.create not landed yet: any workspace will do
        return {"workspace_id": w.new_workspace(), "force": True}
    return {"workspace_id": created["result"]["workspace"]["workspace_id"], "force": True}


# method -> params builder (called right before the request, so it may create objects)
CASES: dict[str, Params] = {
    "ping": lambda w: {"client_version": "0.9.0"},
    "server.stop": lambda w: {},  # run on a server of its own, see test_server_stop
    "server.live_handoff": lambda w: {
        "expected_protocol": protocol.PROTOCOL_VERSION,
        "import_exe": "/nonexistent/herdr-for-compat",
    },
    "server.reload_config": lambda w: {},
    "server.agent_manifests": lambda w: {},
    "server.reload_agent_manifests": lambda w: {},
    "notification.show": lambda w: {"title": "compat", "body": "hello", "sound": "none"},
    "product_announcement.dismiss": lambda w: {"id": "compat", "version": "0.9.0"},
    "release_notes.dismiss": lambda w: {"version": herdr.__version__},
    "command.invoke": lambda w: {"command_id": "zoom", "pane_id": w.pane},
    "client.window_title.set": lambda w: {"title": "compat"},
    "client.window_title.clear": lambda w: {},
    "client_shell.surface.set": lambda w: {"active": True},
    "session.snapshot": lambda w: {},
    "workspace.create": lambda w: {"label": "created", "cwd": w.repo, "focus": False},
    "workspace.list": lambda w: {},
    "workspace.get": lambda w: {"workspace_id": w.workspace},
    "workspace.focus": lambda w: {"workspace_id": w.workspace},
    "workspace.rename": lambda w: {"workspace_id": w.workspace, "label": "compat"},
    "workspace.move": lambda w: {"workspace_id": w.workspace, "insert_index": 0},
    "workspace.move_block": lambda w: {"workspace_ids": [w.new_workspace()]},
    "workspace.report_metadata": lambda w: {
        "workspace_id": w.workspace,
        "source": "compat",
        "tokens": {"branch": "main"},
    },
    "workspace.close": lambda w: {"workspace_id": w.new_workspace()},
    "worktree.list": lambda w: {"cwd": w.repo, "trust_repository": True},
    "worktree.create": lambda w: {
        "cwd": w.repo,
        "branch": "compat-create",
        "focus": False,
        "trust_repository": True,
    },
    "worktree.open": _worktree_open,
    "worktree.remove": _worktree_remove,
    "tab.create": lambda w: {"workspace_id": w.workspace, "label": "made", "focus": False},
    "tab.list": lambda w: {"workspace_id": w.workspace},
    "tab.get": lambda w: {"tab_id": w.tab},
    "tab.focus": lambda w: {"tab_id": w.tab},
    "tab.rename": lambda w: {"tab_id": w.tab, "label": "renamed"},
    "tab.move": lambda w: {"tab_id": w.tab, "insert_index": 0},
    "tab.close": lambda w: {"tab_id": w.new_tab()},
    "agent.list": lambda w: {},
    "agent.get": lambda w: {"target": w.agent},
    "agent.read": lambda w: {"target": w.agent, "source": "visible", "lines": 5},
    "agent.explain": lambda w: {"target": w.agent},
    "agent.send_keys": lambda w: {"target": w.agent, "keys": ["Escape"]},
    "agent.rename": lambda w: {"target": w.agent, "name": "compat-agent"},
    "agent.view.set": lambda w: {
        "source": "compat",
        "label": "busy",
        "filter": {"op": "eq", "field": "status", "value": "working"},
        "sort": [{"field": "attention"}],
    },
    "agent.view.clear": lambda w: {"source": "compat"},
    "agent.focus": lambda w: {"target": w.agent},
    "agent.start": lambda w: {"name": "compat-start", "kind": "codex", "pane_id": w.new_pane()},
    "agent.prompt": lambda w: {"target": w.agent, "text": "hello"},
    "agent.wait": lambda w: {"target": w.agent, "until": ["idle", "done"], "timeout_ms": 10_000},
    "pane.split": lambda w: {"target_pane_id": w.pane, "direction": "down", "focus": False},
    "pane.swap": lambda w: {"source_pane_id": w.pane, "target_pane_id": w.agent},
    "pane.move": _pane_move,
    "pane.zoom": lambda w: {"pane_id": w.pane, "mode": "toggle"},
    "pane.layout": lambda w: {"pane_id": w.pane},
    "pane.process_info": lambda w: {"pane_id": w.pane},
    "layout.export": lambda w: {"pane_id": w.pane},
    "layout.apply": _layout_apply,
    "layout.set_split_ratio": lambda w: {"pane_id": w.pane, "path": [], "ratio": 0.5},
    "pane.neighbor": lambda w: {"pane_id": w.pane, "direction": "right"},
    "pane.edges": lambda w: {"pane_id": w.pane},
    "pane.focus_direction": lambda w: {"pane_id": w.pane, "direction": "right"},
    "pane.resize": lambda w: {"pane_id": w.pane, "direction": "right", "amount": 0.05},
    "pane.scroll": lambda w: {"pane_id": w.pane, "offset_from_bottom": 0},
    "pane.edit_scrollback": lambda w: {"pane_id": w.pane},
    "pane.selection.read": _selection,
    "pane.copy_motion": lambda w: {
        "pane_id": w.pane,
        "cursor": _point(),
        "motion": "next_word_start",
    },
    "pane.copy_search": lambda w: {
        "pane_id": w.pane,
        "cursor": _point(),
        "direction": "forward",
        "query": MARKER,
        "content_revision": w.content_revision(w.pane),
    },
    "pane.list": lambda w: {"workspace_id": w.workspace},
    "pane.current": lambda w: {"caller_pane_id": w.pane},
    "pane.get": lambda w: {"pane_id": w.pane},
    "pane.focus": lambda w: {"pane_id": w.pane},
    "pane.input.set": lambda w: {"pane_id": w.pane, "right_click": "pane"},
    "pane.link.activate": lambda w: {"pane_id": w.pane, "viewport_row": 0, "col": 0},
    "pane.rename": lambda w: {"pane_id": w.pane, "label": "shell"},
    "pane.send_text": lambda w: {"pane_id": w.pane, "text": "# typed"},
    "pane.send_keys": lambda w: {"pane_id": w.pane, "keys": ["C-u"]},
    "pane.send_input": lambda w: {"pane_id": w.pane, "text": "true", "keys": ["Enter"]},
    "pane.read": lambda w: {"pane_id": w.pane, "source": "recent", "lines": 20},
    "pane.graphics.set": lambda w: {
        "pane_id": w.pane,
        "format": "rgba",
        "image_width": 1,
        "image_height": 1,
        "data_base64": "AAAAAA==",
    },
    "pane.graphics.clear": lambda w: {"pane_id": w.pane},
    "pane.graphics.info": lambda w: {"pane_id": w.pane},
    "pane.report_agent": lambda w: {
        "pane_id": w.new_pane(),
        "source": "compat",
        "agent": "claude",
        "state": "working",
        "message": "busy",
    },
    "pane.report_agent_session": lambda w: {
        "pane_id": w.agent,
        "source": "compat",
        "agent": "claude",
        "agent_session_id": "0f1e2d3c-aaaa-bbbb-cccc-000000000000",
    },
    "pane.report_metadata": lambda w: {
        "pane_id": w.pane,
        "source": "compat",
        "tokens": {"task": "compat"},
        "title": "compat title",
    },
    "pane.clear_agent_authority": lambda w: {"pane_id": w.pane},
    "pane.release_agent": lambda w: {"pane_id": w.pane, "source": "compat", "agent": "claude"},
    "pane.close": lambda w: {"pane_id": w.new_pane()},
    "popup.close": _open_popup,
    "events.subscribe": lambda w: {"subscriptions": [{"type": "pane.created"}]},
    "events.wait": lambda w: {"match_event": {"event": "pane_created"}, "timeout_ms": 10_000},
    "pane.wait_for_output": lambda w: {
        "pane_id": w.pane,
        "source": "recent",
        "match": {"type": "substring", "value": MARKER},
        "timeout_ms": 10_000,
    },
    "integration.list": lambda w: {},
    "integration.install": _integration_install,
    "integration.uninstall": lambda w: {"target": "claude"},
    "plugin.link": lambda w: {"path": _plugin_dir(w)},
    "plugin.list": lambda w: {"plugin_id": _plugin(w)},
    "plugin.unlink": lambda w: {"plugin_id": _plugin(w)},
    "plugin.enable": lambda w: {"plugin_id": _plugin(w)},
    "plugin.disable": lambda w: {"plugin_id": _plugin(w)},
    "plugin.action.list": lambda w: {"plugin_id": _plugin(w)},
    "plugin.action.invoke": lambda w: {"plugin_id": _plugin(w), "action_id": "compat"},
    "plugin.log.list": lambda w: {},
    "plugin.pane.open": lambda w: {"plugin_id": _plugin(w), "entrypoint": "main"},
    "plugin.pane.focus": lambda w: {"plugin_id": "compat", "pane_id": _plugin_pane(w)},
    "plugin.pane.close": lambda w: {"plugin_id": "compat", "pane_id": _plugin_pane(w)},
}

# Held methods: the first answer line comes only after something happens.
TRIGGERS: dict[str, Callable[[World], object]] = {
    "events.wait": lambda w: w.new_pane(),
}


def _not_supported(method: str) -> str:
    return f"method {method} is not supported by this server yet"


def test_every_reference_method_has_a_case() -> None:
    assert sorted(CASES) == sorted(REFERENCE_METHODS)
    assert set(NOT_YET) <= set(REFERENCE_METHODS)


def test_every_reference_method_is_ours() -> None:
    assert set(REFERENCE_METHODS) <= set(protocol.METHODS)
    assert set(protocol.METHODS) - set(REFERENCE_METHODS) == OURS_ONLY


def _exchange(w: World, method: str, params: dict[str, Any], rid: str) -> dict[str, Any]:
    """The first answer line; a held method's trigger repeats until it answers (the
    server may register the wait only after the first trigger happened)."""
    held = HeldConnection(w.server.socket_path, method, params, rid, timeout=30)
    try:
        trigger = TRIGGERS.get(method)
        if trigger is None:
            line = held.next()
        else:
            held.sock.settimeout(0.5)

            def answered() -> dict[str, Any] | None:
                trigger(w)
                try:
                    return held.next() or {}
                except TimeoutError:
                    return None

            line = wait_until(answered, timeout=30, interval=0, message=f"{method} never answered")
    finally:
        held.close()
    assert line, f"{method}: the server closed without answering"
    return line


SERVED = [m for m in REFERENCE_METHODS if m != "server.stop"]


@pytest.mark.parametrize("method", SERVED)
def test_method_answers_a_valid_protocol22_result(world: World, method: str) -> None:
    params = CASES[method](world)
    rid = f"compat:{method}"
    assert_valid_request({"id": rid, "method": method, "params": params})
    reply = _exchange(world, method, params, rid)
    assert_valid_response(reply)
    assert reply["id"] == rid
    if method in NOT_YET:
        if "result" in reply:
            pytest.fail(f"{method} now answers a result: move it out of NOT_YET ({reply})")
        assert reply["error"] == {
            "code": protocol.INVALID_REQUEST,
            "message": _not_supported(method),
        }
        return
    if method in REFUSED:
        assert reply.get("error", {}).get("code") == REFUSED[method], reply
        return
    assert "result" in reply, f"{method} refused valid params: {reply}"
    assert world.server.server.alive()


def test_server_stop_answers_a_valid_result() -> None:
    with herdr_tree() as herdr:
        server = ServerHandle(herdr, herdr.start_server())
        assert_valid_request({"id": "compat:stop", "method": "server.stop", "params": {}})
        reply = server.request("server.stop", {}, "compat:stop")
        assert_valid_response(reply)
        assert "result" in reply, reply
        wait_until(lambda: server.server.proc.poll() is not None, message="server kept running")


# --- events -------------------------------------------------------------------------


def _every_subscription(pane_id: str) -> list[dict[str, Any]]:
    """One item per subscription type of the reference, pane-scoped ones on ``pane_id``."""
    subs: list[dict[str, Any]] = []
    branches = reference()["schemas"]["request"]["$defs"]["Subscription"]["oneOf"]
    for branch in branches:
        kind = branch["properties"]["type"]["const"]
        item: dict[str, Any] = {"type": kind}
        if "pane_id" in branch.get("required", ()):
            item["pane_id"] = pane_id
        if kind == "pane.output_matched":
            item.update(source="recent", match={"type": "substring", "value": MARKER})
        subs.append(item)
    return subs


def _drive_scenario(server: ServerHandle, watched: str, first: str) -> None:
    """Lifecycle, focus, moves, renames, metadata, an agent state change, an output match."""

    def call(method: str, **params: Any) -> dict[str, Any]:
        return ok(server.request(method, params))

    second = call("workspace.create", label="second", focus=True)["workspace"]["workspace_id"]
    call("workspace.rename", workspace_id=second, label="renamed")
    call("workspace.move", workspace_id=second, insert_index=0)
    call("workspace.focus", workspace_id=first)
    call("workspace.report_metadata", workspace_id=first, source="compat", tokens={"k": "v"})
    tab = call("tab.create", workspace_id=first, label="t", focus=False)["tab"]["tab_id"]
    call("tab.rename", tab_id=tab, label="t2")
    call("tab.move", tab_id=tab, insert_index=0)
    call("tab.focus", tab_id=tab)
    split = call("pane.split", target_pane_id=watched, direction="right", focus=False)
    extra = split["pane"]["pane_id"]
    call("pane.rename", pane_id=extra, label="extra")
    call("pane.focus", pane_id=extra)
    call("layout.set_split_ratio", pane_id=extra, path=[], ratio=0.4)
    call("pane.report_metadata", pane_id=watched, source="compat", title="watched")
    call("pane.report_agent", pane_id=watched, source="compat", agent="claude", state="working")
    call("pane.send_input", pane_id=watched, text=f"echo {MARKER}", keys=["Enter"])
    destination = {"type": "new_workspace", "label": "moved"}
    call("pane.move", pane_id=extra, destination=destination, focus=False)
    call("pane.send_input", pane_id=extra, text="exit", keys=["Enter"])
    call("tab.close", tab_id=tab)
    call("workspace.close", workspace_id=second)


# The kinds the scenario must produce (global kinds, then filtered ones).
SCENARIO_EVENTS = frozenset(
    {
        "workspace_created",
        "workspace_renamed",
        "workspace_moved",
        "workspace_focused",
        "workspace_metadata_updated",
        "workspace_closed",
        "tab_created",
        "tab_renamed",
        "tab_moved",
        "tab_focused",
        "tab_closed",
        "pane_created",
        "pane_updated",
        "pane_focused",
        "pane_moved",
        "pane_exited",
        "pane_closed",
        "pane_agent_detected",
        "layout_updated",
        "pane.output_matched",
        "pane.agent_status_changed",
    }
)


def test_every_event_we_push_validates(herdr_server: ServerHandle) -> None:
    created = ok(herdr_server.request("workspace.create", {"label": "first"}))
    first = created["workspace"]["workspace_id"]
    watched = ok(herdr_server.request("pane.list", {"workspace_id": first}))["panes"][0]["pane_id"]
    params = {"subscriptions": _every_subscription(watched)}
    assert_valid_request({"id": "compat:sub", "method": "events.subscribe", "params": params})
    stream = HeldConnection(herdr_server.socket_path, "events.subscribe", params, "compat:sub")
    try:
        started = stream.next()
        assert started is not None
        assert_valid_response(started)
        assert started["result"]["type"] == "subscription_started", started
        _drive_scenario(herdr_server, watched, first)
        seen: set[str] = set()
        while SCENARIO_EVENTS - seen:
            try:
                line = stream.next()
            except TimeoutError:
                pytest.fail(f"never pushed {sorted(SCENARIO_EVENTS - seen)}")
            assert line is not None, f"stream closed; never pushed {SCENARIO_EVENTS - seen}"
            assert_valid_event(line)
            seen.add(line["event"])
    finally:
        stream.close()


# --- errors -------------------------------------------------------------------------

# (raw request line, the error code herdr answers it with)
ERRORS = [
    pytest.param(b'{"id":"e","method":"pane.get","params":{"pane_id":"w9:p9"}}', "pane_not_found",
                 id="unknown-pane"),
    pytest.param(b'{"id":"e","method":"workspace.get","params":{"workspace_id":"w99"}}',
                 "workspace_not_found", id="unknown-workspace"),
    pytest.param(b'{"id":"e","method":"tab.get","params":{"tab_id":"w1:t99"}}', "tab_not_found",
                 id="unknown-tab"),
    pytest.param(b'{"id":"e","method":"workspace.get","params":{}}', "invalid_request",
                 id="missing-param"),
    pytest.param(b'{"id":"e","method":"pane.read","params":{"pane_id":"w1:p1","source":"x"}}',
                 "invalid_request", id="bad-enum"),
    pytest.param(b'{"id":"e","method":"ping","params":[]}', "invalid_request", id="params-array"),
    pytest.param(b'{"id":"e","method":"no.such","params":{}}', "invalid_request",
                 id="unknown-method"),
    pytest.param(b'{"id":"e","method":"ping"}', "invalid_request", id="no-params"),
    pytest.param(b'{"id":7,"method":"ping","params":{}}', "invalid_request", id="id-not-string"),
    pytest.param(b'{"id":"e",', "invalid_request", id="truncated-json"),
    pytest.param(b'[1,2]', "invalid_request", id="not-an-object"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "code"), ERRORS)
def test_errors_validate_as_error_response(world: World, line: bytes, code: str) -> None:
    answer = world.server.raw(line + b"\n", half_close=True)
    lines = answer.splitlines()
    assert len(lines) == 1, answer  # exactly one answer
    reply = json.loads(lines[0])
    assert_valid_response(reply)
    assert reply["error"]["code"] == code, reply
    assert world.server.server.alive()


# The checks themselves reject what herdr would: a self-test that they are strict.
BROKEN = [
    pytest.param(lambda: assert_valid_request({"id": "x", "method": "pane.get", "params": {}}),
                 id="request-missing-param"),
    pytest.param(lambda: assert_valid_request({"id": "x", "method": "nope", "params": {}}),
                 id="request-unknown-method"),
    pytest.param(lambda: assert_valid_response({"id": "x", "result": {"type": "pong"}}),
                 id="result-missing-fields"),
    pytest.param(lambda: assert_valid_response({"id": "x", "error": {"code": "x"}}),
                 id="error-missing-message"),
    pytest.param(lambda: assert_valid_event({"event": "pane_closed", "data": {}}),
                 id="event-missing-data"),
    pytest.param(lambda: assert_valid_event({"event": "pane.output_matched", "data": {}}),
                 id="subscription-event-missing-data"),
    pytest.param(lambda: assert_valid_event({"event": "no_such", "data": {"type": "no_such"}}),
                 id="event-unknown-kind"),
]  # fmt: skip


@pytest.mark.parametrize("check", BROKEN)
def test_the_checks_reject_broken_lines(check: Callable[[], None]) -> None:
    with pytest.raises(AssertionError, match="not a valid protocol-22"):
        check()
