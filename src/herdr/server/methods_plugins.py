"""``plugin.*``: link/list/enable/disable plugins, invoke actions, read run logs, and open
plugin panes (spec §3.2, §9).

The registry file is the truth (the CLI changes it without a server), so every call
re-reads it, off the event loop. Runs return at once with a ``running`` log; their end
is visible in ``plugin.log.list``.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from herdr.plugins import manifest as mf
from herdr.plugins.registry import RegistryError, check_plugin_id
from herdr.runtime import model as m
from herdr.runtime import popup_geometry as pg
from herdr.server.core import ApiError, Result
from herdr.server.methods_workspaces import check_cwd, start_or_undo
from herdr.server.plugin_host import PluginHost
from herdr.server.popups import PopupBusy, PopupTooSmall
from herdr.server.wiring import Call
from herdr.vocab import ErrorCode

PLUGIN_PANE_NOT_FOUND = ErrorCode.PLUGIN_PANE_NOT_FOUND.value
PLUGIN_ENTRYPOINT_NOT_FOUND = ErrorCode.PLUGIN_ENTRYPOINT_NOT_FOUND.value
PANE_OPEN_FAILED = ErrorCode.PLUGIN_PANE_OPEN_FAILED.value


def _api_error(exc: RegistryError | mf.ManifestError) -> ApiError:
    return ApiError(exc.code, exc.message)


async def _infos(host: PluginHost, plugin_id: str | None = None) -> list[dict[str, Any]]:
    try:
        return await host.infos(plugin_id)
    except RegistryError as exc:
        raise _api_error(exc) from None


async def _one(host: PluginHost, plugin_id: str) -> dict[str, Any]:
    found = await _infos(host, plugin_id)
    if not found:
        raise ApiError(ErrorCode.PLUGIN_NOT_FOUND, f"plugin {plugin_id} is not installed")
    return found[0]


def _usable_or_raise(host: PluginHost, info: dict[str, Any], what: str, platforms: Any) -> None:
    if not info.get("enabled"):
        raise ApiError(ErrorCode.PLUGIN_DISABLED, f"plugin {info['plugin_id']} is disabled")
    effective = platforms if platforms is not None else info.get("platforms")
    if not mf.supports(effective, host.platform):
        raise ApiError(
            ErrorCode.PLATFORM_UNSUPPORTED,
            f"{what} supports {', '.join(effective or ())}; this is {host.platform}",
        )


# --- registry -------------------------------------------------------------------------


async def plugin_link(call: Call) -> Result:
    p = call.params
    registry = call.server.plugins.registry
    try:
        info = await asyncio.to_thread(
            registry.link, p["path"], enabled=bool(p.get("enabled", True)), source=p.get("source")
        )
    except (RegistryError, mf.ManifestError) as exc:
        raise _api_error(exc) from None
    return {"type": "plugin_linked", "plugin": info}


async def plugin_list(call: Call) -> Result:
    plugin_id = call.params.get("plugin_id")
    return {"type": "plugin_list", "plugins": await _infos(call.server.plugins, plugin_id)}


async def plugin_unlink(call: Call) -> Result:
    plugin_id = call.params["plugin_id"]
    try:
        removed = await asyncio.to_thread(call.server.plugins.registry.unlink, plugin_id)
    except RegistryError as exc:
        raise _api_error(exc) from None
    return {"type": "plugin_unlinked", "plugin_id": plugin_id, "removed": removed is not None}


async def _set_enabled(call: Call, enabled: bool) -> Result:
    registry = call.server.plugins.registry
    try:
        info = await asyncio.to_thread(registry.set_enabled, call.params["plugin_id"], enabled)
    except RegistryError as exc:
        raise _api_error(exc) from None
    return {"type": "plugin_enabled" if enabled else "plugin_disabled", "plugin": info}


async def plugin_enable(call: Call) -> Result:
    return await _set_enabled(call, True)


async def plugin_disable(call: Call) -> Result:
    return await _set_enabled(call, False)


# --- actions --------------------------------------------------------------------------


def _action_info(plugin_id: str, action: dict[str, Any]) -> dict[str, Any]:
    info = {"plugin_id": plugin_id, "action_id": action["id"]}
    info.update({k: v for k, v in action.items() if k != "id"})
    return info


async def plugin_action_list(call: Call) -> Result:
    infos = await _infos(call.server.plugins, call.params.get("plugin_id"))
    actions = [
        _action_info(info["plugin_id"], action)
        for info in infos
        for action in info.get("actions", ())
    ]
    actions.sort(key=lambda a: f"{a['plugin_id']}.{a['action_id']}")
    return {"type": "plugin_action_list", "actions": actions}


def find_action(
    infos: list[dict[str, Any]], plugin_id: str | None, action_id: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The (plugin, action) ``action_id`` names: bare, or qualified ``<plugin>.<action>``
    (action ids have no dots, plugin ids may: the last dot splits them)."""
    wanted_plugin, wanted_action = plugin_id, action_id
    if plugin_id is None and "." in action_id:
        wanted_plugin, _, wanted_action = action_id.rpartition(".")
    elif plugin_id is not None and action_id.startswith(plugin_id + "."):
        wanted_action = action_id[len(plugin_id) + 1 :]
    if wanted_plugin is not None:
        check_plugin_id(wanted_plugin)
        plugins = [i for i in infos if i["plugin_id"] == wanted_plugin]
        if not plugins:
            raise ApiError(ErrorCode.PLUGIN_NOT_FOUND, f"plugin {wanted_plugin} is not installed")
    else:
        plugins = infos
    matches = [
        (info, action)
        for info in plugins
        for action in info.get("actions", ())
        if action["id"] == wanted_action
    ]
    if not matches:
        raise ApiError(ErrorCode.PLUGIN_ACTION_NOT_FOUND, f"plugin action {action_id} not found")
    if len(matches) > 1:
        names = ", ".join(f"{i['plugin_id']}.{a['id']}" for i, a in matches)
        raise ApiError(
            ErrorCode.AMBIGUOUS_PLUGIN_ACTION,
            f"action {action_id} is offered by several plugins ({names}); pass --plugin",
        )
    return matches[0]


async def plugin_action_invoke(call: Call) -> Result:
    host = call.server.plugins
    p = call.params
    try:
        infos = await _infos(host)
        info, action = find_action(infos, p.get("plugin_id"), p["action_id"])
    except RegistryError as exc:
        raise _api_error(exc) from None
    qualified = f"{info['plugin_id']}.{action['id']}"
    _usable_or_raise(host, info, f"action {qualified}", action.get("platforms"))
    context = host.context(p.get("context"), call.id)
    extra = {"HERDR_PLUGIN_ACTION_ID": action["id"]}
    if context.get("clicked_url"):
        extra["HERDR_PLUGIN_CLICKED_URL"] = str(context["clicked_url"])
    if context.get("link_handler_id"):
        extra["HERDR_PLUGIN_LINK_HANDLER_ID"] = str(context["link_handler_id"])
    run = await host.run(info, list(action["command"]), context, extra, action_id=action["id"])
    return {
        "type": "plugin_action_invoked",
        "action": _action_info(info["plugin_id"], action),
        "context": context,
        "log": run.to_json(),
    }


async def plugin_log_list(call: Call) -> Result:
    plugin_id = call.params.get("plugin_id")
    if plugin_id is not None:
        try:
            check_plugin_id(plugin_id)
        except RegistryError as exc:
            raise _api_error(exc) from None
    runs = call.server.plugins.runner.logs(plugin_id, call.params.get("limit"))
    return {"type": "plugin_log_list", "logs": [r.to_json() for r in runs]}


# --- panes ----------------------------------------------------------------------------


def _pane_env(
    host: PluginHost, info: dict[str, Any], entrypoint: str, context: dict[str, Any], given: Any
) -> dict[str, str]:
    """The caller's ``env``, then the plugin's variables (which the caller cannot fake);
    the pane's other ``HERDR_*`` (socket, ids) are set by the pane host itself."""
    full = host.command_env(info, context, {})
    env = dict(given or {})
    env.update((k, v) for k, v in full.items() if k.startswith("HERDR_PLUGIN"))
    env["HERDR_PLUGIN_ENTRYPOINT_ID"] = entrypoint
    return env


def placement_params_error(placement: str, params: dict[str, Any]) -> str | None:
    """herdr 0.9's rule for which targeting params a placement takes (None: fine);
    ``width``/``height`` size popups only."""
    given = {key for key, value in params.items() if value is not None}
    if placement != "popup" and given & {"width", "height"}:
        return "width and height are only supported when placement is popup"
    if placement in ("overlay", "popup") and given & {
        "workspace_id",
        "target_pane_id",
        "direction",
    }:
        return "overlay and popup plugin panes target the active pane"
    if placement in ("split", "zoomed") and "workspace_id" in given:
        return "split and zoomed plugin panes target an existing pane; use target_pane_id"
    if placement == "tab" and given & {"target_pane_id", "direction"}:
        return "tab plugin panes support workspace_id but not target_pane_id or direction"
    return None


async def plugin_pane_open(call: Call) -> Result:
    host = call.server.plugins
    panes = call.server.panes
    p = call.params
    info = await _one(host, check_id(p["plugin_id"]))
    entry = next((e for e in info.get("panes", ()) if e["id"] == p["entrypoint"]), None)
    if entry is None:
        raise ApiError(
            PLUGIN_ENTRYPOINT_NOT_FOUND,
            f"plugin {info['plugin_id']} has no pane entrypoint {p['entrypoint']!r}",
        )
    _usable_or_raise(host, info, f"pane {info['plugin_id']}.{entry['id']}", entry.get("platforms"))
    placement = p.get("placement") or entry.get("placement") or "overlay"
    wrong = placement_params_error(str(placement), p)
    if wrong is not None:
        raise ApiError(ErrorCode.INVALID_PARAMS, wrong)
    if placement in ("overlay", "popup") and panes.session.focused_pane() is None:
        raise ApiError(
            PANE_OPEN_FAILED, f"no active workspace: a plugin {placement} opens over its pane"
        )
    if placement == "popup":
        return await _open_popup(call, info, entry)
    # Spec §9: plugin commands run in the plugin's dir; where the user works is in
    # HERDR_PLUGIN_CONTEXT_JSON (the pane it was opened from, or the focused one).
    cwd = check_cwd(p.get("cwd")) or str(info["plugin_root"])
    given = {"focused_pane_id": p["target_pane_id"]} if p.get("target_pane_id") else None
    context = host.context(given, call.id)
    if given is not None:
        context.update(_pane_context(call, p["target_pane_id"]))
    env = _pane_env(host, info, entry["id"], context, p.get("env"))
    command = _rooted(list(entry["command"]), str(info["plugin_root"]))
    # a pane opened before any run of its plugin still finds HERDR_PLUGIN_STATE_DIR
    await host.make_dirs(str(info["plugin_id"]))
    session = panes.session
    before = session.focused_ids()
    focus = bool(p.get("focus", False)) or placement in ("zoomed", "overlay")
    under = session.focused_pane() if placement == "overlay" else None
    under_zoomed = under is not None and under.tab.zoomed  # splitting unzooms
    if placement == "tab":
        created = session.create_tab(
            p.get("workspace_id"),
            cwd=cwd,
            label=entry["title"],
            focus=focus,
            command=command,
            env=env,
        )
        start_or_undo(panes, created, PANE_OPEN_FAILED)
        loc = created.loc
        panes.emit("tab_created", {"tab": dict(panes.tab_record(created.workspace, created.tab))})
    else:
        loc = session.split_pane(
            p.get("target_pane_id"),
            direction=p.get("direction") or "right",
            focus=focus,
            workspace=p.get("workspace_id"),
            cwd=cwd,
            label=entry["title"],
            command=command,
            env=env,
        )
        try:
            panes.start(loc)
        except OSError as exc:
            session.close_pane(loc.pane_id)
            if under is not None:  # the split unzoomed the tab: as it was
                session.focus_pane(under.pane_id)
                under.tab.zoomed = under_zoomed
            raise ApiError(PANE_OPEN_FAILED, f"cannot start {command[0]!r}: {exc}") from None
        if placement in ("zoomed", "overlay"):
            session.zoom(loc.pane_id, "on")
        if under is not None:  # closing the overlay gives back this focus and zoom
            host.overlays[loc.pane.terminal_id] = (under.pane_id, under_zoomed)
        panes.resize_tab(loc.workspace, loc.tab)
    record = panes.pane_record(loc)
    host.plugin_panes[loc.pane.terminal_id] = (str(info["plugin_id"]), str(entry["id"]))
    panes.emit("pane_created", {"pane": dict(record)})
    panes.emit_layout(loc.workspace, loc.tab)
    panes.emit_focus_changes(before)
    return {"type": "plugin_pane_opened", "plugin_pane": _plugin_pane(host, loc, record)}


def pane_open_precheck(params: dict[str, Any]) -> None:
    """A bad popup ``width``/``height`` is ``invalid_params`` with what a size may be,
    whatever way it is wrong (the schema alone would call some ``invalid_request``)."""
    for key in ("width", "height"):
        try:
            pg.check_size(params.get(key), key)
        except pg.PopupSizeError as exc:
            raise ApiError(ErrorCode.INVALID_PARAMS, str(exc)) from None


async def _open_popup(call: Call, info: dict[str, Any], entry: dict[str, Any]) -> Result:
    """Spec §9's popup: session-modal, outside every layout, no pane id; ``ok``."""
    host = call.server.plugins
    p = call.params
    try:
        width = pg.check_size(_given(p, entry, "width"), "width")
        height = pg.check_size(_given(p, entry, "height"), "height")
    except pg.PopupSizeError as exc:
        raise ApiError(ErrorCode.INVALID_PARAMS, str(exc)) from None
    if call.server.panes.popups.current is not None:
        raise ApiError(ErrorCode.UI_BUSY, "a popup is already open; close it first")
    cwd = check_cwd(p.get("cwd")) or str(info["plugin_root"])
    context = host.context(None, call.id)  # the focus stays on the pane underneath
    env = _pane_env(host, info, entry["id"], context, p.get("env"))
    command = _rooted(list(entry["command"]), str(info["plugin_root"]))
    await host.make_dirs(str(info["plugin_id"]))
    try:
        call.server.panes.popups.open(
            command,
            cwd=cwd,
            env=call.server.panes.managed_env(env),
            title=str(entry["title"]),
            plugin_id=str(info["plugin_id"]),
            entrypoint=str(entry["id"]),
            width=width,
            height=height,
        )
    except PopupBusy:
        raise ApiError(ErrorCode.UI_BUSY, "a popup is already open; close it first") from None
    except PopupTooSmall as exc:
        raise ApiError(PANE_OPEN_FAILED, str(exc)) from None
    except OSError as exc:
        raise ApiError(PANE_OPEN_FAILED, f"cannot start {command[0]!r}: {exc}") from None
    return {"type": "ok"}


def _given(params: dict[str, Any], entry: dict[str, Any], key: str) -> Any:
    """The request's size, else the manifest's."""
    value = params.get(key)
    return entry.get(key) if value is None else value


def _rooted(command: list[str], root: str) -> list[str]:
    """``./bin/x`` in a manifest is the plugin's own file, even when the pane runs
    elsewhere (``--cwd``): a relative program path is resolved against the plugin dir."""
    if command[0].startswith(("./", "../")):
        command[0] = os.path.normpath(os.path.join(root, command[0]))
    return command


def _pane_context(call: Call, pane_id: str) -> dict[str, Any]:
    panes = call.server.panes
    loc = panes.session.pane(pane_id)
    pane = panes.pane_record(loc)
    return {
        k: v
        for k, v in {
            "workspace_id": loc.workspace_id,
            "tab_id": loc.tab_id,
            "focused_pane_id": loc.pane_id,
            "focused_pane_cwd": pane.get("cwd"),
            "focused_pane_agent": pane.get("agent"),
            "focused_pane_status": pane.get("agent_status"),
        }.items()
        if v is not None
    }


def check_id(plugin_id: str) -> str:
    try:
        return check_plugin_id(plugin_id)
    except RegistryError as exc:
        raise _api_error(exc) from None


def _plugin_pane(host: PluginHost, loc: m.PaneLoc, record: dict[str, Any]) -> dict[str, Any]:
    plugin_id, entrypoint = host.plugin_panes[loc.pane.terminal_id]
    return {"plugin_id": plugin_id, "entrypoint": entrypoint, "pane": record}


def _plugin_loc(call: Call) -> m.PaneLoc:
    pane_id = call.params["pane_id"]
    try:
        loc = call.server.panes.session.pane(pane_id)
    except m.ModelError:
        raise ApiError(PLUGIN_PANE_NOT_FOUND, f"plugin pane {pane_id} not found") from None
    if loc.pane.terminal_id not in call.server.plugins.plugin_panes:
        raise ApiError(PLUGIN_PANE_NOT_FOUND, f"pane {pane_id} is not a plugin pane")
    return loc


async def plugin_pane_focus(call: Call) -> Result:
    panes = call.server.panes
    loc = _plugin_loc(call)
    before = panes.session.focused_ids()
    loc = panes.session.focus_pane(loc.pane_id)
    panes.emit_focus_changes(before)
    record = panes.pane_record(loc)
    return {
        "type": "plugin_pane_focused",
        "plugin_pane": _plugin_pane(call.server.plugins, loc, record),
    }


async def plugin_pane_close(call: Call) -> Result:
    panes = call.server.panes
    loc = _plugin_loc(call)
    pane_id = loc.pane_id
    ws, tab = loc.workspace, loc.tab
    before = panes.session.focused_ids()
    closed = panes.session.close_pane(pane_id)
    call.server.plugins.plugin_panes.pop(loc.pane.terminal_id, None)
    panes.emit_closed(closed)
    if ws in panes.session.workspaces and tab in ws.tabs:
        panes.resize_tab(ws, tab)
        panes.emit_layout(ws, tab)
    panes.emit_focus_changes(before)
    return {"type": "plugin_pane_closed", "pane_id": pane_id}


METHODS = {
    "plugin.link": plugin_link,
    "plugin.list": plugin_list,
    "plugin.unlink": plugin_unlink,
    "plugin.enable": plugin_enable,
    "plugin.disable": plugin_disable,
    "plugin.action.list": plugin_action_list,
    "plugin.action.invoke": plugin_action_invoke,
    "plugin.log.list": plugin_log_list,
    "plugin.pane.open": plugin_pane_open,
    "plugin.pane.focus": plugin_pane_focus,
    "plugin.pane.close": plugin_pane_close,
}
