"""Pane verbs with no pane given act on the CALLING pane ($HERDR_PANE_ID), not the focused one.

An agent in pane p1 that runs ``herdr pane split`` while the user looks at p2 must split
its own pane. Outside a pane (no ``$HERDR_PANE_ID``) or with ``--focused`` the server's
focused pane is meant, as before. Every answer is a valid protocol-22 result.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from herdr_testing import ServerHandle, wait_until
from herdr_testing.fake_env import ok
from herdr_testing.schema22 import assert_valid_result


@pytest.fixture
def two_panes(herdr_server: ServerHandle) -> tuple[str, str]:
    """``(p1, p2)`` side by side in one tab, p2 focused."""
    ws = ok(herdr_server.request("workspace.create", {"focus": True}))["workspace"]
    p1 = f"{ws['workspace_id']}:p1"
    split = {"target_pane_id": p1, "direction": "right", "focus": True}
    p2 = ok(herdr_server.request("pane.split", split))["pane"]["pane_id"]
    assert _focused(herdr_server, p1) == p2
    return p1, p2


def _focused(server: ServerHandle, pane: str) -> str:
    layout = ok(server.request("pane.layout", {"pane_id": pane}))["layout"]
    return str(layout["focused_pane_id"])


def _cli(server: ServerHandle, *argv: str, caller: str | None) -> dict[str, Any]:
    env = {"HERDR_SOCKET_PATH": str(server.socket_path)}
    if caller is not None:
        env["HERDR_PANE_ID"] = caller
    done = server.cli(*argv, env=env)
    assert done.returncode == 0, done
    result: dict[str, Any] = json.loads(done.stdout)["result"]
    assert_valid_result(result)
    return result


def _split_of(server: ServerHandle, new_pane: str) -> str:
    """The pane ``new_pane`` was split from: its neighbour above (splits go down)."""
    params = {"pane_id": new_pane, "direction": "up"}
    return str(ok(server.request("pane.neighbor", params))["neighbor"]["neighbor_pane_id"])


@pytest.mark.parametrize(
    ("caller", "extra", "splits"),
    [
        pytest.param("p1", (), "p1", id="inside-p1-splits-p1"),
        pytest.param(None, (), "p2", id="outside-splits-focused"),
        pytest.param("p1", ("--focused",), "p2", id="focused-flag"),
        pytest.param("p1", ("--current",), "p1", id="current-flag"),
        pytest.param("p2", ("{p1}",), "p1", id="explicit-pane-wins"),
    ],
)
def test_pane_split_without_a_target_splits_the_calling_pane(
    herdr_server: ServerHandle,
    two_panes: tuple[str, str],
    caller: str | None,
    extra: tuple[str, ...],
    splits: str,
) -> None:
    names = dict(zip(("p1", "p2"), two_panes, strict=True))
    argv = [a.format(**names) for a in extra]
    result = _cli(
        herdr_server,
        "pane",
        "split",
        *argv,
        "--direction",
        "down",
        caller=names[caller] if caller else None,
    )
    assert _split_of(herdr_server, result["pane"]["pane_id"]) == names[splits]


def test_split_run_inside_a_real_pane_splits_that_pane(
    herdr_server: ServerHandle, two_panes: tuple[str, str]
) -> None:
    """The pane's own shell runs the CLI (its real $HERDR_PANE_ID, $HERDR_SOCKET_PATH)."""
    p1, p2 = two_panes
    before = {p["pane_id"] for p in ok(herdr_server.request("pane.list", {}))["panes"]}
    command = '"$HERDR_BIN_PATH" pane split --direction down >/dev/null && echo SPLIT-OK'
    ok(herdr_server.request("pane.send_input", {"pane_id": p1, "text": command, "keys": ["Enter"]}))

    def new_panes() -> set[str]:
        panes = ok(herdr_server.request("pane.list", {}))["panes"]
        return {p["pane_id"] for p in panes} - before

    wait_until(lambda: len(new_panes()) == 1, timeout=30)
    (new,) = new_panes()
    assert _split_of(herdr_server, new) == p1
    assert _focused(herdr_server, p1) == p2  # the split did not take the focus


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        pytest.param(("pane", "current"), ("pane", "pane_id"), id="current"),
        pytest.param(("pane", "edges"), ("edges", "pane_id"), id="edges"),
        pytest.param(("pane", "process-info"), ("process_info", "pane_id"), id="process-info"),
        pytest.param(
            ("pane", "neighbor", "--direction", "right"), ("neighbor", "pane_id"), id="neighbor"
        ),
        pytest.param(("pane", "zoom", "--toggle"), ("zoom", "pane_id"), id="zoom"),
        pytest.param(
            ("pane", "resize", "--direction", "right"), ("resize", "pane_id"), id="resize"
        ),
    ],
)
def test_other_current_pane_verbs_follow_the_same_rule(
    herdr_server: ServerHandle,
    two_panes: tuple[str, str],
    argv: tuple[str, ...],
    field: tuple[str, str],
) -> None:
    p1, p2 = two_panes
    inside = _cli(herdr_server, *argv, caller=p1)
    assert inside[field[0]][field[1]] == p1
    if argv[1] in {"zoom", "resize"}:
        return  # these move the focus to the pane they act on
    outside = _cli(herdr_server, *argv, caller=None)
    assert outside[field[0]][field[1]] == p2
