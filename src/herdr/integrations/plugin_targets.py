"""Targets whose integration is a plugin or extension file (pi, omp, kilo, hermes,
opencode)."""

from __future__ import annotations

import contextlib
import os
import posixpath
import shutil
from collections.abc import Mapping

from herdr.integrations import files as fs
from herdr.integrations import hook_config, markers, plugin_list, yaml_edit
from herdr.integrations import json_edit as je
from herdr.integrations.base import (
    NEW_JSON,
    Edit,
    Integration,
    Paths,
    apply_edit,
    asset,
    parse_error,
)
from herdr.integrations.files import IntegrationError
from herdr.integrations.targets import BY_NAME, Target, config_dir


class PiIntegration(Integration):
    """A TypeScript extension in ``<agent dir>/extensions``; no config edit."""

    FILE = "herdr-agent-state.ts"

    def __init__(self, target: Target, file: str = FILE) -> None:
        super().__init__(target)
        self.file = file

    def paths(self, env: Mapping[str, str]) -> Paths:
        directory = posixpath.join(config_dir(self.target, env), "extensions")
        return Paths(directory, posixpath.join(directory, self.file))

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        agent_dir = posixpath.dirname(p.directory)
        fs.require_own_dir(agent_dir, self.missing(p.directory))
        fs.make_dir(p.directory)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        fs.write_owned(p.status_file, asset(self.target.name, self.file), 0o644)
        return [f"installed {self.target.label} integration to {p.status_file}"]

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        text = fs.read_text(p.status_file) if fs.is_regular(p.status_file) else None
        if text is not None and f"HERDR_INTEGRATION_ID={self.target.name}" not in text:
            return [f"left {p.status_file}: it is not herdr's {self.target.label} extension"]
        if fs.remove(p.status_file):
            return [f"removed {self.target.label} integration extension at {p.status_file}"]
        return [f"no {self.target.label} integration extension found at {p.status_file}"]


class OmpIntegration(PiIntegration):
    """Like Pi, in omp's own agent dir; a herdr Pi extension left there is removed."""

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        pi_dir = PiIntegration(BY_NAME["pi"]).paths(env).directory
        if posixpath.normpath(pi_dir) == posixpath.normpath(p.directory):
            raise IntegrationError(
                f"Pi and OMP resolve to the same extension directory at {p.directory}; "
                "configure separate agent directories before installing OMP"
            )
        messages = super().install(env)
        legacy = posixpath.join(p.directory, PiIntegration.FILE)
        text = fs.read_text(legacy) if fs.is_regular(legacy) else None
        if text is not None and "HERDR_INTEGRATION_ID=pi" in text and fs.remove(legacy):
            messages.append(
                f"removed legacy pi integration from omp extension directory at {legacy}"
            )
        return messages


class KiloIntegration(Integration):
    """One JS plugin in ``~/.config/kilo/plugin``; no config edit."""

    FILE = "plugin/herdr-agent-state.js"

    def paths(self, env: Mapping[str, str]) -> Paths:
        directory = config_dir(self.target, env)
        return Paths(directory, posixpath.join(directory, self.FILE))

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset("kilo", "herdr-agent-state.js"), 0o644)
        return [f"installed kilo integration plugin to {p.status_file}"]

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        if fs.remove(p.status_file):
            return [f"removed kilo integration plugin at {p.status_file}"]
        return [f"no kilo integration plugin found at {p.status_file}"]


class HermesIntegration(Integration):
    """A Python plugin dir plus its name in ``config.yaml``'s ``plugins.enabled``."""

    DIR = "plugins/herdr-agent-state"

    def paths(self, env: Mapping[str, str]) -> Paths:
        directory = config_dir(self.target, env)
        return Paths(directory, posixpath.join(directory, self.DIR, "__init__.py"))

    def _config(self, directory: str) -> tuple[str, str | None]:
        path = posixpath.join(directory, "config.yaml")
        return path, fs.read_text(path)

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        config, before = self._config(p.directory)
        try:
            after = yaml_edit.enable(before or "")
        except yaml_edit.YamlEditError as exc:
            where = f"{config}:{exc.line}" if exc.line else config
            raise IntegrationError(f"failed to parse {where}: {exc}") from None
        plugin_dir = posixpath.dirname(p.status_file)
        fs.make_dir(plugin_dir)
        fs.write_owned(
            posixpath.join(plugin_dir, "plugin.yaml"), asset("hermes", "plugin.yaml"), 0o644
        )
        fs.write_owned(p.status_file, asset("hermes", "__init__.py"), 0o644)
        apply_edit(Edit(config, before, after))
        return [
            f"installed hermes integration plugin to {plugin_dir}",
            f"enabled hermes plugin in {config}",
            "restart hermes to load the plugin",
        ]

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        config, before = self._config(p.directory)
        plugin_dir = posixpath.dirname(p.status_file)
        removed = [fs.remove(posixpath.join(plugin_dir, n)) for n in ("plugin.yaml", "__init__.py")]
        cache = posixpath.join(plugin_dir, "__pycache__")
        if posixpath.isdir(cache):
            shutil.rmtree(cache, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.rmdir(plugin_dir)
        messages = [
            f"removed hermes integration plugin at {plugin_dir}"
            if any(removed)
            else f"no hermes integration plugin found at {plugin_dir}"
        ]
        if before is not None:
            try:
                after: str | None = yaml_edit.disable(before)
            except yaml_edit.YamlEditError as exc:
                where = f"{config}:{exc.line}" if exc.line else config
                raise IntegrationError(f"failed to parse {where}: {exc}") from None
            if after == "" and before != "":
                after = None
            edit = Edit(config, before, after)
            apply_edit(edit)
            if edit.changed:
                messages.append(f"disabled hermes plugin in {config}")
                return messages
        messages.append(f"no herdr hermes plugin entry found in {config}")
        return messages


class OpenCodeIntegration(Integration):
    """A server plugin, a TUI plugin and the TUI plugin's entry in ``tui.jsonc``."""

    SERVER = "plugins/herdr-agent-state.js"
    TUI = "herdr-tui-session.js"
    SPEC = "./herdr-tui-session.js"

    def paths(self, env: Mapping[str, str]) -> Paths:
        directory = config_dir(self.target, env)
        return Paths(directory, posixpath.join(directory, self.SERVER))

    def _tui_config(self, directory: str) -> tuple[str, str | None]:
        path = posixpath.join(directory, "tui.jsonc")
        return path, fs.read_text(path)

    def config_ok(self, env: Mapping[str, str]) -> bool:
        directory = self.paths(env).directory
        tui = posixpath.join(directory, self.TUI)
        try:
            text = fs.read_text(tui) if fs.is_regular(tui) else None
            version = markers.version_of(text) if text is not None else None
            if version is None or version < self.target.version:
                return False
            _, config = self._tui_config(directory)
            return config is not None and plugin_list.has(config, self.SPEC)
        except (IntegrationError, je.JsonEditError, hook_config.ConfigShapeError):
            return False

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        config, before = self._tui_config(p.directory)
        try:
            after = plugin_list.add(NEW_JSON if before is None else before, self.SPEC)
        except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
            raise parse_error(config, exc) from None
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset("opencode", "herdr-agent-state.js"), 0o644)
        tui = posixpath.join(p.directory, self.TUI)
        fs.write_owned(tui, asset("opencode", self.TUI), 0o644)
        apply_edit(Edit(config, before, after))
        return [
            f"installed opencode integration plugin to {p.status_file}",
            f"installed opencode tui integration plugin to {tui}",
            f"ensured opencode tui plugin config at {config}",
        ]

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        messages: list[str] = []
        errors: list[str] = []
        config, before = self._tui_config(p.directory)
        edit: Edit | None = None
        if before is not None:
            try:
                after: str | None = plugin_list.remove(before, self.SPEC)
            except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
                errors.append(str(parse_error(config, exc)))
            else:
                if after == NEW_JSON and before != NEW_JSON:
                    after = None
                edit = Edit(config, before, after)
        tui = posixpath.join(p.directory, self.TUI)
        for path, what in ((p.status_file, "plugin"), (tui, "tui plugin")):
            if fs.remove(path):
                messages.append(f"removed opencode integration {what} at {path}")
            else:
                messages.append(f"no opencode integration {what} found at {path}")
        if edit is not None and edit.changed:
            apply_edit(edit)
            messages.append(f"removed herdr opencode tui plugin entry from {config}")
        if errors:
            raise IntegrationError("; ".join(errors))
        return messages
