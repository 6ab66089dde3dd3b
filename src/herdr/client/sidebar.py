"""The sidebar (workspaces; the active workspace's tabs and agents) and the tab bar.

Designed against what users of agent multiplexers complain about: blocked agents that
sat unnoticed, states shown by colour only, long lists that hide the one entry that
needs you. So: a header counting blocked/done workspaces, the word next to each
agent's mark, overflow lines that still count the attention they hide, and the active
entry always kept in view. Both parts are cached on the state they show.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TypeAlias

from msgspec import Struct

from herdr.client.ansi import RESET, color_sgr, sanitize, sgr, text_width, truncate
from herdr.client.style import (
    BOLD,
    DIM,
    PRIORITY,
    REVERSE,
    STATUS_STYLE,
    WORDS,
    Seg,
    fit_segments,
    glyph,
    status_style,
)
from herdr.client.view import (
    AgentView,
    MachineSection,
    Region,
    SidebarMode,
    TabView,
    Target,
    WorkspaceView,
)
from herdr.runtime.rect import Rect

# ----------------------------------------------------------------------------- sidebar

# A sidebar line: its text, what a click on it means, and the attention it carries.
_Line: TypeAlias = tuple[str, Target | None, tuple[str, bool] | None]


class SidebarKey(Struct, frozen=True):
    mode: SidebarMode
    width: int
    height: int
    workspaces: tuple[WorkspaceView, ...]
    active_workspace_id: str | None
    selected_workspace_id: str | None
    navigating: bool
    tabs: tuple[TabView, ...]
    active_tab_id: str | None
    agents: tuple[AgentView, ...]
    focused_pane_id: str | None
    indicators: str
    sort: str
    accent: str
    agents_title: str = "Agents"
    session: str = ""
    machines: tuple[MachineSection, ...] = ()


def _attention(statuses: Sequence[tuple[str, bool]]) -> list[Seg]:
    """`! 2  ✓ 1`: what needs a human, counted — visible even when rows overflow."""
    segs: list[Seg] = []
    for status in ("blocked", "done"):
        n = sum(1 for s, _ in statuses if s == status)
        if n:
            unseen = any(s == status and not seen for s, seen in statuses)
            segs.append((f"{glyph(status, 'symbols')}{n}", status_style(status, not unseen)))
            segs.append((" ", ""))
    return segs


@lru_cache(maxsize=16)
def sidebar(key: SidebarKey) -> tuple[tuple[str, ...], tuple[Region, ...]]:
    if key.mode == "hidden" or key.width <= 0:
        return ("",) * key.height, ()
    inner = key.width - 1
    edge = f"{DIM}│{RESET}"
    lines = (_compact_lines if key.mode == "compact" else _expanded_lines)(key, inner)
    rows: list[str] = []
    regions: list[Region] = [Region(Rect(0, 0, inner, key.height), Target("sidebar"))]
    for y in range(key.height):
        if y < len(lines):
            text, target, _ = lines[y]
            if target is not None:
                regions.append(Region(Rect(0, y, inner, 1), target))
        else:
            text = " " * inner
        rows.append(text + edge)
    regions.append(Region(Rect(inner, 0, 1, key.height), Target("sidebar_edge")))
    return tuple(rows), tuple(regions)


def _compact_lines(key: SidebarKey, inner: int) -> list[_Line]:
    accent = color_sgr(key.accent)
    lines: list[_Line] = []
    for ws in key.workspaces[: key.height]:
        active = ws.workspace_id == key.active_workspace_id
        selected = key.navigating and ws.workspace_id == key.selected_workspace_id
        lead = ("▌", sgr(accent)) if active else (" ", "")
        mark = (glyph(ws.agent_status, "symbols"), status_style(ws.agent_status, ws.seen))
        base = REVERSE if selected else ""
        target = Target("workspace", ws.workspace_id)
        lines.append((fit_segments([lead, mark], inner, base=base), target, None))
    return lines


def _expanded_lines(key: SidebarKey, inner: int) -> list[_Line]:
    accent = sgr(color_sgr(key.accent))
    ws_lines = [_workspace_line(key, ws, inner, accent) for ws in key.workspaces]
    agent_lines = _agent_lines(key, inner, accent)
    head: list[Seg] = [(" Spaces", BOLD)]
    if key.session:
        head.append((f" · {sanitize(key.session)}", DIM))
    head_spaces = fit_segments(
        head,
        inner,
        _attention([(w.agent_status, w.seen) for w in key.workspaces]),
    )
    head_agents = fit_segments([(" " + sanitize(key.agents_title), BOLD)], inner)
    need_ws, need_agents = 1 + len(ws_lines), 1 + len(agent_lines)
    height = key.height
    if need_ws + 1 + need_agents <= height:
        room_ws = need_ws
    else:
        room_ws = min(need_ws, max(2, height - need_agents - 1, height // 2))
    out: list[_Line] = [(head_spaces, None, None)]
    active = Target("workspace", key.active_workspace_id or "")
    out += _windowed(ws_lines, room_ws - 1, _index_of(ws_lines, active), inner)
    machine_lines = _machine_lines(key, inner)
    reserve = min(len(machine_lines), max(0, height // 3)) if machine_lines else 0
    room_agents = height - len(out) - 1 - reserve
    if room_agents >= 2:
        out.append((" " * inner, None, None))
        out.append((head_agents, None, None))
        keep = _index_of(agent_lines, Target("agent", key.focused_pane_id or ""))
        out += _windowed(agent_lines, room_agents - 1, keep, inner)
    if machine_lines:
        room = height - len(out)
        out += machine_lines[:room]
    return out[:height]


def _machine_lines(key: SidebarKey, inner: int) -> list[_Line]:
    """A section per other machine: a blank line, its name (or why it was not read),
    then its workspaces with their agent marks. Not clickable: prefix+m goes there."""
    lines: list[_Line] = []
    for section in key.machines:
        lines.append((" " * inner, None, None))
        name = sanitize(section.name)
        if section.note:
            note = sanitize(section.note)
            lines.append(
                (fit_segments([(f" @{name}", BOLD), (f" · {note}", DIM)], inner), None, None)
            )
            continue
        attention = _attention([(w.agent_status, w.seen) for w in section.workspaces])
        lines.append((fit_segments([(f" @{name}", BOLD)], inner, attention), None, None))
        for ws in section.workspaces:
            left: list[Seg] = [
                ("  ", ""),
                (glyph(ws.agent_status, key.indicators), status_style(ws.agent_status, ws.seen)),
                (" ", ""),
                (sanitize(ws.label) or ws.workspace_id, ""),
            ]
            word = WORDS.get(ws.agent_status, "")
            right: list[Seg] = []
            if word:
                right = [(" ", ""), (word, STATUS_STYLE.get(ws.agent_status, DIM)), (" ", "")]
            line = fit_segments(left, inner, right, min_left=4 + min(6, text_width(ws.label)))
            lines.append((line, None, (ws.agent_status, ws.seen)))
    return lines


def _index_of(lines: Sequence[_Line], target: Target) -> int:
    return next((i for i, line in enumerate(lines) if line[1] == target), 0)


def _windowed(lines: list[_Line], room: int, keep: int, inner: int) -> list[_Line]:
    """At most ``room`` lines keeping line ``keep`` visible; the rest summarised with
    their attention counts, so a blocked agent never scrolls out of sight silently."""
    if room <= 0:
        return []
    if len(lines) <= room:
        return lines
    show = room - 1
    start = 0 if keep < show else keep - show + 1
    hidden = [line for i, line in enumerate(lines) if not start <= i < start + show]
    statuses = [line[2] for line in hidden if line[2] is not None]
    more = fit_segments([(f" +{len(hidden)} more ", DIM)], inner, _attention(statuses))
    return [*lines[start : start + show], (more, None, None)]


def _workspace_line(key: SidebarKey, ws: WorkspaceView, inner: int, accent: str) -> _Line:
    active = ws.workspace_id == key.active_workspace_id
    selected = key.navigating and ws.workspace_id == key.selected_workspace_id
    style = status_style(ws.agent_status, ws.seen)
    left: list[Seg] = [
        ("▌" if active else " ", accent if active else ""),
        (glyph(ws.agent_status, key.indicators), style),
        (" ", ""),
        (sanitize(ws.label) or ws.workspace_id, BOLD if active else ""),
    ]
    right: list[Seg] = []
    word = WORDS.get(ws.agent_status, "") if ws.agent_status in ("blocked", "done") else ""
    if word:
        right += [(word, STATUS_STYLE[ws.agent_status]), (" ", "")]
    if ws.agent_count:
        right += [(str(ws.agent_count), DIM), (" ", "")]
    if right:
        right.insert(0, (" ", ""))
    left_min = 3 + min(6, text_width(left[3][0]))
    if right and left_min + sum(text_width(t) for t, _ in right) > inner:
        right = [(" ", ""), (str(ws.agent_count), DIM), (" ", "")] if ws.agent_count else []
    base = REVERSE if selected else ""
    target = Target("workspace", ws.workspace_id)
    line = fit_segments(left, inner, right, base=base, min_left=left_min)
    return line, target, (ws.agent_status, ws.seen)


def _agent_lines(key: SidebarKey, inner: int, accent: str) -> list[_Line]:
    lines: list[_Line] = []
    tab_number = {t.tab_id: i + 1 for i, t in enumerate(key.tabs)}
    if key.sort in ("priority", "view"):  # view: already in the agent view's order
        ordered = list(enumerate(key.agents))
        if key.sort == "priority":
            ordered.sort(key=lambda pair: (PRIORITY[pair[1].agent_status], pair[0]))
        for _, agent in ordered:
            lines.append(_agent_line(key, agent, inner, accent, tab_number.get(agent.tab_id)))
        return lines
    by_tab: dict[str, list[AgentView]] = {}
    for agent in key.agents:
        by_tab.setdefault(agent.tab_id, []).append(agent)
    for index, tab in enumerate(key.tabs):
        active = tab.tab_id == key.active_tab_id
        left: list[Seg] = [
            ("▸" if active else " ", accent if active else ""),
            (f"{index + 1} ", DIM),
            (sanitize(tab.label) or tab.tab_id, BOLD if active else ""),
        ]
        right: list[Seg] = []
        if tab.agent_status in ("blocked", "done", "working"):
            right = [
                (
                    glyph(tab.agent_status, "symbols"),
                    status_style(tab.agent_status, tab.seen),
                ),
                (" ", ""),
            ]
        lines.append((fit_segments(left, inner, right), Target("tab", tab.tab_id), None))
        for agent in by_tab.pop(tab.tab_id, []):
            lines.append(_agent_line(key, agent, inner, accent, None))
    for rest in by_tab.values():  # agents of tabs we were not told about
        for agent in rest:
            lines.append(_agent_line(key, agent, inner, accent, None))
    return lines


def _agent_line(
    key: SidebarKey, agent: AgentView, inner: int, accent: str, tab_no: int | None
) -> _Line:
    focused = agent.pane_id == key.focused_pane_id
    style = status_style(agent.agent_status, agent.seen)
    label = sanitize(agent.name or agent.agent) or agent.pane_id
    left: list[Seg] = [
        (" ›" if focused else "  ", accent if focused else ""),
        (" ", ""),
        (glyph(agent.agent_status, key.indicators), style),
        (" ", ""),
        (label, BOLD if focused else ""),
    ]
    if tab_no is not None:
        left.append((f" t{tab_no}", DIM))
    word = WORDS.get(agent.agent_status, "")
    right: list[Seg] = []
    if word:
        right = [(" ", ""), (word, STATUS_STYLE.get(agent.agent_status, DIM)), (" ", "")]
    status = (agent.agent_status, agent.seen)
    line = fit_segments(left, inner, right, min_left=4 + min(6, text_width(label)))
    return line, Target("agent", agent.pane_id), status


# ----------------------------------------------------------------------------- tab bar


class TabBarKey(Struct, frozen=True):
    width: int
    tabs: tuple[TabView, ...]
    active_tab_id: str | None
    mode: str
    zoomed: bool
    message: str
    indicators: str
    accent: str
    copy_position: str = ""


@lru_cache(maxsize=16)
def tab_bar(key: TabBarKey) -> tuple[str, tuple[Region, ...]]:
    width = key.width
    if width <= 0:
        return "", ()
    accent = color_sgr(key.accent)
    badge: list[Seg] = []
    if key.mode == "prefix":
        badge = [(" PREFIX ", sgr(1, 7, accent)), (" ", "")]
    elif key.mode == "navigate":
        badge = [(" NAVIGATE ", sgr(1, 7, accent)), (" ", "")]
    elif key.mode == "resize":
        hint = "h/j/k/l resize (shift: more) · esc done "
        badge = [(" RESIZE ", sgr(1, 7, accent)), (" ", ""), (hint, sgr(2))]
    elif key.mode == "copy":
        hint = "v/V select · y copy · q quit "
        badge = [(" COPY ", sgr(1, 7, accent)), (" ", "")]
        badge += [(key.copy_position + " ", sgr(1)), (hint, sgr(2))]
    right: list[Seg] = []
    if key.message:
        right += [(truncate(sanitize(key.message), max(0, width // 2)), sgr(33)), (" ", "")]
    if key.zoomed:
        right += [(" ZOOM ", sgr(1, 7, accent)), (" ", "")]
    used_fixed = sum(text_width(t) for t, _ in badge) + sum(text_width(t) for t, _ in right)
    room = width - used_fixed
    labels = [sanitize(t.label) or t.tab_id for t in key.tabs]
    longest = max((text_width(label) for label in labels), default=0)

    def entry(i: int, cap: int) -> str:
        tab = key.tabs[i]
        mark = ""
        if tab.agent_status in ("blocked", "done", "working"):
            mark = " " + glyph(tab.agent_status, "symbols")
        return f" {i + 1} {truncate(labels[i], cap)}{mark} "

    cap = longest
    while cap > 1 and sum(text_width(entry(i, cap)) for i in range(len(labels))) > room:
        cap -= 1
    entries = [entry(i, cap) for i in range(len(labels))]
    active = next((i for i, t in enumerate(key.tabs) if t.tab_id == key.active_tab_id), 0)
    first, last = 0, len(entries)
    while sum(text_width(e) for e in entries[first:last]) > room and last - first > 1:
        if active - first > last - 1 - active:
            first += 1
        else:
            last -= 1
    segs: list[Seg] = list(badge)
    regions: list[Region] = []
    x = sum(text_width(t) for t, _ in badge)
    for i in range(first, last):
        tab = key.tabs[i]
        text = entries[i]
        w = text_width(text)
        if x + w > width - sum(text_width(t) for t, _ in right):
            break
        style = sgr(1, 7) if tab.tab_id == key.active_tab_id else ""
        if tab.agent_status in ("blocked", "done") and tab.tab_id != key.active_tab_id:
            style = status_style(tab.agent_status, tab.seen)
        segs.append((text, style))
        regions.append(Region(Rect(x, 0, w, 1), Target("tab", tab.tab_id)))
        x += w
    return fit_segments(segs, width, right), tuple(regions)
