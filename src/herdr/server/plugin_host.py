"""The server side of plugins: the registry it reads, the runs it starts, the hooks.

Event hooks listen on the event bus like any subscriber (a bounded queue drained by a
task), so a burst of events or a slow plugin never delays publishing; each matching
event starts each matching hook exactly once. ``[[startup]]`` commands run once the
socket is listening (after restore), as in herdr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from herdr.api import protocol
from herdr.plugins import manifest as mf
from herdr.plugins.registry import (
    Registry,
    RegistryError,
    plugin_config_dir,
    plugin_state_dir,
)
from herdr.plugins.runner import RunLog, Runner
from herdr.runtime import model as m
from herdr.runtime.events import EventBus, Filter, Subscriber
from herdr.vocab import HerdrError

if TYPE_CHECKING:
    from herdr.server.panes import PaneHost

log = logging.getLogger("herdr.server.plugins")

TIMEOUT_ENV = "HERDR_PLUGIN_TIMEOUT_MS"  # our extension: per-run timeout (default 120 s)

# Bus kind (snake_case) → the dot name a manifest's ``on`` uses.
_HOOK_KINDS: dict[str, str] = {protocol.pushed_kind(name): name for name in mf.HOOK_EVENTS}


class _HookFilter(Filter):
    """Hears every event a hook may listen on and passes the bus line through."""

    shared = True

    def __init__(self) -> None:
        super().__init__({"type": "plugin.hooks"})
        self.kinds = frozenset(_HOOK_KINDS)


def _timeout_s(env: Mapping[str, str]) -> float:
    raw = env.get(TIMEOUT_ENV, "")
    try:
        value = int(raw)
    except ValueError:
        return 120.0
    return max(value, 1) / 1000.0


class PluginHost:
    """Registry + runner for one server."""

    def __init__(self, panes: PaneHost, bus: EventBus, env: Mapping[str, str]) -> None:
        self.panes = panes
        self.bus = bus
        self.env = dict(env)
        self.registry = Registry.of(env)
        self.runner = Runner(timeout_s=_timeout_s(env))
        self.platform = mf.current_platform(sys.platform)
        self._sub: Subscriber | None = None
        self._pump: asyncio.Task[None] | None = None
        self._startup_task: asyncio.Task[None] | None = None
        self._wakeup = asyncio.Event()
        # terminal id → (plugin id, entrypoint) of panes opened by ``plugin.pane.open``
        self.plugin_panes: dict[str, tuple[str, str]] = {}
        # overlay terminal id → (the pane it covers, whether that tab was zoomed)
        self.overlays: dict[str, tuple[str, bool]] = {}
        panes.close_listeners.append(self._closed)

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        """Subscribe the hooks and run every enabled plugin's ``[[startup]]``."""
        sub, _info = self.bus.subscribe([_HookFilter()])
        sub.wake = self._wakeup.set
        self._sub = sub
        self._pump = asyncio.create_task(self._pump_hooks(sub), name="plugin hooks")
        self._startup_task = asyncio.create_task(self._startup(), name="plugin startup")

    async def stop(self) -> None:
        if self._sub is not None:
            self.bus.unsubscribe(self._sub)
            self._sub = None
        if self._pump is not None:
            self._pump.cancel()
            self._pump = None
        await self.runner.stop()

    # -- what is installed -----------------------------------------------------------

    async def infos(self, plugin_id: str | None = None) -> list[dict[str, Any]]:
        """InstalledPluginInfo of every (or one) registered plugin; file reads off-loop."""
        return await asyncio.to_thread(self.registry.infos, plugin_id)

    def usable(self, info: Mapping[str, Any], platforms: list[str] | None) -> bool:
        return bool(info.get("enabled")) and mf.supports(
            platforms if platforms is not None else info.get("platforms"), self.platform
        )

    # -- running -------------------------------------------------------------------

    def command_env(
        self,
        info: Mapping[str, Any],
        context: Mapping[str, Any],
        extra: Mapping[str, str],
    ) -> dict[str, str]:
        """Spec §9's environment: the server's (minus herdr's own), then herdr's."""
        plugin_id = str(info["plugin_id"])
        env = {k: v for k, v in self.env.items() if not k.startswith("HERDR_")}
        for key in ("HERDR_SESSION", "HERDR_CONFIG_PATH"):
            if key in self.env:
                env[key] = self.env[key]
        state = plugin_state_dir(self.env, plugin_id)
        env.update(
            HERDR_SOCKET_PATH=str(self.panes.info.socket_path),
            HERDR_BIN_PATH=str(getattr(self.panes, "_bin_path", "herdr")),
            HERDR_ENV="1",
            HERDR_PLUGIN_ID=plugin_id,
            HERDR_PLUGIN_ROOT=str(info["plugin_root"]),
            HERDR_PLUGIN_CONFIG_DIR=str(plugin_config_dir(self.env, plugin_id)),
            HERDR_PLUGIN_STATE_DIR=str(state),
            HERDR_PLUGIN_CONTEXT_JSON=json.dumps(dict(context), separators=(",", ":")),
        )
        if self.panes.info.session:
            env["HERDR_SESSION"] = self.panes.info.session
        for key, name in (
            ("workspace_id", "HERDR_WORKSPACE_ID"),
            ("tab_id", "HERDR_TAB_ID"),
            ("focused_pane_id", "HERDR_PANE_ID"),
        ):
            value = context.get(key)
            if isinstance(value, str) and value:
                env[name] = value
        env.update(extra)
        return env

    async def make_dirs(self, plugin_id: str) -> None:
        """The plugin's config and state dirs, which its programs may write at once."""
        await asyncio.to_thread(_make_dirs, self.env, plugin_id)

    async def run(
        self,
        info: Mapping[str, Any],
        command: list[str],
        context: Mapping[str, Any],
        extra: Mapping[str, str],
        *,
        action_id: str | None = None,
        event: str | None = None,
    ) -> RunLog:
        plugin_id = str(info["plugin_id"])
        await asyncio.to_thread(_make_dirs, self.env, plugin_id)
        return await self.runner.start(
            plugin_id,
            command,
            cwd=str(info["plugin_root"]),
            env=self.command_env(info, context, extra),
            action_id=action_id,
            event=event,
        )

    def context(self, given: Mapping[str, Any] | None, request_id: str) -> dict[str, Any]:
        """The invocation context: what the caller gave, the focus filling the rest."""
        ctx: dict[str, Any] = {"invocation_source": "api", "correlation_id": request_id}
        loc = self.panes.session.focused_pane()
        wanted = (given or {}).get("focused_pane_id")
        if isinstance(wanted, str):  # the pane the caller acts on, if it exists
            with contextlib.suppress(HerdrError):
                loc = self.panes.session.pane(wanted)
        if loc is not None:
            ws = self.panes.workspace_record(loc.workspace)
            tab = self.panes.tab_record(loc.workspace, loc.tab)
            pane = self.panes.pane_record(loc)
            ctx.update(
                workspace_id=ws.get("workspace_id"),
                workspace_label=ws.get("label"),
                tab_id=tab.get("tab_id"),
                tab_label=tab.get("label"),
                focused_pane_id=pane.get("pane_id"),
                focused_pane_cwd=pane.get("cwd"),
                focused_pane_agent=pane.get("agent"),
                focused_pane_status=pane.get("agent_status"),
            )
            cwd = ws.get("cwd") or pane.get("cwd")
            if cwd:
                ctx["workspace_cwd"] = cwd
        for key, value in (given or {}).items():
            if value is not None:
                ctx[key] = value
        return {k: v for k, v in ctx.items() if v is not None}

    # -- overlays ----------------------------------------------------------------------

    def _closed(self, closed: m.Closed) -> None:
        """A closed overlay gives back the focus and zoom it took (herdr's overlay is a
        temporary zoomed pane over the active one). Focus events are the closer's."""
        for terminal_id in closed.terminal_ids:
            self.plugin_panes.pop(terminal_id, None)
            restore = self.overlays.pop(terminal_id, None)
            if restore is None:
                continue
            pane_id, zoomed = restore
            session = self.panes.session
            try:
                loc = session.pane(pane_id)
            except m.ModelError:
                continue  # the covered pane went too
            if session.focused_ids()[1] == loc.tab_id:
                session.focus_pane(pane_id)
            else:
                loc.tab.focused = loc.pane.key
            loc.tab.zoomed = zoomed and len(loc.tab.panes) > 1
            self.panes.resize_tab(loc.workspace, loc.tab)
            self.panes.emit_layout(loc.workspace, loc.tab)

    # -- link handlers -----------------------------------------------------------------

    async def handle_link(self, url: str, pane_id: str, request_id: str) -> RunLog | None:
        """Run the first enabled ``[[link_handlers]]`` whose pattern matches ``url`` (its
        action, with the clicked URL); ``None`` when no plugin claims the link."""
        try:
            infos = await self.infos()
        except RegistryError as exc:
            log.warning("plugin link handlers skipped: %s", exc.message)
            return None
        for info in infos:
            for handler in info.get("link_handlers", ()):
                if not self.usable(info, handler.get("platforms")):
                    continue
                try:
                    if re.search(handler["pattern"], url) is None:
                        continue
                except re.error:
                    continue
                action = next(
                    (a for a in info.get("actions", ()) if a["id"] == handler["action"]), None
                )
                if action is None or not self.usable(info, action.get("platforms")):
                    continue
                given = {
                    "invocation_source": "link_handler",
                    "link_handler_id": handler["id"],
                    "clicked_url": url,
                    "focused_pane_id": pane_id,
                }
                context = self.context(given, request_id)
                extra = {
                    "HERDR_PLUGIN_ACTION_ID": action["id"],
                    "HERDR_PLUGIN_CLICKED_URL": url,
                    "HERDR_PLUGIN_LINK_HANDLER_ID": handler["id"],
                }
                command = list(action["command"])
                return await self.run(info, command, context, extra, action_id=action["id"])
        return None

    # -- hooks ---------------------------------------------------------------------

    async def _pump_hooks(self, sub: Subscriber) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            lines = self.bus.drain(sub)
            if not lines:
                continue
            # One registry read per drained batch: a burst of events costs one read.
            try:
                infos = await self.infos()
            except RegistryError as exc:
                log.warning("plugin hooks skipped: %s", exc.message)
                continue
            if not any(info.get("events") for info in infos):
                continue
            for line in lines:
                try:
                    await self._fire(line, infos)
                except Exception:  # one bad hook or registry never stops the pump
                    log.exception("plugin hook dispatch failed")

    async def _fire(self, line: bytes, infos: list[dict[str, Any]]) -> None:
        envelope = orjson.loads(line)
        name = _HOOK_KINDS.get(str(envelope.get("event")))
        if name is None:
            return
        data = envelope.get("data") or {}
        context: dict[str, Any] = {"invocation_source": "event"}
        for key in ("workspace_id", "tab_id"):
            value = _find_id(data, key)
            if value:
                context[key] = value
        pane_id = _find_id(data, "pane_id")
        if pane_id:
            context["focused_pane_id"] = pane_id
        payload = line.decode("utf-8", errors="replace").rstrip("\n")
        for info in infos:
            for hook in info.get("events", ()):
                if hook.get("on") != name or not self.usable(info, hook.get("platforms")):
                    continue
                extra = {"HERDR_PLUGIN_EVENT": name, "HERDR_PLUGIN_EVENT_JSON": payload}
                await self.run(info, list(hook["command"]), context, extra, event=name)

    async def _startup(self) -> None:
        try:
            infos = await self.infos()
        except RegistryError as exc:
            log.warning("plugin startup skipped: %s", exc.message)
            return
        for info in infos:
            for step in info.get("startup", ()):
                if not self.usable(info, step.get("platforms")):
                    continue
                context = {"invocation_source": "startup"}
                extra = {"HERDR_PLUGIN_EVENT": "startup"}
                try:
                    await self.run(info, list(step["command"]), context, extra, event="startup")
                except Exception:
                    log.exception("plugin %s: startup failed", info.get("plugin_id"))


def _find_id(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if isinstance(value, str):
        return value
    for record in ("pane", "tab", "workspace"):
        inner = data.get(record)
        if isinstance(inner, Mapping) and isinstance(inner.get(key), str):
            return str(inner[key])
    return None


def _make_dirs(env: Mapping[str, str], plugin_id: str) -> None:
    for path in (plugin_config_dir(env, plugin_id), plugin_state_dir(env, plugin_id)):
        os.makedirs(path, mode=0o700, exist_ok=True)
