"""Install, uninstall and inspect herdr's integrations in agents' config directories.

Every target computes all of its edits first (an invalid user file stops the install
before anything is written), then writes our own files, then the agent's config. Each
returns the lines the CLI prints and the socket API returns as ``details.messages``.
Used in-process by the CLI (no server needed) and by the server's ``integration.*``
methods (the server's environment then decides the paths).
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.resources import files as resources

from herdr.integrations import files as fs
from herdr.integrations import hook_config, markers, plugin_list, toml_edit
from herdr.integrations import json_edit as je
from herdr.integrations.files import IntegrationError
from herdr.integrations.targets import TARGETS, NoHomeError, Target, config_dir, hook_command

NEW_JSON = "{}\n"
ACTIONS = ("session", "working", "blocked", "idle", "release")
_LOCK = threading.Lock()  # one install at a time per process: no lost update of a file


def asset(target: str, name: str) -> str:
    return resources("herdr.integrations").joinpath(target, name).read_text(encoding="utf-8")


def _parse_error(path: str, exc: Exception) -> IntegrationError:
    if isinstance(exc, je.JsonEditError | toml_edit.TomlEditError):
        line = getattr(exc, "line", 0)
        where = f"{path}:{line}" if line else path
        return IntegrationError(f"failed to parse {where}: {exc}")
    return IntegrationError(f"{path} {exc}")


def _owned_commands(script: str) -> frozenset[str]:
    return frozenset({hook_command(script, None), *(hook_command(script, a) for a in ACTIONS)})


def _nested_plan(script: str, events: tuple[str, ...], matcher: str | None) -> hook_config.HookPlan:
    entry = {"type": "command", "command": hook_command(script, "session"), "timeout": 10}
    group: dict[str, object] = {"matcher": matcher} if matcher is not None else {}
    group["hooks"] = [entry]
    return hook_config.HookPlan({e: dict(group) for e in events}, _owned_commands(script))


@dataclass
class _Edit:
    """A planned change of one config file: the new text (None: delete the file)."""

    path: str
    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _apply(edit: _Edit) -> None:
    if not edit.changed:
        return
    if edit.after is None:
        fs.remove(edit.path)
    else:
        fs.write_text(edit.path, edit.after)


def _json_install(path: str, plan: hook_config.HookPlan) -> _Edit:
    before = fs.read_text(path)
    try:
        after = hook_config.install(NEW_JSON if before is None else before, plan)
    except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
        raise _parse_error(path, exc) from None
    return _Edit(path, before, after)


def _json_uninstall(path: str, plan: hook_config.HookPlan) -> _Edit:
    before = fs.read_text(path)
    if before is None:
        return _Edit(path, None, None)
    try:
        after: str | None = hook_config.uninstall(before, plan)
    except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
        raise _parse_error(path, exc) from None
    if after == NEW_JSON and before != NEW_JSON:
        after = None  # only our entries were in it: the file we created goes again
    return _Edit(path, before, after)


# --- the targets --------------------------------------------------------------------


@dataclass(frozen=True)
class Paths:
    directory: str
    status_file: str


class Integration:
    """How one target is installed; subclasses fill in the agent-specific parts."""

    def __init__(self, target: Target) -> None:
        self.target = target

    def paths(self, env: Mapping[str, str]) -> Paths:
        raise NotImplementedError

    def install(self, env: Mapping[str, str]) -> list[str]:
        raise NotImplementedError

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        raise NotImplementedError

    def config_ok(self, env: Mapping[str, str]) -> bool:
        """Extra status check beyond the status file's marker."""
        return True

    def missing(self, directory: str) -> str:
        return f"{self.target.missing} at {directory}. install {self.target.product} first"


class HookIntegration(Integration):
    """A shell hook script plus our entries in the agent's JSON settings."""

    def __init__(
        self,
        target: Target,
        *,
        script: str,
        settings: str,
        events: tuple[str, ...],
        matcher: str | None,
        settings_word: str = "settings",
    ) -> None:
        super().__init__(target)
        self.script = script
        self.settings = settings
        self.events = events
        self.matcher = matcher
        self.settings_word = settings_word

    def paths(self, env: Mapping[str, str]) -> Paths:
        directory = config_dir(self.target, env)
        return Paths(directory, posixpath.join(directory, self.script))

    def plan(self, directory: str) -> hook_config.HookPlan:
        return _nested_plan(posixpath.join(directory, self.script), self.events, self.matcher)

    def extra_install(self, directory: str) -> list[tuple[_Edit, str]]:
        return []

    def extra_uninstall(self, directory: str) -> list[tuple[_Edit, str, str]]:
        return []

    def install(self, env: Mapping[str, str]) -> list[str]:
        t = self.target
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        settings = posixpath.join(p.directory, self.settings)
        edit = _json_install(settings, self.plan(p.directory))
        extra = self.extra_install(p.directory)
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset(t.name, posixpath.basename(self.script)), 0o755)
        _apply(edit)
        messages = [
            f"installed {t.label} integration hook to {p.status_file}",
            f"ensured {t.label} {self.settings_word} at {settings}",
        ]
        for extra_edit, message in extra:
            _apply(extra_edit)
            messages.append(message)
        return messages

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        t = self.target
        p = self.paths(env)
        settings = posixpath.join(p.directory, self.settings)
        edit = _json_uninstall(settings, self.plan(p.directory))
        extra = self.extra_uninstall(p.directory)
        removed = fs.remove(p.status_file)
        messages = [
            f"removed {t.label} hook at {p.status_file}"
            if removed
            else f"no {t.label} hook found at {p.status_file}"
        ]
        _apply(edit)
        messages.append(
            f"removed herdr {t.label} hook entries from {settings}"
            if edit.changed
            else f"no herdr {t.label} hook entries found in {settings}"
        )
        for extra_edit, changed, unchanged in extra:
            _apply(extra_edit)
            messages.append(changed if extra_edit.changed else unchanged)
        return messages


class CodexIntegration(HookIntegration):
    """Codex also needs ``[features] hooks = true`` in ``config.toml``."""

    def _config(self, directory: str) -> tuple[str, str | None]:
        path = posixpath.join(directory, "config.toml")
        return path, fs.read_text(path)

    def extra_install(self, directory: str) -> list[tuple[_Edit, str]]:
        path, before = self._config(directory)
        try:
            after = toml_edit.enable_hooks(before or "")
        except toml_edit.TomlEditError as exc:
            raise _parse_error(path, exc) from None
        return [(_Edit(path, before, after), f"ensured codex config at {path}")]

    def extra_uninstall(self, directory: str) -> list[tuple[_Edit, str, str]]:
        path, before = self._config(directory)
        if before is None:
            return []
        try:
            after: str | None = toml_edit.disable_hooks(before)
        except toml_edit.TomlEditError as exc:
            raise _parse_error(path, exc) from None
        if after == "":
            after = None  # the file held only what we added
        return [
            (
                _Edit(path, before, after),
                f"restored codex config at {path}",
                f"left codex config unchanged at {path}",
            )
        ]


class PiIntegration(Integration):
    """A TypeScript extension in ``<agent dir>/extensions``; no config edit."""

    FILE = "herdr-agent-state.ts"

    def paths(self, env: Mapping[str, str]) -> Paths:
        directory = posixpath.join(config_dir(self.target, env), "extensions")
        return Paths(directory, posixpath.join(directory, self.FILE))

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        agent_dir = posixpath.dirname(p.directory)
        fs.require_own_dir(agent_dir, self.missing(p.directory))
        fs.make_dir(p.directory)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        fs.write_owned(p.status_file, asset(self.target.name, self.FILE), 0o644)
        return [f"installed {self.target.label} integration to {p.status_file}"]

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        text = fs.read_text(p.status_file) if fs.is_regular(p.status_file) else None
        if text is not None and f"HERDR_INTEGRATION_ID={self.target.name}" not in text:
            return [f"left {p.status_file}: it is not herdr's {self.target.label} extension"]
        if fs.remove(p.status_file):
            return [f"removed {self.target.label} integration extension at {p.status_file}"]
        return [f"no {self.target.label} integration extension found at {p.status_file}"]


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
            raise _parse_error(config, exc) from None
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset("opencode", "herdr-agent-state.js"), 0o644)
        tui = posixpath.join(p.directory, self.TUI)
        fs.write_owned(tui, asset("opencode", self.TUI), 0o644)
        _apply(_Edit(config, before, after))
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
        edit: _Edit | None = None
        if before is not None:
            try:
                after: str | None = plugin_list.remove(before, self.SPEC)
            except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
                errors.append(str(_parse_error(config, exc)))
            else:
                if after == NEW_JSON and before != NEW_JSON:
                    after = None
                edit = _Edit(config, before, after)
        tui = posixpath.join(p.directory, self.TUI)
        for path, what in ((p.status_file, "plugin"), (tui, "tui plugin")):
            if fs.remove(path):
                messages.append(f"removed opencode integration {what} at {path}")
            else:
                messages.append(f"no opencode integration {what} found at {path}")
        if edit is not None and edit.changed:
            _apply(edit)
            messages.append(f"removed herdr opencode tui plugin entry from {config}")
        if errors:
            raise IntegrationError("; ".join(errors))
        return messages


def _registry() -> dict[str, Integration]:
    by = {t.name: t for t in TARGETS}
    return {
        "pi": PiIntegration(by["pi"]),
        "claude": HookIntegration(
            by["claude"],
            script="hooks/herdr-agent-state.sh",
            settings="settings.json",
            events=("SessionStart",),
            matcher="*",
        ),
        "codex": CodexIntegration(
            by["codex"],
            script="herdr-agent-state.sh",
            settings="hooks.json",
            events=("SessionStart",),
            matcher=None,
            settings_word="hooks",
        ),
        "opencode": OpenCodeIntegration(by["opencode"]),
    }


INTEGRATIONS: dict[str, Integration] = _registry()


def supported(name: str) -> bool:
    return name in INTEGRATIONS


def _run(name: str, action: Callable[[Integration], list[str]]) -> list[str]:
    integration = INTEGRATIONS.get(name)
    if integration is None:
        raise IntegrationError(f"the {name} integration is not available in this version of herdr")
    with _LOCK:
        try:
            return action(integration)
        except NoHomeError as exc:
            raise IntegrationError(str(exc)) from None
        except OSError as exc:  # anything the helpers did not name already
            raise IntegrationError(f"{exc.filename or name}: {exc.strerror or exc}") from None


def install(name: str, env: Mapping[str, str]) -> list[str]:
    return _run(name, lambda i: i.install(env))


def uninstall(name: str, env: Mapping[str, str]) -> list[str]:
    return _run(name, lambda i: i.uninstall(env))


def status(target: Target, env: Mapping[str, str]) -> markers.Status | None:
    """None when the target's directory cannot be located (no home)."""
    integration = INTEGRATIONS.get(target.name)
    try:
        if integration is None:
            path = config_dir(target, env)
            return markers.status_of(None, path, target.version)
        path = integration.paths(env).status_file
    except NoHomeError:
        return None
    try:
        text = fs.read_text(path) if fs.is_regular(path) else None
    except IntegrationError:
        text = None
    ok = text is None or integration.config_ok(env)
    return markers.status_of(text, path, target.version, config_ok=ok)


def available(target: Target, env: Mapping[str, str]) -> bool:
    path_var = env.get("PATH", "")
    return any(fs.on_path(command, path_var) for command in target.commands)


def listing(env: Mapping[str, str]) -> list[dict[str, object]]:
    """``IntegrationInfo`` records for every target (protocol 22 ``integration.list``)."""
    out: list[dict[str, object]] = []
    for target in TARGETS:
        st = status(target, env)
        out.append(
            {
                "target": target.name,
                "label": target.label,
                "command": target.commands[0],
                "available": available(target, env),
                "state": markers.NOT_INSTALLED if st is None else st.state,
            }
        )
    return out
