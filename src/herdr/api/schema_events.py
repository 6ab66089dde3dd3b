"""Pushed events (§3.5): lifecycle kinds with their data, and filtered stream events.

Lifecycle lines are ``{"event": kind, "data": {"type": kind, ...}, "seq": n}``; ``seq``
and the two stream bookkeeping kinds (``subscription_lagged``/``_ended``) are our
extensions, declared here next to the kinds they join.
"""

from __future__ import annotations

from typing import Final

from herdr.api import protocol
from herdr.api.schema_common import OPT_STRING, RECORDS
from herdr.api.schema_types import (
    BOOLEAN,
    OBJECT,
    STRING,
    U64,
    USIZE,
    Json,
    any_of,
    array,
    describe,
    enum,
    extend,
    integer,
    nullable,
    obj,
    opt,
    ref,
    string_map,
    tagged,
)

SEQ_FIELD: Final = opt(describe(U64, "herdr-python: event sequence number, increasing by one"))
"""The ``seq`` every logged event line carries (our extension)."""


def _workspace() -> Json:
    return obj(workspace=ref("WorkspaceInfo"))


def _ids(*keys: str) -> Json:
    return obj(**dict.fromkeys(keys, STRING))


_AGENT_STATUS_CHANGED: Final = obj(
    pane_id=STRING,
    workspace_id=STRING,
    agent_status=ref("AgentStatus"),
    agent=OPT_STRING,
    display_agent=OPT_STRING,
    title=OPT_STRING,
    state_labels=opt(string_map()),
)

# Kind → data (without ``type``, which repeats the kind).
_EVENT_DATA: Final[dict[str, Json]] = {
    "workspace_created": _workspace(),
    "workspace_updated": _workspace(),
    "workspace_metadata_updated": _workspace(),
    "workspace_closed": obj(workspace_id=STRING, workspace=opt(nullable(ref("WorkspaceInfo")))),
    "workspace_renamed": obj(workspace_id=STRING, label=STRING),
    "workspace_moved": obj(
        workspace_id=STRING, insert_index=USIZE, workspaces=array(ref("WorkspaceInfo"))
    ),
    "workspace_reordered": obj(
        workspace_ids=array(STRING),
        workspaces=array(ref("WorkspaceInfo")),
        before_workspace_id=OPT_STRING,
    ),
    "workspace_focused": _ids("workspace_id"),
    "worktree_created": obj(workspace=ref("WorkspaceInfo"), worktree=ref("WorktreeInfo")),
    "worktree_opened": obj(
        workspace=ref("WorkspaceInfo"), worktree=ref("WorktreeInfo"), already_open=BOOLEAN
    ),
    "worktree_removed": obj(
        workspace_id=STRING,
        worktree=ref("WorktreeInfo"),
        forced=BOOLEAN,
        workspace=opt(nullable(ref("WorkspaceInfo"))),
    ),
    "tab_created": obj(tab=ref("TabInfo")),
    "tab_closed": _ids("tab_id", "workspace_id"),
    "tab_renamed": _ids("tab_id", "workspace_id", "label"),
    "tab_moved": obj(
        tab_id=STRING, workspace_id=STRING, insert_index=USIZE, tabs=array(ref("TabInfo"))
    ),
    "tab_focused": _ids("tab_id", "workspace_id"),
    "pane_created": obj(pane=ref("PaneInfo")),
    "pane_closed": _ids("pane_id", "workspace_id"),
    "pane_updated": obj(pane=ref("PaneInfo")),
    "pane_focused": _ids("pane_id", "workspace_id"),
    "pane_moved": obj(
        previous_pane_id=STRING,
        previous_workspace_id=STRING,
        previous_tab_id=STRING,
        pane=ref("PaneInfo"),
        created_workspace=opt(nullable(ref("WorkspaceInfo"))),
        created_tab=opt(nullable(ref("TabInfo"))),
        closed_workspace_id=OPT_STRING,
        closed_tab_id=OPT_STRING,
    ),
    "pane_output_changed": obj(pane_id=STRING, workspace_id=STRING, revision=U64),
    "pane_exited": _ids("pane_id", "workspace_id"),
    "pane_agent_detected": obj(
        pane_id=STRING,
        workspace_id=STRING,
        agent=OPT_STRING,
        final_status=opt(nullable(ref("AgentStatus"))),
        released=opt(BOOLEAN),
    ),
    "pane_agent_status_changed": _AGENT_STATUS_CHANGED,
    "layout_updated": obj(layout=ref("PaneLayoutSnapshot")),
    # Extension: a distinct permission dialog appeared on an agent's screen.
    "agent_approval_requested": extend(RECORDS["ApprovalRecord"], workspace_id=STRING),
    # Extensions: stream bookkeeping, never logged (so they carry no ``seq``).
    protocol.EVENTS_LOST: describe(
        obj(dropped=integer(minimum=1), first_seq=U64, last_seq=U64),
        "herdr-python: events this slow subscriber lost (subscription_lagged follows)",
    ),
    protocol.SUBSCRIPTION_LAGGED: describe(
        obj(dropped=integer(minimum=1), first_seq=U64, last_seq=U64),
        "herdr-python: events were dropped for this slow subscriber",
    ),
    protocol.SUBSCRIPTION_ENDED: describe(
        obj(
            subscription=OBJECT,
            reason=enum("pane_closed", "server_stopping", protocol.REGEX_TIMEOUT),
            pane_id=OPT_STRING,
            message=OPT_STRING,
        ),
        "herdr-python: a subscription item ended (its pane closed, its regex was too slow)",
    ),
}


def envelope(kind: str, data: str) -> Json:
    """A pushed line: ``{event, data, seq}`` (``seq`` is our extension)."""
    return obj(event=ref(kind), data=ref(data), seq=SEQ_FIELD)


DEFS: Final[dict[str, Json]] = {
    "EventKind": enum(*_EVENT_DATA),
    "EventData": tagged("type", _EVENT_DATA),
    "EventEnvelope": envelope("EventKind", "EventData"),
    # Filtered subscriptions keep their dot names on the stream.
    "SubscriptionEventKind": enum(
        protocol.OUTPUT_MATCHED, protocol.AGENT_STATUS_CHANGED, protocol.SCROLL_CHANGED
    ),
    "PaneOutputMatchedEvent": obj(pane_id=STRING, matched_line=STRING, read=ref("PaneReadResult")),
    "PaneAgentStatusChangedEvent": _AGENT_STATUS_CHANGED,
    "PaneScrollChangedEvent": obj(
        pane_id=STRING, workspace_id=STRING, scroll=ref("PaneScrollInfo")
    ),
    "SubscriptionEventData": any_of(
        ref("PaneOutputMatchedEvent"),
        ref("PaneAgentStatusChangedEvent"),
        ref("PaneScrollChangedEvent"),
    ),
}
