"""Request params of every socket method (§3.2), as schema definitions.

The server validates each request's ``params`` against these before a handler runs
(:mod:`herdr.api.validate`), so a field's type here is also what the server enforces.
"""

from __future__ import annotations

from typing import Final

from herdr.api.limits import MAX_PATTERN_CHARS
from herdr.api.schema_common import (
    LABEL,
    OPT_LABEL,
    OPT_PATH,
    OPT_STRING,
    OPT_TEXT,
    TEXT,
)
from herdr.api.schema_types import (
    BOOLEAN,
    FLOAT,
    I32,
    OBJECT,
    STRING,
    U16,
    U32,
    U64,
    USIZE,
    Json,
    any_of,
    array,
    describe,
    enum,
    integer,
    nullable,
    obj,
    opt,
    ref,
    string,
    string_map,
    tagged,
)

_OPT_U64: Final = opt(nullable(U64))
_OPT_LINES: Final = opt(nullable(U32))
_FOCUS: Final = opt(BOOLEAN, default=False)
_ENV: Final = opt(string_map())
_SEQ: Final = opt(nullable(U64))
_TTL: Final = opt(nullable(integer("uint64", minimum=1, maximum=86_400_000)))
_PATTERN: Final = string(max_length=MAX_PATTERN_CHARS)
_TRUST: Final = opt(BOOLEAN)
_OPT_REVISION: Final = opt(nullable(U64))


def _target(key: str) -> Json:
    return obj(**{key: STRING})


def _optional(*keys: str) -> Json:
    return obj(**dict.fromkeys(keys, OPT_STRING))


def _read(**target: Json) -> Json:
    return obj(
        **target,
        source=ref("ReadSource"),
        lines=_OPT_LINES,
        format=opt(ref("ReadFormat"), default="text"),
        strip_ansi=opt(BOOLEAN, default=True),
    )


# --- targets and the server -----------------------------------------------------------

_BASICS: Final[dict[str, Json]] = {
    "EmptyParams": OBJECT,
    "PingParams": OBJECT,
    "WorkspaceTarget": _target("workspace_id"),
    "TabTarget": _target("tab_id"),
    "PaneTarget": _target("pane_id"),
    "AgentTarget": _target("target"),
    "AgentApproveParams": describe(
        obj(target=STRING, option_id=STRING, fingerprint=OPT_STRING),
        "herdr-python: answer the dialog the agent is blocked on with one of its options",
    ),
    "AgentExplainParams": obj(
        target=STRING,
        include_input=opt(
            describe(BOOLEAN, "extension: also return the detection input (agent capture)"),
            default=False,
        ),
    ),
    "ServerLiveHandoffParams": obj(
        expected_protocol=opt(nullable(U32)),
        expected_version=OPT_STRING,
        import_exe=OPT_STRING,
    ),
    "ToastHerdrPosition": enum("top-left", "top-right", "bottom-left", "bottom-right"),
    "NotificationShowSound": enum("none", "done", "request"),
    "NotificationShowParams": obj(
        title=TEXT,
        body=OPT_TEXT,
        position=opt(nullable(ref("ToastHerdrPosition"))),
        sound=opt(ref("NotificationShowSound")),
    ),
    "ClientWindowTitleSetParams": obj(title=TEXT),
    "IntegrationInstallParams": obj(target=ref("IntegrationTarget")),
    "IntegrationUninstallParams": obj(target=ref("IntegrationTarget")),
    "ProductAnnouncementDismissParams": obj(version=LABEL, id=LABEL),
    "ReleaseNotesDismissParams": obj(version=LABEL),
    "CommandInvokeParams": obj(
        command_id=describe(
            LABEL, "Opaque endpoint-issued command identifier from the client-shell projection."
        ),
        workspace_id=OPT_STRING,
        tab_id=OPT_STRING,
        pane_id=OPT_STRING,
        selection=opt(
            describe(
                any_of(ref("PaneSelectionReadParams"), {"type": "null"}),
                "Client-owned selection coordinates, checked against the pane content revision.",
            )
        ),
    ),
    "ClientShellSurfaceSetParams": describe(
        obj(active=BOOLEAN),
        "Updates whether the requesting client shell receives and controls pane presentation.",
    ),
}

# --- workspaces, worktrees, tabs ------------------------------------------------------

_WORKSPACES: Final[dict[str, Json]] = {
    "WorkspaceCreateParams": obj(
        cwd=OPT_PATH,
        label=OPT_LABEL,
        env=_ENV,
        focus=_FOCUS,
        source_workspace_id=opt(
            describe(
                nullable(STRING), "Workspace whose focused pane supplies the `follow` cwd policy."
            )
        ),
    ),
    "WorkspaceCloseParams": obj(workspace_id=STRING, close_group=opt(BOOLEAN)),
    "WorkspaceRenameParams": obj(workspace_id=STRING, label=LABEL),
    "WorkspaceMoveParams": obj(workspace_id=STRING, insert_index=USIZE),
    "WorkspaceMoveBlockParams": obj(workspace_ids=array(STRING), before_workspace_id=OPT_STRING),
    "WorkspaceReportMetadataParams": obj(
        workspace_id=STRING,
        source=LABEL,
        tokens=string_map(nullable(TEXT), max_keys=16),
        seq=_SEQ,
        ttl_ms=_TTL,
    ),
    "WorktreeListParams": obj(workspace_id=OPT_STRING, cwd=OPT_PATH, trust_repository=_TRUST),
    "WorktreeCreateParams": obj(
        workspace_id=OPT_STRING,
        cwd=OPT_PATH,
        branch=OPT_STRING,
        base=OPT_STRING,
        path=OPT_PATH,
        label=OPT_LABEL,
        focus=_FOCUS,
        trust_repository=_TRUST,
    ),
    "WorktreeOpenParams": obj(
        workspace_id=OPT_STRING,
        cwd=OPT_PATH,
        path=OPT_PATH,
        branch=OPT_STRING,
        label=OPT_LABEL,
        focus=_FOCUS,
        trust_repository=_TRUST,
    ),
    "WorktreeRemoveParams": obj(
        workspace_id=STRING, force=opt(BOOLEAN, default=False), trust_repository=_TRUST
    ),
    "TabCreateParams": obj(
        workspace_id=OPT_STRING, cwd=OPT_PATH, label=OPT_LABEL, env=_ENV, focus=_FOCUS
    ),
    "TabListParams": _optional("workspace_id"),
    "TabRenameParams": obj(tab_id=STRING, label=LABEL),
    "TabMoveParams": obj(tab_id=STRING, insert_index=USIZE),
}

# --- agents ---------------------------------------------------------------------------

_TOKEN_FIELD: Final = obj(token=STRING)

_AGENTS: Final[dict[str, Json]] = {
    "AgentReadParams": _read(target=STRING),
    "AgentSendKeysParams": obj(target=STRING, keys=array(STRING)),
    "AgentRenameParams": obj(target=STRING, name=OPT_LABEL),
    "AgentStartParams": obj(
        name=LABEL,
        kind=STRING,
        pane_id=STRING,
        args=opt(array(STRING)),
        timeout_ms=opt(
            describe(nullable(U64), "readiness timeout; default 30000, must be 3001..300000")
        ),
    ),
    "AgentPromptWaitOptions": obj(until=opt(array(ref("AgentStatus"))), timeout_ms=_OPT_U64),
    "AgentPromptParams": obj(
        target=STRING, text=STRING, wait=opt(nullable(ref("AgentPromptWaitOptions")))
    ),
    "AgentWaitParams": obj(
        target=STRING, until=opt(array(ref("AgentStatus"))), timeout_ms=_OPT_U64
    ),
    # Agent views: one transient sidebar projection (filter + sort) per source.
    "AgentViewSetParams": obj(
        source=LABEL,
        label=OPT_LABEL,
        filter=opt(nullable(ref("AgentViewFilter"))),
        sort=opt(array(ref("AgentViewSort"))),
    ),
    "AgentViewClearParams": _optional("source"),
    "AgentViewBuiltinField": enum(
        "status", "workspace_id", "tab_id", "pane_id", "agent", "seen", "state_change_seq"
    ),
    "AgentViewField": any_of(ref("AgentViewBuiltinField"), _TOKEN_FIELD),
    "AgentViewContext": enum("current_workspace_id", "current_tab_id"),
    "AgentViewValue": any_of(STRING, BOOLEAN, U64, obj(context=ref("AgentViewContext"))),
    "AgentViewFilter": tagged(
        "op",
        {
            "all": obj(filters=array(ref("AgentViewFilter"))),
            "any": obj(filters=array(ref("AgentViewFilter"))),
            "not": obj(filter=ref("AgentViewFilter")),
            "eq": obj(field=ref("AgentViewField"), value=ref("AgentViewValue")),
            "in": obj(field=ref("AgentViewField"), values=array(ref("AgentViewValue"))),
            "exists": obj(field=ref("AgentViewField")),
        },
    ),
    "AgentViewBuiltinSortField": enum(
        "workspace_order",
        "tab_order",
        "pane_order",
        "attention",
        "status",
        "agent",
        "seen",
        "state_change_seq",
    ),
    "AgentViewSortField": any_of(ref("AgentViewBuiltinSortField"), _TOKEN_FIELD),
    "AgentViewSortOrder": enum("asc", "desc"),
    "AgentViewSort": obj(
        field=ref("AgentViewSortField"), order=opt(ref("AgentViewSortOrder"), default="asc")
    ),
}

# --- panes and layouts ----------------------------------------------------------------

_PANES: Final[dict[str, Json]] = {
    "PaneListParams": _optional("workspace_id"),
    "PaneCurrentParams": _optional("caller_pane_id"),
    "PaneLayoutParams": _optional("pane_id"),
    "PaneEdgesParams": _optional("pane_id"),
    "PaneProcessInfoParams": _optional("pane_id"),
    "PaneRightClickTarget": enum("herdr", "pane"),
    "PaneSplitParams": obj(
        direction=ref("SplitDirection"),
        target_pane_id=OPT_STRING,
        workspace_id=OPT_STRING,
        ratio=opt(nullable(FLOAT)),
        cwd=OPT_PATH,
        env=_ENV,
        right_click=opt(ref("PaneRightClickTarget"), default="herdr"),
        focus=_FOCUS,
    ),
    "PaneRenameParams": obj(pane_id=STRING, label=OPT_LABEL),
    "PaneInputSetParams": obj(pane_id=STRING, right_click=ref("PaneRightClickTarget")),
    "PaneZoomMode": enum("toggle", "on", "off"),
    "PaneZoomParams": obj(pane_id=OPT_STRING, mode=opt(ref("PaneZoomMode"), default="toggle")),
    "PaneSwapParams": obj(
        pane_id=OPT_STRING,
        direction=opt(nullable(ref("PaneDirection"))),
        source_pane_id=OPT_STRING,
        target_pane_id=OPT_STRING,
    ),
    "PaneMoveDestination": tagged(
        "type",
        {
            "tab": obj(
                tab_id=STRING,
                split=ref("SplitDirection"),
                target_pane_id=OPT_STRING,
                ratio=opt(nullable(FLOAT)),
            ),
            "new_tab": obj(workspace_id=OPT_STRING, label=OPT_LABEL),
            "new_workspace": obj(label=OPT_LABEL, tab_label=OPT_LABEL),
        },
    ),
    "PaneMoveParams": obj(pane_id=STRING, destination=ref("PaneMoveDestination"), focus=_FOCUS),
    "PaneNeighborParams": obj(direction=ref("PaneDirection"), pane_id=OPT_STRING),
    "PaneFocusDirectionParams": obj(direction=ref("PaneDirection"), pane_id=OPT_STRING),
    "PaneResizeParams": obj(
        direction=ref("PaneDirection"), pane_id=OPT_STRING, amount=opt(nullable(FLOAT))
    ),
    "PaneScrollParams": obj(pane_id=STRING, offset_from_bottom=U64),
    "PaneTextPoint": obj(row=U32, col=U16),
    "PaneTextRange": obj(start=ref("PaneTextPoint"), end=ref("PaneTextPoint")),
    "PaneSelectionReadParams": obj(
        pane_id=STRING,
        anchor=ref("PaneTextPoint"),
        cursor=ref("PaneTextPoint"),
        content_revision=_OPT_REVISION,
    ),
    "PaneCopyMotion": enum(
        "line_end",
        "first_non_blank",
        "next_word_start",
        "previous_word_start",
        "next_word_end",
        "next_big_word_start",
        "previous_big_word_start",
        "next_big_word_end",
        "previous_paragraph",
        "next_paragraph",
    ),
    "PaneCopyMotionParams": obj(
        pane_id=STRING,
        cursor=ref("PaneTextPoint"),
        motion=ref("PaneCopyMotion"),
        content_revision=_OPT_REVISION,
    ),
    "PaneCopySearchDirection": enum("forward", "backward"),
    "PaneCopySearchParams": obj(
        pane_id=STRING,
        query=_PATTERN,
        direction=ref("PaneCopySearchDirection"),
        cursor=ref("PaneTextPoint"),
        content_revision=U64,
        previous=opt(any_of(ref("PaneTextRange"), {"type": "null"})),
    ),
    "PaneLinkActivateParams": obj(
        pane_id=STRING,
        viewport_row=U16,
        col=U16,
        offset_from_bottom=_OPT_REVISION,
        content_revision=_OPT_REVISION,
    ),
    "LayoutExportParams": _optional("tab_id", "pane_id"),
    "LayoutApplyParams": obj(
        root=ref("LayoutNode"),
        workspace_id=OPT_STRING,
        tab_id=OPT_STRING,
        tab_label=OPT_LABEL,
        focus=_FOCUS,
    ),
    "LayoutSetSplitRatioParams": obj(
        path=array(BOOLEAN), ratio=FLOAT, tab_id=OPT_STRING, pane_id=OPT_STRING
    ),
}

# --- pane input, output and reports ---------------------------------------------------

_IO: Final[dict[str, Json]] = {
    "PaneSendTextParams": obj(pane_id=STRING, text=STRING),
    "PaneSendKeysParams": obj(pane_id=STRING, keys=array(STRING)),
    "PaneSendInputParams": obj(pane_id=STRING, text=opt(STRING), keys=opt(array(STRING))),
    "PaneReadParams": _read(pane_id=STRING),
    "OutputMatch": tagged("type", {"substring": obj(value=_PATTERN), "regex": obj(value=_PATTERN)}),
    "PaneWaitForOutputParams": obj(
        pane_id=STRING,
        source=ref("ReadSource"),
        match=ref("OutputMatch"),
        lines=_OPT_LINES,
        strip_ansi=opt(BOOLEAN, default=True),
        timeout_ms=_OPT_U64,
    ),
    "PaneGraphicsFormat": enum("png", "rgb", "rgba", "bgra"),
    "PaneGraphicsPlacementParams": obj(
        grid_cols=opt(U32, default=0),
        grid_rows=opt(U32, default=0),
        viewport_col=opt(I32, default=0),
        viewport_row=opt(I32, default=0),
    ),
    "PaneGraphicsSetParams": obj(
        pane_id=STRING,
        format=ref("PaneGraphicsFormat"),
        image_width=U32,
        image_height=U32,
        layer_id=OPT_STRING,
        data_base64=opt(STRING, default=""),
        placement=opt(
            ref("PaneGraphicsPlacementParams"),
            default={"grid_cols": 0, "grid_rows": 0, "viewport_col": 0, "viewport_row": 0},
        ),
        z_index=opt(I32, default=0),
    ),
    "PaneGraphicsClearParams": obj(pane_id=STRING, layer_id=OPT_STRING),
    "PaneAgentState": enum("idle", "working", "blocked", "unknown"),
    "PaneReportAgentParams": obj(
        pane_id=STRING,
        source=LABEL,
        agent=LABEL,
        state=ref("PaneAgentState"),
        message=OPT_TEXT,
        seq=_SEQ,
        agent_session_id=OPT_TEXT,
        agent_session_path=OPT_PATH,
    ),
    "PaneReportAgentSessionParams": obj(
        pane_id=STRING,
        source=LABEL,
        agent=LABEL,
        seq=_SEQ,
        agent_session_id=OPT_TEXT,
        agent_session_path=OPT_PATH,
        session_start_source=OPT_LABEL,
    ),
    "PaneReportMetadataParams": obj(
        pane_id=STRING,
        source=LABEL,
        agent=OPT_LABEL,
        applies_to_source=OPT_LABEL,
        title=OPT_TEXT,
        clear_title=opt(BOOLEAN, default=False),
        display_agent=OPT_LABEL,
        clear_display_agent=opt(BOOLEAN, default=False),
        state_labels=opt(string_map(TEXT)),
        clear_state_labels=opt(BOOLEAN, default=False),
        tokens=opt(string_map(nullable(TEXT), max_keys=16)),
        seq=_SEQ,
        ttl_ms=_TTL,
    ),
    "PaneReleaseAgentParams": obj(pane_id=STRING, source=LABEL, agent=LABEL, seq=_SEQ),
    "PaneClearAgentAuthorityParams": obj(pane_id=STRING, source=OPT_LABEL, seq=_SEQ),
}

# --- events ---------------------------------------------------------------------------

_SINCE_SEQ_SUBSCRIBE: Final = opt(
    describe(nullable(U64), "herdr-python: first replay logged events with seq > since_seq")
)
_SINCE_SEQ_WAIT: Final = opt(
    describe(nullable(U64), "herdr-python: also match logged events with seq > since_seq")
)

_LIFECYCLE_SUBSCRIPTIONS: Final = (
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
    "agent.approval_requested",  # extension: structured approvals
)

_PANE_ID: Final = obj(pane_id=STRING)
_WORKSPACE_ID: Final = obj(workspace_id=STRING)
_TAB_ID: Final = obj(tab_id=STRING)

_EVENTS: Final[dict[str, Json]] = {
    "Subscription": tagged(
        "type",
        {
            **{name: obj() for name in _LIFECYCLE_SUBSCRIPTIONS},
            "pane.output_matched": obj(
                pane_id=STRING,
                source=ref("ReadSource"),
                match=ref("OutputMatch"),
                lines=_OPT_LINES,
                strip_ansi=opt(BOOLEAN, default=True),
            ),
            "pane.agent_status_changed": obj(
                pane_id=STRING, agent_status=opt(nullable(ref("AgentStatus")))
            ),
            "pane.scroll_changed": _PANE_ID,
            "layout.updated": obj(),
        },
    ),
    "EventsSubscribeParams": obj(
        subscriptions=array(ref("Subscription")), since_seq=_SINCE_SEQ_SUBSCRIBE
    ),
    # What ``events.wait`` can wait for: a snake_case kind plus optional filters.
    "EventMatch": tagged(
        "event",
        {
            "workspace_created": _optional("workspace_id"),
            "workspace_updated": _WORKSPACE_ID,
            "workspace_closed": _WORKSPACE_ID,
            "workspace_renamed": obj(workspace_id=STRING, label=OPT_STRING),
            "workspace_moved": _WORKSPACE_ID,
            "workspace_focused": _WORKSPACE_ID,
            "tab_created": _optional("workspace_id", "tab_id"),
            "tab_closed": _TAB_ID,
            "tab_renamed": obj(tab_id=STRING, label=OPT_STRING),
            "tab_moved": _TAB_ID,
            "tab_focused": _TAB_ID,
            "pane_created": _optional("workspace_id", "pane_id"),
            "pane_closed": _PANE_ID,
            "pane_focused": _PANE_ID,
            "pane_moved": _PANE_ID,
            "pane_output_changed": obj(pane_id=STRING, min_revision=_OPT_U64),
            "pane_exited": _PANE_ID,
            "pane_agent_detected": obj(pane_id=STRING, agent=OPT_STRING),
            "pane_agent_status_changed": obj(pane_id=STRING, agent_status=ref("AgentStatus")),
        },
    ),
    "EventsWaitParams": obj(
        match_event=ref("EventMatch"), timeout_ms=_OPT_U64, since_seq=_SINCE_SEQ_WAIT
    ),
}

# --- plugins --------------------------------------------------------------------------

_PLUGINS: Final[dict[str, Json]] = {
    "PluginLinkParams": obj(
        path=STRING,
        enabled=opt(BOOLEAN, default=True),
        source=opt(nullable(ref("PluginSourceInfo"))),
    ),
    "PluginListParams": _optional("plugin_id"),
    "PluginUnlinkParams": obj(plugin_id=STRING),
    "PluginSetEnabledParams": obj(plugin_id=STRING),
    "PluginActionListParams": _optional("plugin_id"),
    "PluginActionInvokeParams": obj(
        action_id=STRING,
        plugin_id=OPT_STRING,
        context=opt(nullable(ref("PluginInvocationContext"))),
    ),
    "PluginLogListParams": obj(plugin_id=OPT_STRING, limit=opt(nullable(USIZE))),
    "PluginPaneOpenParams": obj(
        plugin_id=STRING,
        entrypoint=STRING,
        placement=opt(nullable(ref("PluginPanePlacement"))),
        width=opt(nullable(ref("PopupSize"))),
        height=opt(nullable(ref("PopupSize"))),
        workspace_id=OPT_STRING,
        target_pane_id=OPT_STRING,
        direction=opt(nullable(ref("SplitDirection"))),
        cwd=OPT_STRING,
        env=_ENV,
        focus=_FOCUS,
    ),
    "PluginPaneFocusParams": obj(pane_id=STRING),
    "PluginPaneCloseParams": obj(pane_id=STRING),
}

# Extensions: the web view (herdr.web); every field optional, defaults in herdr.web.host.
_WEB: Final[dict[str, Json]] = {
    "WebStartParams": obj(
        port=opt(U16),
        bind=opt(string(pattern="^[^\\s]+$", max_length=255)),
        read_only=opt(BOOLEAN),
        allow_typing=opt(BOOLEAN),
        exposed=opt(BOOLEAN),
    ),
}

# Extension: a `[[keys.command]]` of type pane or popup (herdr.server.methods_custom_commands).
_CUSTOM: Final[dict[str, Json]] = {
    "CustomCommandRunParams": obj(
        type=enum("pane", "popup"),
        command=string(max_length=8192),
        pane_id=OPT_STRING,
        description=opt(nullable(string(max_length=200))),
        width=opt(nullable(ref("PopupSize"))),
        height=opt(nullable(ref("PopupSize"))),
    ),
}

DEFS: Final[dict[str, Json]] = {
    **_BASICS,
    **_WORKSPACES,
    **_AGENTS,
    **_PANES,
    **_IO,
    **_EVENTS,
    **_PLUGINS,
    **_WEB,
    **_CUSTOM,
}

# Method → its params definition, in the order of the published method list.
METHOD_PARAMS: Final[dict[str, str]] = {
    "ping": "PingParams",
    "server.stop": "EmptyParams",
    "server.live_handoff": "ServerLiveHandoffParams",
    "server.reload_config": "EmptyParams",
    "server.agent_manifests": "EmptyParams",
    "server.reload_agent_manifests": "EmptyParams",
    "notification.show": "NotificationShowParams",
    "product_announcement.dismiss": "ProductAnnouncementDismissParams",
    "release_notes.dismiss": "ReleaseNotesDismissParams",
    "command.invoke": "CommandInvokeParams",
    "client.window_title.set": "ClientWindowTitleSetParams",
    "client.window_title.clear": "EmptyParams",
    "client_shell.surface.set": "ClientShellSurfaceSetParams",
    "session.snapshot": "EmptyParams",
    "workspace.create": "WorkspaceCreateParams",
    "workspace.list": "EmptyParams",
    "workspace.get": "WorkspaceTarget",
    "workspace.focus": "WorkspaceTarget",
    "workspace.rename": "WorkspaceRenameParams",
    "workspace.move": "WorkspaceMoveParams",
    "workspace.move_block": "WorkspaceMoveBlockParams",
    "workspace.report_metadata": "WorkspaceReportMetadataParams",
    "workspace.close": "WorkspaceCloseParams",
    "worktree.list": "WorktreeListParams",
    "worktree.create": "WorktreeCreateParams",
    "worktree.open": "WorktreeOpenParams",
    "worktree.remove": "WorktreeRemoveParams",
    "tab.create": "TabCreateParams",
    "tab.list": "TabListParams",
    "tab.get": "TabTarget",
    "tab.focus": "TabTarget",
    "tab.rename": "TabRenameParams",
    "tab.move": "TabMoveParams",
    "tab.close": "TabTarget",
    "agent.list": "EmptyParams",
    "agent.get": "AgentTarget",
    "agent.read": "AgentReadParams",
    "agent.explain": "AgentExplainParams",
    "agent.approval": "AgentTarget",
    "agent.approve": "AgentApproveParams",
    "agent.send_keys": "AgentSendKeysParams",
    "agent.rename": "AgentRenameParams",
    "agent.view.set": "AgentViewSetParams",
    "agent.view.clear": "AgentViewClearParams",
    "agent.focus": "AgentTarget",
    "agent.start": "AgentStartParams",
    "agent.prompt": "AgentPromptParams",
    "agent.wait": "AgentWaitParams",
    "pane.split": "PaneSplitParams",
    "pane.swap": "PaneSwapParams",
    "pane.move": "PaneMoveParams",
    "pane.zoom": "PaneZoomParams",
    "pane.layout": "PaneLayoutParams",
    "pane.process_info": "PaneProcessInfoParams",
    "layout.export": "LayoutExportParams",
    "layout.apply": "LayoutApplyParams",
    "layout.set_split_ratio": "LayoutSetSplitRatioParams",
    "pane.neighbor": "PaneNeighborParams",
    "pane.edges": "PaneEdgesParams",
    "pane.focus_direction": "PaneFocusDirectionParams",
    "pane.resize": "PaneResizeParams",
    "pane.scroll": "PaneScrollParams",
    "pane.clear": "PaneTarget",
    "pane.edit_scrollback": "PaneTarget",
    "pane.selection.read": "PaneSelectionReadParams",
    "pane.copy_motion": "PaneCopyMotionParams",
    "pane.copy_search": "PaneCopySearchParams",
    "pane.list": "PaneListParams",
    "pane.current": "PaneCurrentParams",
    "pane.get": "PaneTarget",
    "pane.focus": "PaneTarget",
    "pane.input.set": "PaneInputSetParams",
    "pane.link.activate": "PaneLinkActivateParams",
    "pane.rename": "PaneRenameParams",
    "pane.send_text": "PaneSendTextParams",
    "pane.send_keys": "PaneSendKeysParams",
    "pane.send_input": "PaneSendInputParams",
    "pane.read": "PaneReadParams",
    "pane.graphics.set": "PaneGraphicsSetParams",
    "pane.graphics.clear": "PaneGraphicsClearParams",
    "pane.graphics.info": "PaneTarget",
    "pane.report_agent": "PaneReportAgentParams",
    "pane.report_agent_session": "PaneReportAgentSessionParams",
    "pane.report_metadata": "PaneReportMetadataParams",
    "pane.clear_agent_authority": "PaneClearAgentAuthorityParams",
    "pane.release_agent": "PaneReleaseAgentParams",
    "pane.close": "PaneTarget",
    "popup.close": "EmptyParams",
    "events.subscribe": "EventsSubscribeParams",
    "events.wait": "EventsWaitParams",
    "pane.wait_for_output": "PaneWaitForOutputParams",
    "integration.list": "EmptyParams",
    "integration.install": "IntegrationInstallParams",
    "integration.uninstall": "IntegrationUninstallParams",
    "plugin.link": "PluginLinkParams",
    "plugin.list": "PluginListParams",
    "plugin.unlink": "PluginUnlinkParams",
    "plugin.enable": "PluginSetEnabledParams",
    "plugin.disable": "PluginSetEnabledParams",
    "plugin.action.list": "PluginActionListParams",
    "plugin.action.invoke": "PluginActionInvokeParams",
    "plugin.log.list": "PluginLogListParams",
    "plugin.pane.open": "PluginPaneOpenParams",
    "plugin.pane.focus": "PluginPaneFocusParams",
    "plugin.pane.close": "PluginPaneCloseParams",
    "web.start": "WebStartParams",
    "web.stop": "EmptyParams",
    "custom_command.run": "CustomCommandRunParams",
}
