"""Frame composition: exact geometry, readable states, wide characters, click targets."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from herdr.client.ansi import ansi_width, strip_ansi
from herdr.client.compose import (
    AgentView,
    Frame,
    PaneView,
    TabView,
    Target,
    ViewState,
    WorkspaceView,
    compose,
    pane_area,
)
from herdr.client.keys import default_bindings, help_entries
from herdr.runtime import layout as L

TREE: L.Node[str] = L.Split(
    "right", 0.5, L.Leaf("w1:p1"), L.Split("down", 0.5, L.Leaf("w1:p2"), L.Leaf("w1:p3"))
)
AGENTS = {"w1:p1": ("claude", "blocked"), "w1:p2": ("codex", "working"), "w1:p3": ("", "unknown")}


def build(
    cols: int = 100,
    rows: int = 24,
    tree: L.Node[str] = TREE,
    content: str = "{pid} row {y} 日本語 ",
    **overrides: object,
) -> ViewState:
    """A realistic view: 3 panes laid out by runtime.layout in the real pane area."""
    base = ViewState(cols, rows, **overrides)  # type: ignore[arg-type]
    area = pane_area(base)
    geometry = L.compute(tree, L.Rect(0, 0, area.width, area.height))
    panes = []
    for pid, rect in geometry.panes.items():
        agent, status = AGENTS.get(pid, ("", "unknown"))
        rows_ = tuple(
            f"\x1b[32m{content.format(pid=pid, y=y)}\x1b[0m" + "x" * y for y in range(rect.height)
        )
        panes.append(
            PaneView(pid, rect, rows_, "~/src/api", agent, status, cursor=(1, 1))  # type: ignore[arg-type]
        )
    defaults: dict[str, object] = {
        "workspaces": (
            WorkspaceView("w1", "api", "blocked", 2, seen=False),
            WorkspaceView("w2", "web", "done", 1, seen=False),
            WorkspaceView("w3", "docs", "idle", 1),
            WorkspaceView("w4", "scratch"),
        ),
        "active_workspace_id": "w1",
        "tabs": (TabView("w1:t1", "main", "blocked", False), TabView("w1:t2", "logs", "done")),
        "active_tab_id": "w1:t1",
        "agents": (
            AgentView("w1:p1", "w1:t1", "claude", "blocked", seen=False),
            AgentView("w1:p2", "w1:t1", "codex", "working"),
            AgentView("w1:p4", "w1:t2", "pi", "done", seen=False),
        ),
        "panes": tuple(panes),
        "focused_pane_id": "w1:p2",
    }
    defaults.update(overrides)
    return msgspec.structs.replace(base, **defaults)


def plain(frame: Frame) -> list[str]:
    return [strip_ansi(row) for row in frame.rows]


def assert_exact(frame: Frame, cols: int, rows: int) -> None:
    assert len(frame.rows) == rows
    for y, row in enumerate(frame.rows):
        assert ansi_width(row) == cols, (y, row)


# --------------------------------------------------------------------------- geometry


@pytest.mark.parametrize(
    ("cols", "rows"), [(100, 24), (200, 50), (80, 10), (40, 8), (21, 5), (10, 3), (3, 1), (1, 1)]
)
def test_frame_is_exactly_rows_by_cols(cols: int, rows: int) -> None:
    frame = compose(build(cols, rows))
    assert_exact(frame, cols, rows)


def test_empty_and_zero_sizes() -> None:
    assert compose(ViewState(0, 0)).rows == ()
    assert_exact(compose(ViewState(30, 4)), 30, 4)


_SETTINGS = st.tuples(
    st.integers(min_value=1, max_value=160),
    st.integers(min_value=1, max_value=50),
    st.booleans(),
    st.sampled_from(["compact", "hidden"]),
    st.sampled_from(["top", "bottom"]),
    st.booleans(),
    st.booleans(),
)


@settings(max_examples=120, deadline=None)
@given(_SETTINGS)
def test_any_size_and_settings_stay_exact(
    case: tuple[int, int, bool, str, str, bool, bool],
) -> None:
    cols, rows, sidebar, collapsed, tab_pos, zoomed, help_on = case
    view = build(
        cols,
        rows,
        sidebar_visible=sidebar,
        sidebar_collapsed_mode=collapsed,
        tab_bar_position=tab_pos,
        zoomed=zoomed,
        help_visible=help_on,
        help=help_entries(default_bindings()),
    )
    frame = compose(view)
    assert_exact(frame, cols, rows)
    if frame.cursor is not None:
        x, y = frame.cursor
        assert 0 <= x < cols and 0 <= y < rows


def test_stale_rects_from_a_bigger_layout_are_clipped() -> None:
    view = build(100, 24)
    big = tuple(
        msgspec.structs.replace(p, rect=L.Rect(p.rect.x * 2, p.rect.y, p.rect.width * 3, 99))
        for p in view.panes
    )
    frame = compose(msgspec.structs.replace(view, panes=big))
    assert_exact(frame, 100, 24)


def test_pane_area_leaves_room_for_sidebar_tab_bar_and_title_row() -> None:
    view = build(100, 24)
    area = pane_area(view)
    assert area == L.Rect(26, 2, 74, 22)
    collapsed = pane_area(msgspec.structs.replace(view, sidebar_visible=False))
    assert collapsed.x == 3
    hidden = pane_area(
        msgspec.structs.replace(view, sidebar_visible=False, sidebar_collapsed_mode="hidden")
    )
    assert hidden.x == 0
    bottom = pane_area(msgspec.structs.replace(view, tab_bar_position="bottom"))
    assert (bottom.y, bottom.height) == (1, 22)


# --------------------------------------------------------------------------- content


def test_sidebar_shows_workspaces_states_and_counts() -> None:
    lines = plain(compose(build(100, 24)))
    sidebar = [line[:25] for line in lines]
    assert "Spaces" in sidebar[0] and "!1" in sidebar[0] and "✓1" in sidebar[0]
    api = next(line for line in sidebar if " api" in line)
    assert "blocked" in api and api.rstrip().endswith("2")
    web = next(line for line in sidebar if " web" in line)
    assert "done" in web
    assert any("claude" in line and "blocked" in line for line in sidebar)
    assert any("codex" in line and "working" in line for line in sidebar)
    assert any(" pi" in line and "done" in line for line in sidebar)
    assert any("1 main" in line for line in sidebar) and any("2 logs" in line for line in sidebar)


def test_symbols_mode_uses_distinct_shapes() -> None:
    lines = plain(compose(build(100, 24, status_indicators="symbols")))
    assert any("! api" in line for line in lines)
    assert any("✓ web" in line for line in lines)
    assert any("○ docs" in line for line in lines)


def test_unseen_blocked_is_loud_and_seen_is_not() -> None:
    loud = compose(build(100, 24))
    quiet_view = build(100, 24, workspaces=(WorkspaceView("w1", "api", "blocked", 2, seen=True),))
    quiet = compose(quiet_view)
    assert "\x1b[1;97;41m" in loud.rows[1]  # white on red until looked at
    assert "\x1b[1;97;41m" not in quiet.rows[1]
    assert "\x1b[1;91m" in quiet.rows[1]  # still red


def test_overflowing_sidebar_keeps_attention_visible() -> None:
    many = tuple(WorkspaceView(f"w{i}", f"space{i}", "idle", 1) for i in range(40))
    many += (WorkspaceView("w99", "late", "blocked", 1, seen=False),)
    lines = plain(compose(build(100, 12, workspaces=many, active_workspace_id="w0")))
    more = next(line for line in lines if "more" in line)
    assert "!1" in more  # the hidden blocked workspace is still counted


def test_active_workspace_stays_visible_when_list_overflows() -> None:
    many = tuple(WorkspaceView(f"w{i}", f"space{i}", "idle", 1) for i in range(40))
    lines = plain(compose(build(100, 12, workspaces=many, active_workspace_id="w30")))
    assert any("space30" in line for line in lines)


def test_tab_bar_and_mode_badges() -> None:
    lines = plain(compose(build(100, 24, mode="prefix", zoomed=True)))
    bar = lines[0][26:]
    assert "PREFIX" in bar and "1 main !" in bar and "2 logs ✓" in bar and "ZOOM" in bar
    nav = plain(compose(build(100, 24, mode="navigate", selected_workspace_id="w2")))
    assert "NAVIGATE" in nav[0]


def test_pane_titles_carry_agent_and_state_words() -> None:
    lines = plain(compose(build(100, 24)))
    header = lines[1]
    assert "claude blocked" in header
    assert "codex working · ~/src/api" in header
    assert "┬" in header  # the vertical divider starts under the title row
    assert any("├" in line and "~/src/api" in line for line in lines)  # lower pane's title


def test_focused_pane_is_highlighted_in_accent() -> None:
    frame = compose(build(100, 24, accent="magenta"))
    header = frame.rows[1]
    # The focused pane (p2, right) draws its title line in the accent colour.
    assert "\x1b[35m─" in header[header.index("codex") - 40 :]


def test_pane_content_is_clipped_and_styled() -> None:
    frame = compose(build(100, 24))
    lines = plain(frame)
    assert "w1:p1 row 0 日本語" in lines[2]
    assert "\x1b[32m" in frame.rows[2]


def test_hostile_pane_output_cannot_escape_its_rectangle() -> None:
    view = build(100, 24, content="\x1b[2J\x1b[1;1H\x1b]0;pwn\x07{pid}\r\n")
    frame = compose(view)
    assert_exact(frame, 100, 24)
    text = "".join(frame.rows)
    assert "\x1b[2J" not in text and "\x1b]0" not in text and "\r" not in text


def test_wide_chars_never_split_at_pane_edges() -> None:
    view = build(101, 20, content="{pid}日本語日本語日本語日本語日本語日本語日本語日本語日本語")
    frame = compose(view)
    assert_exact(frame, 101, 20)
    for line in plain(frame):
        assert "\ufffd" not in line


def test_wide_labels_in_sidebar_and_tabs() -> None:
    view = build(
        90,
        20,
        workspaces=(WorkspaceView("w1", "日本語のワークスペース名前", "working", 3),),
        tabs=(TabView("w1:t1", "タブ🚀"),),
    )
    assert_exact(compose(view), 90, 20)


def test_cursor_maps_to_frame_cells_and_hides_under_help() -> None:
    view = build(100, 24)
    frame = compose(view)
    p2 = next(p for p in view.panes if p.pane_id == "w1:p2")
    area = pane_area(view)
    assert frame.cursor == (area.x + p2.rect.x + 1, area.y + p2.rect.y + 1)
    with_help = compose(
        msgspec.structs.replace(view, help_visible=True, help=help_entries(default_bindings()))
    )
    assert with_help.cursor is None
    assert any("split right" in line for line in plain(with_help))


def test_zoomed_single_pane_fills_the_area() -> None:
    view = build(100, 24, tree=L.Leaf("w1:p2"), zoomed=True)
    frame = compose(view)
    lines = plain(frame)
    assert "ZOOM" in lines[1]
    assert lines[2][26:].startswith("w1:p2 row 0")


def test_click_targets() -> None:
    view = build(100, 24)
    frame = compose(view)
    lines = plain(frame)
    y_api = next(y for y, line in enumerate(lines) if " api" in line[:25])
    assert frame.target_at(5, y_api) == Target("workspace", "w1")
    y_claude = next(y for y, line in enumerate(lines) if "claude" in line[:25])
    assert frame.target_at(5, y_claude) == Target("agent", "w1:p1")
    y_logs = next(y for y, line in enumerate(lines) if "2 logs" in line[:25])
    assert frame.target_at(5, y_logs) == Target("tab", "w1:t2")
    x_tab = lines[0].index("2 logs")
    assert frame.target_at(x_tab, 0) == Target("tab", "w1:t2")
    assert frame.target_at(30, 5) == Target("pane", "w1:p1")
    assert frame.target_at(99, 5) == Target("pane", "w1:p2")
    assert frame.target_at(25, 5) == Target("sidebar_edge")
    p1 = next(p for p in view.panes if p.pane_id == "w1:p1")
    divider_x = pane_area(view).x + p1.rect.right  # in cells (the row has wide chars)
    assert frame.target_at(divider_x, 5) == Target("pane_area")
    assert frame.target_at(divider_x - 1, 5) == Target("pane", "w1:p1")


def test_compact_sidebar_keeps_one_mark_per_workspace() -> None:
    lines = plain(compose(build(100, 10, sidebar_visible=False)))
    assert [line[:3] for line in lines[:4]] == ["▌!│", " ✓│", " ○│", " ·│"]


def test_priority_sort_lists_blocked_first() -> None:
    lines = plain(compose(build(100, 24, agent_panel_sort="priority")))
    agent_lines = [
        line[:25] for line in lines if any(a in line[:25] for a in ("claude", "codex", " pi"))
    ]
    assert "claude" in agent_lines[0] and " pi" in agent_lines[1] and "codex" in agent_lines[2]


def test_compose_is_deterministic_and_pure() -> None:
    view = build(120, 30)
    assert compose(view) == compose(view)


def test_navigate_selection_is_highlighted() -> None:
    frame = compose(build(100, 24, mode="navigate", selected_workspace_id="w3"))
    docs = next(row for row in frame.rows if "docs" in strip_ansi(row)[:25])
    assert "\x1b[7m" in docs
    plain_frame = compose(build(100, 24, selected_workspace_id="w3"))  # terminal mode
    docs = next(row for row in plain_frame.rows if "docs" in strip_ansi(row)[:25])
    assert "\x1b[7m" not in docs
