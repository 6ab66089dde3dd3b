"""The method table: which handler answers which socket method."""

from __future__ import annotations

from herdr.server import (
    methods_agents,
    methods_approvals,
    methods_attach,
    methods_client,
    methods_commands,
    methods_copy,
    methods_custom_commands,
    methods_events,
    methods_integrations,
    methods_io,
    methods_panes,
    methods_plugins,
    methods_reports,
    methods_scrollback,
    methods_server,
    methods_web,
    methods_workspaces,
    methods_worktrees,
)
from herdr.server.dispatch import Method


def build_table() -> dict[str, Method]:
    ws = methods_workspaces
    panes = methods_panes
    reports = methods_reports
    table: dict[str, Method] = {
        "ping": Method(methods_server.ping),
        "server.stop": Method(methods_server.server_stop),
        "server.live_handoff": Method(methods_server.server_live_handoff),
        "server.reload_config": Method(methods_server.server_reload_config),
        "events.subscribe": Method(methods_events.subscribe),
        "events.wait": Method(methods_events.wait, precheck=methods_events.wait_precheck),
        "session.snapshot": Method(methods_agents.snapshot_with_agents(ws.session_snapshot)),
        "workspace.list": Method(ws.workspace_list),
        "workspace.create": Method(ws.workspace_create),
        "workspace.get": Method(ws.workspace_get),
        "workspace.focus": Method(methods_client.views_follow(ws.workspace_focus)),
        "workspace.rename": Method(ws.workspace_rename),
        "workspace.close": Method(ws.workspace_close),
        "workspace.move": Method(ws.workspace_move),
        "worktree.list": Method(methods_worktrees.worktree_list),
        "worktree.create": Method(methods_worktrees.worktree_create),
        "worktree.open": Method(methods_worktrees.worktree_open),
        "worktree.remove": Method(methods_worktrees.worktree_remove),
        "tab.list": Method(ws.tab_list),
        "tab.create": Method(ws.tab_create),
        "tab.get": Method(ws.tab_get),
        "tab.focus": Method(
            methods_client.views_follow(methods_agents.tab_focus_marks_seen(ws.tab_focus))
        ),
        "tab.rename": Method(ws.tab_rename),
        "tab.close": Method(ws.tab_close),
        "tab.move": Method(ws.tab_move),
        "pane.list": Method(panes.pane_list),
        "pane.get": Method(panes.pane_get),
        "pane.current": Method(panes.pane_current),
        "pane.split": Method(methods_client.split_routes_right_click(panes.pane_split)),
        "pane.close": Method(panes.pane_close),
        "pane.rename": Method(panes.pane_rename),
        "pane.focus": Method(
            methods_client.views_follow(methods_agents.pane_focus_marks_seen(panes.pane_focus))
        ),
        "pane.layout": Method(panes.pane_layout),
        "pane.zoom": Method(panes.pane_zoom),
        "pane.swap": Method(panes.pane_swap),
        "pane.resize": Method(panes.pane_resize),
        "pane.neighbor": Method(panes.pane_neighbor),
        "pane.edges": Method(panes.pane_edges),
        "pane.focus_direction": Method(panes.pane_focus_direction),
        "pane.move": Method(methods_agents.pane_move_ends_waits(panes.pane_move)),
        "pane.process_info": Method(panes.pane_process_info),
        "pane.link.activate": Method(methods_scrollback.pane_link_activate),
        "pane.edit_scrollback": Method(methods_scrollback.pane_edit_scrollback),
        "pane.clear": Method(methods_scrollback.pane_clear),
        "layout.export": Method(panes.layout_export),
        "layout.apply": Method(panes.layout_apply),
        "layout.set_split_ratio": Method(panes.layout_set_split_ratio),
        "pane.send_text": Method(methods_io.pane_send_text),
        "pane.send_keys": Method(methods_io.pane_send_keys),
        "pane.send_input": Method(methods_io.pane_send_input),
        "pane.read": Method(methods_io.pane_read),
        "pane.wait_for_output": Method(methods_io.pane_wait_for_output),
        **{name: Method(handler) for name, handler in methods_agents.AGENT_METHODS.items()},
        "agent.focus": Method(methods_client.views_follow(methods_agents.agent_focus)),
        **{name: Method(handler) for name, handler in methods_copy.COPY_METHODS.items()},
        **{name: Method(handler) for name, handler in methods_approvals.METHODS.items()},
        "pane.report_agent": Method(reports.pane_report_agent),
        "pane.report_agent_session": Method(reports.pane_report_agent_session),
        "pane.release_agent": Method(reports.pane_release_agent),
        "pane.clear_agent_authority": Method(reports.pane_clear_agent_authority),
        "pane.report_metadata": Method(
            reports.pane_report_metadata, precheck=reports.metadata_precheck
        ),
        "workspace.report_metadata": Method(
            reports.workspace_report_metadata, precheck=reports.metadata_precheck
        ),
        "integration.list": Method(methods_integrations.integration_list),
        "integration.install": Method(methods_integrations.integration_install),
        "integration.uninstall": Method(methods_integrations.integration_uninstall),
        **{name: Method(handler) for name, handler in methods_client.METHODS.items()},
        **{name: Method(handler) for name, handler in methods_plugins.METHODS.items()},
        "plugin.pane.open": Method(
            methods_plugins.plugin_pane_open, precheck=methods_plugins.pane_open_precheck
        ),
        **{name: Method(handler) for name, handler in methods_web.METHODS.items()},
        **{name: Method(handler) for name, handler in methods_custom_commands.METHODS.items()},
        "agent.view.set": Method(
            methods_client.agent_view_set, precheck=methods_client.agent_view_precheck
        ),
        methods_attach.ATTACH_METHOD: Method(
            methods_attach.client_attach, precheck=methods_attach.attach_precheck
        ),
    }
    table.update(methods_commands.command_methods(table))
    return table
