"""Agent views (pure): herdr's limits on a view, and how one filters and sorts agents."""

from __future__ import annotations

from typing import Any

import pytest

from herdr.runtime import agent_view as av

AGENTS: list[dict[str, Any]] = [
    {
        "pane_id": "w1:p1",
        "workspace_id": "w1",
        "tab_id": "w1:t1",
        "status": "working",
        "agent": "claude",
        "seen": True,
        "state_change_seq": 5,
        "tokens": {"prio": "b"},
        "workspace_order": 0,
        "pane_order": 1,
    },
    {
        "pane_id": "w1:p2",
        "workspace_id": "w1",
        "tab_id": "w1:t2",
        "status": "blocked",
        "agent": "codex",
        "seen": True,
        "state_change_seq": 9,
        "tokens": {},
        "workspace_order": 0,
        "pane_order": 2,
    },
    {
        "pane_id": "w2:p1",
        "workspace_id": "w2",
        "tab_id": "w2:t1",
        "status": "done",
        "agent": "claude",
        "seen": False,
        "state_change_seq": None,
        "tokens": {"prio": "a"},
        "workspace_order": 1,
        "pane_order": 1,
    },
]
CONTEXT = {"current_workspace_id": "w1", "current_tab_id": "w1:t2"}


def _ids(spec: dict[str, Any]) -> list[str]:
    return [e["pane_id"] for e in av.apply(av.validate({"source": "t", **spec}), AGENTS, CONTEXT)]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({}, ["w1:p1", "w1:p2", "w2:p1"]),
        ({"filter": {"op": "eq", "field": "status", "value": "blocked"}}, ["w1:p2"]),
        (
            {
                "filter": {
                    "op": "eq",
                    "field": "workspace_id",
                    "value": {"context": "current_workspace_id"},
                }
            },
            ["w1:p1", "w1:p2"],
        ),
        (
            {"filter": {"op": "eq", "field": "tab_id", "value": {"context": "current_tab_id"}}},
            ["w1:p2"],
        ),
        ({"filter": {"op": "in", "field": "agent", "values": ["codex", "x"]}}, ["w1:p2"]),
        ({"filter": {"op": "exists", "field": {"token": "prio"}}}, ["w1:p1", "w2:p1"]),
        ({"filter": {"op": "exists", "field": "state_change_seq"}}, ["w1:p1", "w1:p2"]),
        ({"filter": {"op": "eq", "field": "seen", "value": False}}, ["w2:p1"]),
        ({"filter": {"op": "eq", "field": "state_change_seq", "value": 9}}, ["w1:p2"]),
        (
            {"filter": {"op": "not", "filter": {"op": "eq", "field": "agent", "value": "claude"}}},
            ["w1:p2"],
        ),
        (
            {
                "filter": {
                    "op": "all",
                    "filters": [
                        {"op": "eq", "field": "agent", "value": "claude"},
                        {"op": "eq", "field": "seen", "value": True},
                    ],
                }
            },
            ["w1:p1"],
        ),
        (
            {
                "filter": {
                    "op": "any",
                    "filters": [
                        {"op": "eq", "field": "status", "value": "done"},
                        {"op": "eq", "field": "status", "value": "blocked"},
                    ],
                }
            },
            ["w1:p2", "w2:p1"],
        ),
        ({"sort": [{"field": "attention", "order": "desc"}]}, ["w1:p2", "w2:p1", "w1:p1"]),
        ({"sort": [{"field": "state_change_seq", "order": "desc"}]}, ["w1:p2", "w1:p1", "w2:p1"]),
        ({"sort": [{"field": {"token": "prio"}}]}, ["w2:p1", "w1:p1", "w1:p2"]),
        (
            {"sort": [{"field": "agent"}, {"field": "workspace_order", "order": "desc"}]},
            ["w2:p1", "w1:p1", "w1:p2"],
        ),
        ({"sort": [{"field": "workspace_order", "order": "desc"}]}, ["w2:p1", "w1:p1", "w1:p2"]),
    ],
    ids=[
        "no_filter",
        "eq_status",
        "context_workspace",
        "context_tab",
        "in",
        "exists_token",
        "exists_builtin",
        "eq_bool",
        "eq_number",
        "not",
        "all",
        "any",
        "sort_attention",
        "sort_absent_last",
        "sort_token_absent_last",
        "sort_two_keys",
        "sort_stable_ties",
    ],
)
def test_apply(spec: dict[str, Any], expected: list[str]) -> None:
    assert _ids(spec) == expected


def test_validate_normalises() -> None:
    spec = av.validate({"source": "  a.b  ", "label": " Mine\x07 ", "sort": [{"field": "agent"}]})
    assert spec == {
        "source": "a.b",
        "label": "Mine",
        "filter": None,
        "sort": [{"field": "agent", "order": "asc"}],
    }


def test_a_true_value_is_not_the_number_one() -> None:
    entries = [{"pane_id": "x", "state_change_seq": 1}]
    spec = av.validate(
        {"source": "t", "filter": {"op": "eq", "field": "state_change_seq", "value": 1}}
    )
    assert av.apply(spec, entries, CONTEXT) == entries
    assert not av.matches({"op": "eq", "field": "seen", "value": True}, {"seen": 1}, CONTEXT)


@pytest.mark.parametrize(
    "params",
    [
        {"source": ""},
        {"source": "ä"},
        {"source": "ok", "label": ""},
        {"source": "ok", "label": "x" * 33},
        {"source": "ok", "filter": {"op": "all", "filters": []}},
        {"source": "ok", "filter": {"op": "in", "field": "agent", "values": ["a"] * 33}},
        {"source": "ok", "filter": {"op": "exists", "field": {"token": ""}}},
        {"source": "ok", "filter": {"op": "eq", "field": "agent", "value": True}},
        {
            "source": "ok",
            "filter": {"op": "eq", "field": "tab_id", "value": {"context": "current_workspace_id"}},
        },
        {
            "source": "ok",
            "filter": {"op": "any", "filters": [{"op": "exists", "field": "agent"}] * 64},
        },
    ],
    ids=[
        "empty_source",
        "non_ascii_source",
        "empty_label",
        "long_label",
        "empty_all",
        "too_many_values",
        "empty_token",
        "bool_for_string",
        "wrong_context",
        "too_many_nodes",
    ],
)
def test_validate_refuses(params: dict[str, Any]) -> None:
    with pytest.raises(av.AgentViewError):
        av.validate(params)


@pytest.mark.parametrize(
    ("levels", "deep"),
    [(1, False), (8, False), (9, True), (100_000, True)],
    ids=["one", "at_limit", "past_limit", "hostile"],
)
def test_too_deep_is_iterative(levels: int, deep: bool) -> None:
    node: Any = {"op": "exists", "field": "agent"}
    for _ in range(levels - 1):
        node = {"op": "all", "filters": [{"op": "exists", "field": "agent"}, node]}
    assert av.too_deep(node) is deep
    assert av.too_deep(None) is False and av.too_deep("not a filter") is False
