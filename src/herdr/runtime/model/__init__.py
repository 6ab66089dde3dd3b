"""PURE session model: session -> ordered workspaces -> ordered tabs -> split tree of panes.

The server owns one `Session`. Every operation validates first and raises
`ModelError(code, message)` (spec §3.6 codes) before changing anything, so a failed
request leaves the model exactly as it was. Nothing here does I/O or touches asyncio:
terminal ids come from a caller-provided factory (or a deterministic counter), the
screen area is a plain value, and agent state is passed in by the caller when records
are built.

Identity (spec §1.2): a pane has a session-wide internal `key` (stable across moves,
also the `raw` of legacy `p_<ws>_<raw>` ids) and a public `number` inside its
workspace. Workspace numbers are global and monotonic; tab and pane numbers are per
workspace, monotonic and never reused. Moving a pane to another workspace gives it a
new number there; its previous public id stays an alias of the same pane.
The package: `entities` (what the model is made of, results, `ModelError`), `params`
(request values and layout trees, validated), `records` (the wire records, pure reads)
and `session` (the `Session` and its operations, with O(1) pane lookups). Callers
import the names below from ``herdr.runtime.model``.
"""

from __future__ import annotations

from herdr.runtime.model.entities import (
    ApplyResult,
    Closed,
    Created,
    FocusResult,
    ModelError,
    MoveResult,
    Pane,
    PaneLoc,
    PaneSeed,
    PaneSpec,
    ResizeResult,
    SwapResult,
    Tab,
    TabSeed,
    Workspace,
    WorktreeMembership,
    ZoomResult,
    cwd_label,
)
from herdr.runtime.model.params import (
    DEFAULT_RESIZE_AMOUNT,
    MAX_LAYOUT_DEPTH,
    MAX_LAYOUT_PANES,
    MAX_RESIZE_AMOUNT,
    ZoomMode,
    parse_layout,
)
from herdr.runtime.model.records import Record, StatusOf
from herdr.runtime.model.session import DEFAULT_AREA, Session

__all__ = [
    "DEFAULT_AREA",
    "DEFAULT_RESIZE_AMOUNT",
    "MAX_LAYOUT_DEPTH",
    "MAX_LAYOUT_PANES",
    "MAX_RESIZE_AMOUNT",
    "ApplyResult",
    "Closed",
    "Created",
    "FocusResult",
    "ModelError",
    "MoveResult",
    "Pane",
    "PaneLoc",
    "PaneSeed",
    "PaneSpec",
    "Record",
    "ResizeResult",
    "Session",
    "StatusOf",
    "SwapResult",
    "Tab",
    "TabSeed",
    "Workspace",
    "WorktreeMembership",
    "ZoomMode",
    "ZoomResult",
    "cwd_label",
    "parse_layout",
]
