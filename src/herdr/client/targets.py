"""Which agent pane a jump key goes to (PURE): the notice target, the next agent.

Both read the attach stream's state document. Sidebar order is workspace order, then
tab order within a workspace, then pane order within a tab — the order the state
document lists them in. "Most recent" is the server's ``state_change_seq`` of each agent
pane (one counter across all agents), then the client's own count of attention changes
for a server that does not send it; ties go to sidebar order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from herdr.api.attach_messages import StateDoc


def agent_panes(doc: StateDoc | None) -> list[Mapping[str, Any]]:
    """Every pane running an agent, in sidebar order, across workspaces."""
    if doc is None:
        return []
    ws_pos = {w["workspace_id"]: i for i, w in enumerate(doc.workspaces)}
    tab_pos = {t["tab_id"]: i for i, t in enumerate(doc.tabs)}
    panes = [p for p in doc.panes if p.get("agent")]
    order = {id(p): i for i, p in enumerate(panes)}
    return sorted(
        panes,
        key=lambda p: (
            ws_pos.get(p.get("workspace_id"), len(ws_pos)),
            tab_pos.get(p.get("tab_id"), len(tab_pos)),
            order[id(p)],
        ),
    )


def notification_target(doc: StateDoc | None, recency: Mapping[str, int]) -> str | None:
    """The pane that most needs the user: the latest blocked agent, else the latest
    done (finished, not yet seen) one; ``None`` when nobody waits."""
    panes = agent_panes(doc)
    for status in ("blocked", "done"):
        waiting = [p for p in panes if p.get("agent_status") == status]
        if waiting:
            # max keeps the first of equals: sidebar order breaks ties
            latest = max(
                waiting,
                key=lambda p: (_seq(p.get("state_change_seq")), recency.get(str(p["pane_id"]), 0)),
            )
            return str(latest["pane_id"])
    return None


def cycle_agent(doc: StateDoc | None, current: str | None, step: int) -> str | None:
    """The agent pane ``step`` places from ``current`` in sidebar order, wrapping; from
    a pane without an agent, the first (or, going back, the last) agent."""
    ids = [str(p["pane_id"]) for p in agent_panes(doc)]
    if not ids:
        return None
    if current in ids:
        return ids[(ids.index(current) + step) % len(ids)]
    return ids[0] if step > 0 else ids[-1]


def _seq(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
