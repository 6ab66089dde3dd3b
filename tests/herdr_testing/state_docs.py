"""State documents for client tests: what the server's attach stream would say."""

from __future__ import annotations

from herdr.api.attach_messages import StateDoc, decode_state


def one_pane_state(cwd: str = "/tmp") -> StateDoc:
    """Workspace w1, tab w1:t1, one focused pane w1:p1 in ``cwd`` (a 50x20 area)."""
    return decode_state(
        {
            "workspaces": [
                {
                    "workspace_id": "w1",
                    "label": "w",
                    "agent_status": "unknown",
                    "active_tab_id": "w1:t1",
                }
            ],
            "tabs": [
                {"tab_id": "w1:t1", "workspace_id": "w1", "label": "1", "agent_status": "unknown"}
            ],
            "panes": [{"pane_id": "w1:p1", "workspace_id": "w1", "tab_id": "w1:t1", "cwd": cwd}],
            "layouts": {
                "w1:t1": {
                    "zoomed": False,
                    "focused_pane_id": "w1:p1",
                    "panes": [["w1:p1", 0, 0, 50, 20]],
                }
            },
            "focused": ["w1", "w1:t1", "w1:p1"],
            "area": [50, 20],
        }
    )
