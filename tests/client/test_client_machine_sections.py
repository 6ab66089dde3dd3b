"""Other machines in the TUI (PURE): the sidebar sections read from a machine's
snapshot, prefix+m's cycle order, and how a section is drawn."""

from __future__ import annotations

import msgspec
import pytest

from herdr.client.ansi import ansi_width, strip_ansi
from herdr.client.compose import compose
from herdr.client.machine_sections import (
    failed_section,
    next_machine,
    others,
    section_from_snapshot,
)
from herdr.client.view import MachineSection, ViewState, WorkspaceView
from herdr.remote.cycle import Switch, drive

SNAPSHOT = {
    "workspaces": [
        {"workspace_id": "w1", "label": "build", "agent_status": "blocked"},
        {"workspace_id": "w2", "label": "tests", "agent_status": "done"},
        {"workspace_id": "w3", "label": "misc", "agent_status": "bogus"},
    ],
    "panes": [
        {"pane_id": "w1:p1", "workspace_id": "w1", "agent": "claude"},
        {"pane_id": "w1:p2", "workspace_id": "w1", "agent": "codex"},
        {"pane_id": "w3:p1", "workspace_id": "w3", "agent": None},
    ],
}


def test_section_from_snapshot_keeps_states_and_counts_agents() -> None:
    section = section_from_snapshot("box", SNAPSHOT)
    assert section == MachineSection(
        "box",
        (
            WorkspaceView("w1", "build", "blocked", 2),
            WorkspaceView("w2", "tests", "done", 0, seen=False),
            WorkspaceView("w3", "misc", "unknown", 0),
        ),
    )


@pytest.mark.parametrize(
    ("snapshot", "note"),
    [
        (None, "no snapshot"),
        ("text", "no snapshot"),
        ({}, "no workspaces"),
        ({"workspaces": ["junk", 3], "panes": "junk?"}, "no workspaces"),
    ],
    ids=["none", "not-a-dict", "empty", "junk-entries"],
)
def test_a_bad_snapshot_is_one_note(snapshot: object, note: str) -> None:
    assert section_from_snapshot("box", snapshot) == MachineSection("box", (), note)


@pytest.mark.parametrize(
    ("code", "message", "note"),
    [
        ("machine_unreachable", "ssh failed", "unreachable"),
        ("server_not_running", "none", "no server"),
        ("remote_herdr_missing", "x", "herdr missing"),
        ("timeout", "", "not answering"),
        ("protocol_mismatch", "speaks\n21", "protocol_mismatch: speaks 21"),
        ("other", "y" * 200, ("other: " + "y" * 200)[:60]),
    ],
    ids=["unreachable", "no-server", "missing", "timeout", "other-one-line", "long-capped"],
)
def test_failures_read_as_one_short_line(code: str, message: str, note: str) -> None:
    assert failed_section("box", code, message) == MachineSection("box", (), note)


@pytest.mark.parametrize(
    ("current", "names", "expected"),
    [
        (None, [], None),
        (None, ["b", "a"], "a"),
        ("a", ["b", "a"], "b"),
        ("b", ["b", "a"], None),
        ("ssh://x@h:22", ["b", "a"], "a"),
        ("gone", [], None),
    ],
    ids=["nothing-saved", "local-to-first", "to-next", "last-back-to-local", "typed", "none"],
)
def test_cycle_order(current: str | None, names: list[str], expected: str | None) -> None:
    assert next_machine(current, names) == expected


def test_the_sidebar_lists_all_but_the_current_machine() -> None:
    assert others("b", ["c", "b", "a"]) == ["a", "c"]
    assert others(None, ["b", "a"]) == ["a", "b"]


def test_drive_runs_each_stop_until_one_exits() -> None:
    stops: list[str | None] = []
    plan: list[int | Switch] = [Switch("a"), Switch(None), 3]

    def run(machine: str | None) -> int | Switch:
        stops.append(machine)
        return plan[len(stops) - 1]

    assert drive("first", run) == 3
    assert stops == ["first", "a", None]


def _view(machines: tuple[MachineSection, ...], rows: int = 24) -> ViewState:
    return msgspec.structs.replace(
        ViewState(100, rows),
        workspaces=(WorkspaceView("w1", "api", "idle", 1),),
        active_workspace_id="w1",
        machines=machines,
    )


def test_sidebar_shows_a_section_per_machine() -> None:
    frame = compose(
        _view((section_from_snapshot("box", SNAPSHOT), failed_section("vm", "timeout", "")))
    )
    sidebar = [strip_ansi(row)[:25] for row in frame.rows]
    head = next(i for i, line in enumerate(sidebar) if "@box" in line)
    assert "!1" in sidebar[head] and "✓1" in sidebar[head]  # its attention, counted
    assert "build" in sidebar[head + 1] and "blocked" in sidebar[head + 1]
    assert "tests" in sidebar[head + 2] and "done" in sidebar[head + 2]
    assert any("@vm" in line and "not answering" in line for line in sidebar)
    assert all(ansi_width(row) == 100 for row in frame.rows)


def test_machine_sections_never_push_the_frame_out_of_shape() -> None:
    many = tuple(section_from_snapshot(f"m{i}", SNAPSHOT) for i in range(10))
    for rows in (5, 10, 24):
        frame = compose(_view(many, rows))
        assert len(frame.rows) == rows
        assert all(ansi_width(row) == 100 for row in frame.rows)


def test_no_machines_draws_the_sidebar_as_before() -> None:
    before = ViewState(
        100, 24, workspaces=(WorkspaceView("w1", "api", "idle", 1),), active_workspace_id="w1"
    )
    assert compose(_view(())).rows == compose(before).rows
