"""Readable tables for ``pane|tab|workspace|agent list`` on a terminal.

Only when stdout is a TTY and ``--json`` was not given: scripts (pipes, files) keep the
JSON envelope byte for byte. Pure and import-free (this is on the CLI's fast path).
Focused rows are marked ``*``; ids are the full ones (the short ``p2`` works too).
"""

from __future__ import annotations

TYPE_CHECKING = False  # keep typing off the CLI path
if TYPE_CHECKING:
    from typing import Any

# method -> (result key, [(header, field)])
COLUMNS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "pane.list": (
        "panes",
        [
            ("ID", "pane_id"),
            ("TAB", "tab_id"),
            ("LABEL", "label"),
            ("AGENT", "display_agent"),
            ("STATE", "agent_status"),
            ("CWD", "cwd"),
        ],
    ),
    "tab.list": (
        "tabs",
        [("ID", "tab_id"), ("LABEL", "label"), ("PANES", "pane_count"), ("STATE", "agent_status")],
    ),
    "workspace.list": (
        "workspaces",
        [
            ("ID", "workspace_id"),
            ("LABEL", "label"),
            ("TABS", "tab_count"),
            ("PANES", "pane_count"),
            ("STATE", "agent_status"),
        ],
    ),
    "agent.list": (
        "agents",
        [
            ("PANE", "pane_id"),
            ("AGENT", "display_agent"),
            ("NAME", "name"),
            ("STATE", "agent_status"),
            ("CWD", "cwd"),
        ],
    ),
}
_EMPTY = {"pane.list": "no panes", "tab.list": "no tabs", "workspace.list": "no workspaces"}
_MAX_CELL = 60


def _cell(record: dict[str, Any], field: str, home: str) -> str:
    value = record.get(field)
    if field == "display_agent" and not value:
        value = record.get("agent")
    if value is None or value == "":
        return "-"
    if field == "agent_status" and value == "unknown" and not record.get("agent"):
        return "-"  # a plain shell: no agent state to speak of
    text = str(value)
    if field == "cwd" and home and (text == home or text.startswith(home + "/")):
        text = "~" + text[len(home) :]
    text = "".join(ch if ch.isprintable() else "?" for ch in text)
    return text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 1] + "…"


def render(method: str, result: Any, home: str = "") -> str | None:
    """The table for ``method``'s ``result``, or None when there is no table for it."""
    spec = COLUMNS.get(method)
    if spec is None or not isinstance(result, dict):
        return None
    key, columns = spec
    records = result.get(key)
    if not isinstance(records, list):
        return None
    if not records:
        return _EMPTY.get(method, "no agents") + "\n"
    headers = ["", *(h for h, _ in columns)]
    rows = [headers]
    for record in records:
        if not isinstance(record, dict):
            continue
        mark = "*" if record.get("focused") else " "
        rows.append([mark, *(_cell(record, f, home) for _, f in columns)])
    widths = [max(len(row[i]) for row in rows) for i in range(len(headers))]
    lines = []
    for row in rows:
        line = " ".join(cell.ljust(widths[i]) for i, cell in enumerate(row))
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"
