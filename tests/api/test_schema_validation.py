"""Request params are validated against the generated request definitions."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.api.schema import method_params_refs, request_defs
from herdr.api.validate import ParamsValidator

VALIDATE = ParamsValidator(request_defs(), method_params_refs())

_SPLIT = {
    "type": "split",
    "direction": "right",
    "ratio": 0.5,
    "first": {"type": "pane", "cwd": "/tmp", "env": {"A": "1"}},
    "second": {"type": "split", "direction": "down", "ratio": 0.3, "first": {"type": "pane"},
               "second": {"type": "pane", "command": ["htop"]}},
}  # fmt: skip

VALID: list[tuple[str, dict[str, Any]]] = [
    ("ping", {}),
    ("ping", {"unknown": "fields are ignored"}),
    ("server.stop", {}),
    ("workspace.create", {"label": "w", "env": {"K": "v"}, "focus": True}),
    ("workspace.move", {"workspace_id": "w1", "insert_index": 0}),
    ("workspace.report_metadata", {"workspace_id": "w1", "source": "s", "tokens": {"a": None}}),
    ("tab.rename", {"tab_id": "w1:t1", "label": "x"}),
    ("pane.read", {"pane_id": "p", "source": "recent_unwrapped", "lines": 10, "format": "ansi"}),
    ("pane.split", {"direction": "down", "ratio": 0.25, "right_click": "pane"}),
    ("pane.move", {"pane_id": "p", "destination": {"type": "new_workspace", "label": None}}),
    ("pane.wait_for_output", {"pane_id": "p", "source": "visible",
                              "match": {"type": "regex", "value": "x+"}}),
    ("pane.report_agent", {"pane_id": "p", "source": "s", "agent": "claude", "state": "idle"}),
    ("pane.report_metadata", {"pane_id": "p", "source": "s", "ttl_ms": 86_400_000}),
    ("layout.apply", {"root": _SPLIT}),
    ("layout.set_split_ratio", {"path": [True, False], "ratio": 0.5}),
    ("agent.prompt", {"target": "a", "text": "hi", "wait": {"until": ["idle", "done"]}}),
    ("agent.view.set", {"source": "s", "filter": {"op": "not", "filter": {
        "op": "eq", "field": {"token": "k"}, "value": {"context": "current_tab_id"}}},
        "sort": [{"field": "attention"}, {"field": {"token": "k"}, "order": "desc"}]}),
    ("events.subscribe", {"subscriptions": [{"type": "pane.created"}], "since_seq": 4}),
    ("events.subscribe", {"subscriptions": [{"type": "pane.output_matched", "pane_id": "p",
                                             "source": "recent", "match": {"type": "substring",
                                                                           "value": "$"}}]}),
    ("events.wait", {"match_event": {"event": "pane_created"}, "since_seq": None}),
    ("plugin.pane.open", {"plugin_id": "x", "entrypoint": "e", "width": "50%", "height": 20}),
    ("integration.install", {"target": "antigravity_cli"}),
    # Length limits (herdr.api.limits): exactly at the limit passes.
    ("workspace.rename", {"workspace_id": "w1", "label": "x" * 256}),
    ("pane.rename", {"pane_id": "p", "label": None}),
    ("pane.report_metadata", {"pane_id": "p", "source": "s", "tokens": {"k": "v" * 4096}}),
    ("pane.send_text", {"pane_id": "p", "text": "x" * 100_000}),  # bounded by the line only
]  # fmt: skip

INVALID: list[tuple[str, dict[str, Any], str]] = [
    ("workspace.get", {}, "params.workspace_id: missing required field"),
    ("workspace.rename", {"workspace_id": 1, "label": "x"},
     "params.workspace_id: expected string, got integer"),
    ("workspace.move", {"workspace_id": "w", "insert_index": -1},
     "params.insert_index: must be >= 0, got -1"),
    ("pane.read", {"pane_id": "p"}, "params.source: missing required field"),
    ("pane.read", {"pane_id": "p", "source": "screen"}, "params.source: expected one of"),
    ("pane.read", {"pane_id": "p", "source": "visible", "strip_ansi": 1},
     "params.strip_ansi: expected boolean, got integer"),
    ("pane.send_keys", {"pane_id": "p", "keys": ["a", 1]},
     "params.keys[1]: expected string, got integer"),
    ("pane.split", {"direction": "left"}, "params.direction: expected one of"),
    ("pane.move", {"pane_id": "p", "destination": {"type": "tab", "tab_id": "t"}},
     "params.destination.split: missing required field"),
    ("pane.report_metadata", {"pane_id": "p", "source": "s", "ttl_ms": 0},
     "params.ttl_ms: must be >= 1, got 0"),
    ("pane.report_agent", {"pane_id": "p", "source": "s", "agent": "a", "state": "done"},
     "params.state: expected one of"),
    ("layout.apply", {"root": {**_SPLIT, "second": {"type": "tile"}}},
     "params.root.second.type: expected one of"),
    ("events.subscribe", {"subscriptions": [{"type": "nope"}]},
     "params.subscriptions[0].type: expected one of"),
    ("events.subscribe", {"subscriptions": [], "since_seq": -1},
     "params.since_seq: must be >= 0, got -1"),
    ("events.wait", {"match_event": {"event": "pane_closed"}},
     "params.match_event.pane_id: missing required field"),
    ("agent.view.set", {"source": "s", "filter": {"op": "xor"}}, "params.filter"),
    ("agent.wait", {"target": "a", "until": ["asleep"]}, "params.until[0]: expected one of"),
    ("tab.move", {"tab_id": "t", "insert_index": 2**64}, "params.insert_index: must be <="),
    ("plugin.pane.open", {"plugin_id": "x", "entrypoint": "e", "width": -1}, "params.width"),
    ("workspace.rename", {"workspace_id": "w1", "label": "x" * 257},
     "params.label: must be at most 256 characters, got 257"),
    ("workspace.create", {"cwd": "/" * 4097}, "params.cwd: must be at most 4096 characters"),
    ("tab.rename", {"tab_id": "t", "label": "é" * 300}, "params.label: must be at most 256"),
    ("pane.rename", {"pane_id": "p", "label": "x" * 1_000_000},
     "params.label: must be at most 256 characters, got 1000000"),
    ("pane.move", {"pane_id": "p",
                   "destination": {"type": "new_workspace", "tab_label": "x" * 257}},
     "params.destination.tab_label: must be at most 256"),
    ("layout.apply", {"root": {"type": "pane", "label": "x" * 257}},
     "params.root.label: must be at most 256"),
    ("agent.rename", {"target": "a", "name": "x" * 257}, "params.name: must be at most 256"),
    ("pane.report_agent", {"pane_id": "p", "source": "s", "agent": "a", "state": "idle",
                           "message": "m" * 4097}, "params.message: must be at most 4096"),
    ("pane.report_metadata", {"pane_id": "p", "source": "s", "tokens": {"k": "v" * 4097}},
     "params.tokens.k: must be at most 4096"),
    ("pane.report_metadata", {"pane_id": "p", "source": "s", "state_labels": {"idle": "v" * 4097}},
     "params.state_labels.idle: must be at most 4096"),
    ("workspace.report_metadata", {"workspace_id": "w", "source": "s" * 257, "tokens": {}},
     "params.source: must be at most 256"),
    ("pane.wait_for_output", {"pane_id": "p", "source": "visible",
                              "match": {"type": "regex", "value": "x" * 4097}},
     "params.match.value: must be at most 4096"),
    ("events.subscribe", {"subscriptions": [{"type": "pane.output_matched", "pane_id": "p",
                                             "source": "recent", "match": {"type": "substring",
                                                                           "value": "x" * 4097}}]},
     "params.subscriptions[0].match.value: must be at most 4096"),
]  # fmt: skip


@pytest.mark.parametrize(("method", "params"), VALID, ids=[m for m, _ in VALID])
def test_valid_params_pass(method: str, params: dict[str, Any]) -> None:
    assert VALIDATE(method, params) is None


@pytest.mark.parametrize(("method", "params", "error"), INVALID, ids=[m for m, _, _ in INVALID])
def test_invalid_params_name_the_field(method: str, params: dict[str, Any], error: str) -> None:
    problem = VALIDATE(method, params)
    assert problem is not None
    assert problem.startswith(error), problem


def test_unknown_methods_are_not_checked_here() -> None:
    assert VALIDATE("client.attach", {"anything": 1}) is None
