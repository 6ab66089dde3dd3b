"""The wire protocol's vocabulary: method names, error codes, event kinds, envelopes.

Pure constants and tiny helpers with no third-party imports, so the CLI, the server
and the SDK all spell every name the same way (herdr-spec §3).
"""

from __future__ import annotations

from typing import Any, Final

from herdr import PROTOCOL_VERSION
from herdr.vocab import ErrorCode

__all__ = ["PROTOCOL_VERSION"]

SCHEMA_VERSION: Final = 1

# Transport bounds (§3.1): one request line per connection, at most 1 MiB, within 5 s.
MAX_REQUEST_LINE_BYTES: Final = 1024 * 1024
FIRST_LINE_TIMEOUT_S: Final = 5.0

# --- methods ---------------------------------------------------------------------------

METHODS: Final[tuple[str, ...]] = (
    "ping",
    "server.stop",
    "server.live_handoff",
    "server.reload_config",
    "server.agent_manifests",
    "server.reload_agent_manifests",
    "notification.show",
    "product_announcement.dismiss",
    "release_notes.dismiss",
    "command.invoke",
    "client.window_title.set",
    "client.window_title.clear",
    "client_shell.surface.set",
    "session.snapshot",
    "workspace.create",
    "workspace.list",
    "workspace.get",
    "workspace.focus",
    "workspace.rename",
    "workspace.move",
    "workspace.move_block",
    "workspace.report_metadata",
    "workspace.close",
    "worktree.list",
    "worktree.create",
    "worktree.open",
    "worktree.remove",
    "tab.create",
    "tab.list",
    "tab.get",
    "tab.focus",
    "tab.rename",
    "tab.move",
    "tab.close",
    "agent.list",
    "agent.get",
    "agent.read",
    "agent.explain",
    "agent.approval",
    "agent.approve",
    "agent.send_keys",
    "agent.rename",
    "agent.view.set",
    "agent.view.clear",
    "agent.focus",
    "agent.start",
    "agent.prompt",
    "agent.wait",
    "pane.split",
    "pane.swap",
    "pane.move",
    "pane.zoom",
    "pane.layout",
    "pane.process_info",
    "layout.export",
    "layout.apply",
    "layout.set_split_ratio",
    "pane.neighbor",
    "pane.edges",
    "pane.focus_direction",
    "pane.resize",
    "pane.scroll",
    "pane.clear",
    "pane.edit_scrollback",
    "pane.selection.read",
    "pane.copy_motion",
    "pane.copy_search",
    "pane.list",
    "pane.current",
    "pane.get",
    "pane.focus",
    "pane.input.set",
    "pane.link.activate",
    "pane.rename",
    "pane.send_text",
    "pane.send_keys",
    "pane.send_input",
    "pane.read",
    "pane.graphics.set",
    "pane.graphics.clear",
    "pane.graphics.info",
    "pane.report_agent",
    "pane.report_agent_session",
    "pane.report_metadata",
    "pane.clear_agent_authority",
    "pane.release_agent",
    "pane.close",
    "popup.close",
    "events.subscribe",
    "events.wait",
    "pane.wait_for_output",
    "integration.list",
    "integration.install",
    "integration.uninstall",
    "plugin.link",
    "plugin.list",
    "plugin.unlink",
    "plugin.enable",
    "plugin.disable",
    "plugin.action.list",
    "plugin.action.invoke",
    "plugin.log.list",
    "plugin.pane.open",
    "plugin.pane.focus",
    "plugin.pane.close",
    "web.start",  # extension: the web view
    "web.stop",
    "custom_command.run",  # extension: [[keys.command]] pane/popup
)

# Methods whose connection stays open after the request line (§3.1).
HELD_METHODS: Final = frozenset(
    {
        "events.subscribe",
        "events.wait",
        "agent.wait",
        "agent.prompt",
        "pane.wait_for_output",
        "pane.graphics.stream",
    }
)

# --- error codes (§3.6) ----------------------------------------------------------------
# Spelled once in herdr.vocab.ErrorCode; the plain-string names stay for the handlers.

INVALID_REQUEST: Final = ErrorCode.INVALID_REQUEST.value
INVALID_PARAMS: Final = ErrorCode.INVALID_PARAMS.value
WORKSPACE_NOT_FOUND: Final = ErrorCode.WORKSPACE_NOT_FOUND.value
TAB_NOT_FOUND: Final = ErrorCode.TAB_NOT_FOUND.value
PANE_NOT_FOUND: Final = ErrorCode.PANE_NOT_FOUND.value
TARGET_PANE_NOT_FOUND: Final = ErrorCode.TARGET_PANE_NOT_FOUND.value
LAYOUT_NOT_FOUND: Final = ErrorCode.LAYOUT_NOT_FOUND.value
SPLIT_NOT_FOUND: Final = ErrorCode.SPLIT_NOT_FOUND.value
WORKTREE_NOT_FOUND: Final = ErrorCode.WORKTREE_NOT_FOUND.value
AGENT_NOT_FOUND: Final = ErrorCode.AGENT_NOT_FOUND.value
AGENT_TARGET_AMBIGUOUS: Final = ErrorCode.AGENT_TARGET_AMBIGUOUS.value
AGENT_NOT_RUNNING: Final = ErrorCode.AGENT_NOT_RUNNING.value
AGENT_BLOCKED: Final = ErrorCode.AGENT_BLOCKED.value
AGENT_PROMPT_STALLED: Final = ErrorCode.AGENT_PROMPT_STALLED.value
AGENT_NOT_READY: Final = ErrorCode.AGENT_NOT_READY.value
AGENT_NOT_IDLE: Final = ErrorCode.AGENT_NOT_IDLE.value
INVALID_AGENT_NAME: Final = ErrorCode.INVALID_AGENT_NAME.value
AGENT_NAME_TAKEN: Final = ErrorCode.AGENT_NAME_TAKEN.value
UNSUPPORTED_AGENT_KIND: Final = ErrorCode.UNSUPPORTED_AGENT_KIND.value
INVALID_AGENT_TIMEOUT: Final = ErrorCode.INVALID_AGENT_TIMEOUT.value
INVALID_AGENT_ARGUMENT: Final = ErrorCode.INVALID_AGENT_ARGUMENT.value
AGENT_PANE_NOT_FOUND: Final = ErrorCode.AGENT_PANE_NOT_FOUND.value
AGENT_PANE_BUSY: Final = ErrorCode.AGENT_PANE_BUSY.value
AGENT_PANE_UNAVAILABLE: Final = ErrorCode.AGENT_PANE_UNAVAILABLE.value
AGENT_LAUNCH_PENDING: Final = ErrorCode.AGENT_LAUNCH_PENDING.value
AGENT_START_INPUT_FAILED: Final = ErrorCode.AGENT_START_INPUT_FAILED.value
TIMEOUT: Final = ErrorCode.TIMEOUT.value
INVALID_KEY: Final = ErrorCode.INVALID_KEY.value
INVALID_REGEX: Final = ErrorCode.INVALID_REGEX.value
INVALID_RATIO: Final = ErrorCode.INVALID_RATIO.value
INVALID_ENV: Final = ErrorCode.INVALID_ENV.value
INVALID_LAYOUT: Final = ErrorCode.INVALID_LAYOUT.value
INVALID_TARGET: Final = ErrorCode.INVALID_TARGET.value
INVALID_STATE_LABEL: Final = ErrorCode.INVALID_STATE_LABEL.value
CONFIRMATION_REQUIRED: Final = ErrorCode.CONFIRMATION_REQUIRED.value
FEATURE_DISABLED: Final = ErrorCode.FEATURE_DISABLED.value
STREAM_CONFLICT: Final = ErrorCode.STREAM_CONFLICT.value
POPUP_NOT_OPEN: Final = ErrorCode.POPUP_NOT_OPEN.value
UI_BUSY: Final = ErrorCode.UI_BUSY.value
PLUGIN_NOT_FOUND: Final = ErrorCode.PLUGIN_NOT_FOUND.value
PLUGIN_DISABLED: Final = ErrorCode.PLUGIN_DISABLED.value
PLATFORM_UNSUPPORTED: Final = ErrorCode.PLATFORM_UNSUPPORTED.value
PLUGIN_ACTION_NOT_FOUND: Final = ErrorCode.PLUGIN_ACTION_NOT_FOUND.value
AMBIGUOUS_PLUGIN_ACTION: Final = ErrorCode.AMBIGUOUS_PLUGIN_ACTION.value
UNSUPPORTED_EVENT_WAIT_MATCH: Final = ErrorCode.UNSUPPORTED_EVENT_WAIT_MATCH.value
SERVER_NOT_RUNNING: Final = ErrorCode.SERVER_NOT_RUNNING.value
PROTOCOL_MISMATCH: Final = ErrorCode.PROTOCOL_MISMATCH.value
INTERNAL_ERROR: Final = ErrorCode.INTERNAL_ERROR.value
PERMISSION_DENIED: Final = ErrorCode.PERMISSION_DENIED.value
TOO_MANY_CONNECTIONS: Final = ErrorCode.TOO_MANY_CONNECTIONS.value
SERVER_UNTRUSTED: Final = ErrorCode.SERVER_UNTRUSTED.value
REGEX_TIMEOUT: Final = ErrorCode.REGEX_TIMEOUT.value
INVALID_SESSION_NAME: Final = ErrorCode.INVALID_SESSION_NAME.value
SESSION_STOP_FAILED: Final = ErrorCode.SESSION_STOP_FAILED.value
SESSION_DELETE_FAILED: Final = ErrorCode.SESSION_DELETE_FAILED.value

ERROR_CODES: Final = frozenset(code.value for code in ErrorCode)
"""Every fixed code; families such as ``invalid_metadata_*`` and ``*_failed`` add more."""

# --- events (§3.5) ---------------------------------------------------------------------

# Kinds pushed on the bus; ``data.type`` repeats the kind.
EVENT_KINDS: Final[tuple[str, ...]] = (
    "workspace_created",
    "workspace_updated",
    "workspace_metadata_updated",
    "workspace_closed",
    "workspace_renamed",
    "workspace_moved",
    "workspace_reordered",
    "workspace_focused",
    "worktree_created",
    "worktree_opened",
    "worktree_removed",
    "tab_created",
    "tab_closed",
    "tab_renamed",
    "tab_moved",
    "tab_focused",
    "pane_created",
    "pane_closed",
    "pane_updated",
    "pane_focused",
    "pane_moved",
    "pane_output_changed",
    "pane_exited",
    "pane_agent_detected",
    "pane_agent_status_changed",
    "layout_updated",
    # Extension: a permission dialog appeared (structured approvals).
    "agent_approval_requested",
)

# Subscription types accepted by ``events.subscribe`` (dot names).
LIFECYCLE_SUBSCRIPTIONS: Final[tuple[str, ...]] = (
    "workspace.created",
    "workspace.updated",
    "workspace.metadata_updated",
    "workspace.renamed",
    "workspace.moved",
    "workspace.reordered",
    "workspace.closed",
    "workspace.focused",
    "worktree.created",
    "worktree.opened",
    "worktree.removed",
    "tab.created",
    "tab.closed",
    "tab.focused",
    "tab.renamed",
    "tab.moved",
    "pane.created",
    "pane.closed",
    "pane.updated",
    "pane.focused",
    "pane.moved",
    "pane.exited",
    "pane.agent_detected",
    "layout.updated",
    "agent.approval_requested",
)
OUTPUT_MATCHED: Final = "pane.output_matched"
AGENT_STATUS_CHANGED: Final = "pane.agent_status_changed"
SCROLL_CHANGED: Final = "pane.scroll_changed"
FILTERED_SUBSCRIPTIONS: Final = (OUTPUT_MATCHED, AGENT_STATUS_CHANGED, SCROLL_CHANGED)
SUBSCRIPTION_TYPES: Final = LIFECYCLE_SUBSCRIPTIONS + FILTERED_SUBSCRIPTIONS

# Internal bus kind behind ``pane.scroll_changed`` (not a lifecycle kind of the spec).
PANE_SCROLL_CHANGED: Final = "pane_scroll_changed"

# Extensions (beyond the original): stream bookkeeping events, also snake_case.
SUBSCRIPTION_LAGGED: Final = "subscription_lagged"
# The same loss under the name clients of herdr 0.9 look for; sent just before the lag line.
EVENTS_LOST: Final = "events_lost"
SUBSCRIPTION_ENDED: Final = "subscription_ended"

# Kinds that may be waited for with ``events.wait`` (the schema's EventMatch).
WAITABLE_EVENTS: Final = frozenset(
    {
        "workspace_created",
        "workspace_updated",
        "workspace_closed",
        "workspace_renamed",
        "workspace_moved",
        "workspace_focused",
        "tab_created",
        "tab_closed",
        "tab_renamed",
        "tab_moved",
        "tab_focused",
        "pane_created",
        "pane_closed",
        "pane_focused",
        "pane_moved",
        "pane_output_changed",
        "pane_exited",
        "pane_agent_detected",
        "pane_agent_status_changed",
    }
)


def pushed_kind(subscription_type: str) -> str:
    """``workspace.created`` → ``workspace_created`` (the kind pushed on the stream)."""
    return subscription_type.replace(".", "_", 1)


# --- envelopes -------------------------------------------------------------------------


def success(request_id: str, result: dict[str, Any]) -> dict[str, Any]:
    return {"id": request_id, "result": result}


def failure(request_id: str, code: str, message: str) -> dict[str, Any]:
    return {"id": request_id, "error": {"code": code, "message": message}}


def event_envelope(kind: str, data: dict[str, Any], seq: int | None) -> dict[str, Any]:
    """A pushed line; ``seq`` is our extension (absent only for stream bookkeeping)."""
    if seq is None:
        return {"event": kind, "data": data}
    return {"event": kind, "data": data, "seq": seq}
