"""Success results (§3.2): ``result`` is tagged by ``type``; its records live here.

Records shared with events (``PaneInfo`` and friends) come from
:mod:`herdr.api.schema_common`; this module adds what only answers carry.
"""

from __future__ import annotations

from typing import Final

from herdr.api.schema_common import OPT_STRING
from herdr.api.schema_types import (
    ANYTHING,
    BOOLEAN,
    I32,
    STRING,
    U16,
    U32,
    U64,
    USIZE,
    Json,
    array,
    describe,
    enum,
    integer,
    nullable,
    obj,
    opt,
    ref,
    tagged,
)

_LAYOUT: Final = ref("PaneLayoutSnapshot")
_PLATFORMS: Final = opt(nullable(array(ref("PluginPlatform"))))
_COMMAND: Final = array(STRING)


# --- records only answers carry -------------------------------------------------------

_PANE_OPS: Final[dict[str, Json]] = {
    "PaneSwapReason": enum("no_neighbor", "same_pane", "not_found", "cross_tab"),
    "PaneSwapResult": obj(
        changed=BOOLEAN,
        source_pane_id=STRING,
        focused_pane_id=STRING,
        layout=_LAYOUT,
        reason=opt(nullable(ref("PaneSwapReason"))),
        target_pane_id=OPT_STRING,
    ),
    "PaneMoveReason": enum("same_tab", "zoomed_tab"),
    "PaneMoveResult": obj(
        changed=BOOLEAN,
        previous_pane_id=STRING,
        previous_workspace_id=STRING,
        previous_tab_id=STRING,
        pane=ref("PaneInfo"),
        target_layout=_LAYOUT,
        focused_pane_id=STRING,
        reason=opt(nullable(ref("PaneMoveReason"))),
        source_layout=opt(nullable(_LAYOUT)),
        created_workspace=opt(nullable(ref("WorkspaceInfo"))),
        created_tab=opt(nullable(ref("TabInfo"))),
        closed_workspace_id=OPT_STRING,
        closed_tab_id=OPT_STRING,
    ),
    "PaneZoomReason": enum("single_pane", "already_zoomed", "already_unzoomed"),
    "PaneZoomResult": obj(
        changed=BOOLEAN,
        zoom_changed=BOOLEAN,
        focus_changed=BOOLEAN,
        pane_id=STRING,
        focused_pane_id=STRING,
        zoomed=BOOLEAN,
        layout=_LAYOUT,
        reason=opt(nullable(ref("PaneZoomReason"))),
    ),
    "PaneNeighborResult": obj(
        pane_id=STRING,
        direction=ref("PaneDirection"),
        layout=_LAYOUT,
        neighbor_pane_id=OPT_STRING,
    ),
    "PaneEdgesResult": obj(
        pane_id=STRING, left=BOOLEAN, right=BOOLEAN, up=BOOLEAN, down=BOOLEAN, layout=_LAYOUT
    ),
    "PaneFocusDirectionReason": enum("no_neighbor"),
    "PaneFocusDirectionResult": obj(
        changed=BOOLEAN,
        source_pane_id=STRING,
        layout=_LAYOUT,
        focused_pane_id=OPT_STRING,
        reason=opt(nullable(ref("PaneFocusDirectionReason"))),
    ),
    "PaneResizeReason": enum("unchanged"),
    "PaneResizeResult": obj(
        changed=BOOLEAN,
        pane_id=STRING,
        focused_pane_id=STRING,
        layout=_LAYOUT,
        reason=opt(nullable(ref("PaneResizeReason"))),
    ),
    "PaneProcessInfoProcess": obj(
        pid=U32,
        name=STRING,
        argv0=OPT_STRING,
        argv=opt(nullable(array(STRING))),
        cmdline=OPT_STRING,
        cwd=OPT_STRING,
    ),
    "PaneProcessInfo": obj(
        pane_id=STRING,
        shell_pid=opt(nullable(U32)),
        foreground_process_group_id=opt(nullable(U32)),
        foreground_processes=opt(array(ref("PaneProcessInfoProcess"))),
        tty=OPT_STRING,
    ),
    "LayoutDescription": obj(
        workspace_id=STRING,
        tab_id=STRING,
        zoomed=BOOLEAN,
        focused_pane_id=STRING,
        root=ref("LayoutNode"),
    ),
}

_SERVER: Final[dict[str, Json]] = {
    "ServerCapabilities": obj(
        live_handoff=BOOLEAN,
        detached_server_daemon=opt(BOOLEAN, default=False),
        endpoint_protocol_generation=opt(
            describe(
                nullable(U32), "Stable client-owned endpoint generation supported by this server."
            )
        ),
        health_check=opt(
            describe(BOOLEAN, "Whether this server supports endpoint health probes."),
            default=False,
        ),
        surface_interest=opt(
            describe(
                BOOLEAN, "Whether this server supports explicit client-shell surface interest."
            ),
            default=False,
        ),
    ),
    "IntegrationState": enum("not_installed", "current", "outdated"),
    "IntegrationInfo": obj(
        target=ref("IntegrationTarget"),
        label=STRING,
        command=STRING,
        available=BOOLEAN,
        state=ref("IntegrationState"),
    ),
    "PersistenceHealth": describe(
        obj(
            status=enum("ok", "failing"),
            path=STRING,
            last_good_save=describe(nullable(STRING), "ISO-8601 UTC; null: never saved"),
            failing_since=describe(nullable(STRING), "ISO-8601 UTC; null while ok"),
            last_failure=nullable(STRING),
            last_error=nullable(ref("PersistenceError")),
            consecutive_failures=U32,
            unsaved_changes=BOOLEAN,
            save_in_progress=BOOLEAN,
        ),
        "Whether session.json is being saved (herdr extension; the last good file stays)",
    ),
    "PersistenceError": obj(message=STRING, errno=nullable(STRING), path=STRING),
    "SessionSnapshot": obj(
        version=STRING,
        protocol=U32,
        workspaces=array(ref("WorkspaceInfo")),
        tabs=array(ref("TabInfo")),
        panes=array(ref("PaneInfo")),
        layouts=array(_LAYOUT),
        agents=array(ref("AgentInfo")),
        focused_workspace_id=OPT_STRING,
        focused_tab_id=OPT_STRING,
        focused_pane_id=OPT_STRING,
    ),
    "WorktreeSourceInfo": obj(
        repo_key=STRING,
        repo_name=STRING,
        repo_root=STRING,
        source_checkout_path=STRING,
        source_workspace_id=OPT_STRING,
    ),
    "AgentManifestInfo": obj(
        agent=STRING,
        source=STRING,
        source_kind=STRING,
        local_override_shadowing_remote=BOOLEAN,
        active_version=OPT_STRING,
        cached_remote_version=OPT_STRING,
        remote_last_checked_unix=opt(nullable(U64)),
        remote_update_result=OPT_STRING,
        remote_update_error=OPT_STRING,
        warning=OPT_STRING,
    ),
    "NotificationShowReason": enum(
        "shown", "disabled", "rate_limited", "no_foreground_client", "busy"
    ),
    "ClientWindowTitleReason": enum("set", "cleared", "no_foreground_client"),
    "ConfigReloadStatus": enum("applied", "partial", "failed"),
    "IntegrationInstallResult": obj(messages=array(STRING)),
    "IntegrationUninstallResult": obj(messages=array(STRING)),
}

_PLUGINS: Final[dict[str, Json]] = {
    "PluginPlatform": enum("linux", "macos", "windows"),
    "PluginActionContext": enum("global", "workspace", "tab", "pane", "selection"),
    "PluginManifestAction": obj(
        id=STRING,
        title=STRING,
        command=_COMMAND,
        description=OPT_STRING,
        contexts=opt(array(ref("PluginActionContext"))),
        platforms=_PLATFORMS,
    ),
    "PluginManifestPane": obj(
        id=STRING,
        title=STRING,
        command=_COMMAND,
        description=OPT_STRING,
        placement=opt(ref("PluginPanePlacement"), default="overlay"),
        width=opt(nullable(ref("PopupSize"))),
        height=opt(nullable(ref("PopupSize"))),
        platforms=_PLATFORMS,
    ),
    "PluginManifestEventHook": obj(on=STRING, command=_COMMAND, platforms=_PLATFORMS),
    "PluginManifestLinkHandler": obj(
        id=STRING, title=STRING, pattern=STRING, action=STRING, platforms=_PLATFORMS
    ),
    "PluginManifestBuild": obj(command=_COMMAND, platforms=_PLATFORMS),
    "PluginManifestStartup": obj(command=_COMMAND, platforms=_PLATFORMS),
    "InstalledPluginInfo": obj(
        plugin_id=STRING,
        name=STRING,
        version=STRING,
        manifest_path=STRING,
        plugin_root=STRING,
        enabled=BOOLEAN,
        description=OPT_STRING,
        min_herdr_version=opt(STRING, default=""),
        platforms=_PLATFORMS,
        source=opt(ref("PluginSourceInfo"), default={"kind": "local"}),
        actions=opt(array(ref("PluginManifestAction"))),
        panes=opt(array(ref("PluginManifestPane"))),
        events=opt(array(ref("PluginManifestEventHook"))),
        link_handlers=opt(array(ref("PluginManifestLinkHandler"))),
        build=opt(array(ref("PluginManifestBuild"))),
        startup=opt(array(ref("PluginManifestStartup"))),
        warnings=opt(describe(array(STRING), "problems found while loading the manifest")),
    ),
    "PluginActionInfo": obj(
        plugin_id=STRING,
        action_id=STRING,
        title=STRING,
        command=_COMMAND,
        description=OPT_STRING,
        contexts=opt(array(ref("PluginActionContext"))),
        platforms=_PLATFORMS,
    ),
    "PluginCommandStatus": enum("running", "succeeded", "failed"),
    "PluginCommandLogInfo": obj(
        log_id=STRING,
        plugin_id=STRING,
        command=_COMMAND,
        status=ref("PluginCommandStatus"),
        started_unix_ms=U64,
        action_id=OPT_STRING,
        event=OPT_STRING,
        finished_unix_ms=opt(nullable(U64)),
        exit_code=opt(nullable(I32)),
        stdout=OPT_STRING,
        stderr=OPT_STRING,
        error=OPT_STRING,
    ),
    "PluginPaneInfo": obj(plugin_id=STRING, entrypoint=STRING, pane=ref("PaneInfo")),
}

# --- the result union -----------------------------------------------------------------

_WORKSPACE_OPENED: Final = obj(
    workspace=ref("WorkspaceInfo"), tab=ref("TabInfo"), root_pane=ref("PaneInfo")
)

_RESULTS: Final[dict[str, Json]] = {
    "pong": obj(
        version=STRING,
        protocol=U32,
        capabilities=opt(nullable(ref("ServerCapabilities")), default=None),
        persistence=opt(nullable(ref("PersistenceHealth")), default=None),
    ),
    "session_snapshot": obj(snapshot=ref("SessionSnapshot")),
    "workspace_info": obj(workspace=ref("WorkspaceInfo")),
    "workspace_created": _WORKSPACE_OPENED,
    "workspace_list": obj(workspaces=array(ref("WorkspaceInfo"))),
    "worktree_list": obj(source=ref("WorktreeSourceInfo"), worktrees=array(ref("WorktreeInfo"))),
    "worktree_created": obj(
        workspace=ref("WorkspaceInfo"),
        tab=ref("TabInfo"),
        root_pane=ref("PaneInfo"),
        worktree=ref("WorktreeInfo"),
    ),
    "worktree_opened": obj(
        workspace=ref("WorkspaceInfo"),
        tab=ref("TabInfo"),
        root_pane=ref("PaneInfo"),
        worktree=ref("WorktreeInfo"),
        already_open=BOOLEAN,
    ),
    "worktree_removed": obj(workspace_id=STRING, path=STRING, forced=BOOLEAN),
    "tab_info": obj(tab=ref("TabInfo")),
    "tab_created": obj(tab=ref("TabInfo"), root_pane=ref("PaneInfo")),
    "tab_list": obj(tabs=array(ref("TabInfo"))),
    "agent_info": obj(agent=ref("AgentInfo")),
    "agent_started": obj(agent=ref("AgentInfo"), argv=array(STRING)),
    "agent_prompted": obj(agent=ref("AgentInfo")),
    "agent_list": obj(agents=array(ref("AgentInfo"))),
    "agent_view": obj(active=BOOLEAN, source=OPT_STRING, label=OPT_STRING),
    "pane_info": obj(pane=ref("PaneInfo")),
    "pane_list": obj(panes=array(ref("PaneInfo"))),
    "pane_current": obj(pane=ref("PaneInfo")),
    "pane_swap": obj(swap=ref("PaneSwapResult")),
    "pane_move": obj(move_result=ref("PaneMoveResult")),
    "pane_zoom": obj(zoom=ref("PaneZoomResult")),
    "pane_layout": obj(layout=_LAYOUT),
    "pane_process_info": obj(process_info=ref("PaneProcessInfo")),
    "layout_export": obj(layout=ref("LayoutDescription")),
    "layout_apply": obj(layout=ref("LayoutDescription")),
    "layout_split_ratio_set": obj(layout=ref("LayoutDescription")),
    "pane_neighbor": obj(neighbor=ref("PaneNeighborResult")),
    "pane_edges": obj(edges=ref("PaneEdgesResult")),
    "pane_focus_direction": obj(focus=ref("PaneFocusDirectionResult")),
    "pane_resize": obj(resize=ref("PaneResizeResult")),
    "pane_read": obj(read=ref("PaneReadResult")),
    "pane_graphics_frame_ack": obj(sequence=U64, revision=U64),
    "pane_graphics_info": obj(
        cell_width_px=U32,
        cell_height_px=U32,
        pane_visible=describe(BOOLEAN, "whether the pane is on screen in a client now"),
        max_layers_per_pane=opt(USIZE, default=0),
        pixel_mouse=opt(BOOLEAN, default=False),
        file_frame_transport=OPT_STRING,
        file_frame_directory=OPT_STRING,
        file_frame_formats=opt(array(STRING)),
        file_frame_max_bytes=opt(nullable(USIZE)),
        file_frame_direct_max_bytes=opt(nullable(USIZE)),
        file_frame_damage=opt(
            describe(BOOLEAN, "whether file frames may carry damaged regions only"),
            default=False,
        ),
    ),
    "agent_explain": obj(explain=ANYTHING),
    # Extensions: structured approvals.
    "agent_approval": obj(approval=nullable(ref("ApprovalRecord"))),
    "agent_approved": obj(sent=BOOLEAN, option=ref("ApprovalOption")),
    # Extensions: where the stream starts and what ``since_seq`` replayed.
    "subscription_started": obj(
        last_seq=opt(U64),
        replayed=opt(integer(minimum=0)),
        gap=opt(BOOLEAN),
        oldest_seq=opt(nullable(U64)),
    ),
    "wait_matched": obj(event=ref("EventEnvelope")),
    "output_matched": obj(
        pane_id=STRING, revision=U64, read=ref("PaneReadResult"), matched_line=OPT_STRING
    ),
    "notification_show": obj(shown=BOOLEAN, reason=ref("NotificationShowReason")),
    "client_window_title": obj(changed=BOOLEAN, reason=ref("ClientWindowTitleReason")),
    "integration_install": obj(
        target=ref("IntegrationTarget"), details=ref("IntegrationInstallResult")
    ),
    "integration_uninstall": obj(
        target=ref("IntegrationTarget"), details=ref("IntegrationUninstallResult")
    ),
    "agent_manifest_reload": obj(
        manifests=array(ref("AgentManifestInfo")),
        # ours: the agents whose rules this reload changed, and the panes it restarted
        updated=opt(
            array(obj(agent=STRING, active_version=nullable(STRING), removed=BOOLEAN)),
        ),
        restarted_pane_ids=opt(array(STRING)),
    ),
    "agent_manifest_status": obj(
        manifests=array(ref("AgentManifestInfo")),
        last_check_unix=opt(nullable(U64)),
        last_result=OPT_STRING,
        user_kind_errors=opt(array(STRING)),  # ours: path:line diagnostics of user kinds
    ),
    "plugin_linked": obj(plugin=ref("InstalledPluginInfo")),
    "plugin_list": obj(plugins=array(ref("InstalledPluginInfo"))),
    "plugin_unlinked": obj(plugin_id=STRING, removed=BOOLEAN),
    "plugin_enabled": obj(plugin=ref("InstalledPluginInfo")),
    "plugin_disabled": obj(plugin=ref("InstalledPluginInfo")),
    "plugin_action_list": obj(actions=array(ref("PluginActionInfo"))),
    "plugin_action_invoked": obj(
        action=ref("PluginActionInfo"),
        context=ref("PluginInvocationContext"),
        log=ref("PluginCommandLogInfo"),
    ),
    "plugin_log_list": obj(logs=array(ref("PluginCommandLogInfo"))),
    "plugin_pane_opened": obj(plugin_pane=ref("PluginPaneInfo")),
    "plugin_pane_focused": obj(plugin_pane=ref("PluginPaneInfo")),
    "plugin_pane_closed": obj(pane_id=STRING),
    "config_reload": obj(status=ref("ConfigReloadStatus"), diagnostics=array(STRING)),
    "pane_selection": obj(pane_id=STRING, text=STRING),
    "pane_copy_motion": obj(pane_id=STRING, cursor=ref("PaneTextPoint"), content_revision=U64),
    "pane_copy_search": obj(
        pane_id=STRING,
        content_revision=U64,
        matches=array(ref("PaneTextRange")),
        total=U64,
        current=opt(nullable(U32)),
        current_global=opt(nullable(U64)),
    ),
    "integration_list": obj(integrations=array(ref("IntegrationInfo"))),
    "pane_link_activated": obj(handled=BOOLEAN, url=OPT_STRING),
    "client_shell_surface_set": describe(
        obj(active=BOOLEAN, projection_revision=U64),
        "Acknowledgement for the client-shell surface interest lease.",
    ),
    "ok": obj(),
    # Extensions: the web view (herdr.web).
    "web_started": obj(
        url=STRING,
        bind=STRING,
        port=U16,
        read_only=BOOLEAN,
        allow_typing=BOOLEAN,
        already_running=BOOLEAN,
    ),
    "web_stopped": obj(stopped=BOOLEAN),
}

DEFS: Final[dict[str, Json]] = {
    **_PANE_OPS,
    **_SERVER,
    **_PLUGINS,
    "ResponseResult": tagged("type", _RESULTS),
}
