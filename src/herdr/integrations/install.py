"""Install, uninstall and inspect herdr's integrations in agents' config directories.

Every target computes all of its edits first (an invalid user file stops the install
before anything is written), then writes our own files, then the agent's config. Each
returns the lines the CLI prints and the socket API returns as ``details.messages``.
Used in-process by the CLI (no server needed) and by the server's ``integration.*``
methods (the server's environment then decides the paths).
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.resources import files as resources

from herdr.integrations import files as fs
from herdr.integrations import hook_config, markers, plugin_list, toml_edit, yaml_edit
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


def _nested_plan(
    script: str, events: tuple[str, ...], matcher: str | None, timeout: int = 10
) -> hook_config.HookPlan:
    entry = {"type": "command", "command": hook_command(script, "session"), "timeout": timeout}
    group: dict[str, object] = {"matcher": matcher} if matcher is not None else {}
    group["hooks"] = [entry]
    return hook_config.HookPlan({e: dict(group) for e in events}, _owned_commands(script))


def _copilot_plan(script: str) -> hook_config.HookPlan:
    entry = {"type": "command", "bash": hook_command(script, None), "timeoutSec": 10}
    return hook_config.HookPlan(
        {"SessionStart": entry}, _owned_commands(script), direct=True, key="bash"
    )


def _cursor_plan(script: str) -> hook_config.HookPlan:
    entry = {"command": hook_command(script, "session")}
    return hook_config.HookPlan(
        {"sessionStart": entry}, _owned_commands(script), direct=True, typed=False
    )


MASTRACODE_EVENTS = {
    "SessionStart": "session",
    "UserPromptSubmit": "working",
    "AgentStart": "working",
    "PreToolUse": "working",
    "PermissionResult": "working",
    "SubagentStart": "working",
    "SubagentEnd": "working",
    "PermissionRequest": "blocked",
    "Interrupt": "idle",
    "AgentEnd": "idle",
    "Stop": "idle",
}


def _mastracode_plan(script: str) -> hook_config.HookPlan:
    wanted = {
        event: {
            "type": "command",
            "command": hook_command(script, action),
            "timeout": 10000,
            "description": "Report MastraCode agent state to Herdr",
        }
        for event, action in MASTRACODE_EVENTS.items()
    }
    return hook_config.HookPlan(wanted, _owned_commands(script), container=None, direct=True)


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


def _json_install(path: str, plan: hook_config.HookPlan, new_file: str = NEW_JSON) -> _Edit:
    before = fs.read_text(path)
    try:
        after = hook_config.install(new_file if before is None else before, plan)
    except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
        raise _parse_error(path, exc) from None
    return _Edit(path, before, after)


def _json_uninstall(path: str, plan: hook_config.HookPlan, new_file: str = NEW_JSON) -> _Edit:
    before = fs.read_text(path)
    if before is None:
        return _Edit(path, None, None)
    try:
        after: str | None = hook_config.uninstall(before, plan)
    except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
        raise _parse_error(path, exc) from None
    if after == new_file and before != new_file:
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
        matcher: str | None = None,
        settings_word: str = "settings",
        timeout: int = 10,
        plan: Callable[[str], hook_config.HookPlan] | None = None,
        new_file: str = NEW_JSON,
        create_dir: bool = False,
    ) -> None:
        super().__init__(target)
        self.script = script
        self.settings = settings
        self.events = events
        self.matcher = matcher
        self.settings_word = settings_word
        self.timeout = timeout
        self.plan_builder = plan
        self.new_file = new_file
        self.create_dir = create_dir

    def paths(self, env: Mapping[str, str]) -> Paths:
        directory = config_dir(self.target, env)
        return Paths(directory, posixpath.join(directory, self.script))

    def plan(self, directory: str) -> hook_config.HookPlan:
        script = posixpath.join(directory, self.script)
        if self.plan_builder is not None:
            return self.plan_builder(script)
        return _nested_plan(script, self.events, self.matcher, self.timeout)

    def extra_install(self, directory: str) -> list[tuple[_Edit, str]]:
        return []

    def extra_uninstall(self, directory: str) -> list[tuple[_Edit, str, str]]:
        return []

    def install(self, env: Mapping[str, str]) -> list[str]:
        t = self.target
        p = self.paths(env)
        if self.create_dir:
            fs.make_dir(p.directory)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        settings = posixpath.join(p.directory, self.settings)
        edit = _json_install(settings, self.plan(p.directory), self.new_file)
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
        edit = _json_uninstall(settings, self.plan(p.directory), self.new_file)
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


class DroidIntegration(HookIntegration):
    """Droid also had herdr entries in a legacy ``hooks.json``: cleaned, never created."""

    def _legacy(self, directory: str) -> list[tuple[_Edit, str, str]]:
        path = posixpath.join(directory, "hooks.json")
        before = fs.read_text(path)
        if before is None:
            return []
        plan = self.plan(directory)
        try:
            after = hook_config.uninstall(before, plan)
        except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
            raise _parse_error(path, exc) from None
        edit = _Edit(path, before, after)
        return [(edit, f"removed legacy herdr droid hook entries from {path}", "")]

    def extra_install(self, directory: str) -> list[tuple[_Edit, str]]:
        return [(edit, msg) for edit, msg, _ in self._legacy(directory) if edit.changed]

    def extra_uninstall(self, directory: str) -> list[tuple[_Edit, str, str]]:
        return [item for item in self._legacy(directory) if item[0].changed]


class CursorIntegration(HookIntegration):
    """Cursor's ``hooks.json`` needs ``"version": 1``; we add it when it is missing."""

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        settings = posixpath.join(p.directory, self.settings)
        before = fs.read_text(settings) if posixpath.isdir(p.directory) else None
        if before is not None:
            try:
                root = je.parse(before)
                if isinstance(root.value, dict) and "version" not in root.value:
                    with_version = je.add_member(before, root, "version", 1)
                    if je.parse(with_version).value != {**root.value, "version": 1}:
                        raise hook_config.ConfigShapeError("could not add version safely")
                    hook_config.install(with_version, self.plan(p.directory))  # dry run first
                    fs.write_text(settings, with_version)
            except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
                raise _parse_error(settings, exc) from None
        messages = super().install(env)
        messages[1] = f"updated cursor hooks at {settings}"
        return messages


class AntigravityIntegration(HookIntegration):
    """``hooks.json`` is keyed by hook name; the ``herdr`` block is ours, whole."""

    BLOCK = "herdr"

    def _block(self, directory: str) -> dict[str, object]:
        command = hook_command(posixpath.join(directory, self.script), "session")
        return {"PreInvocation": [{"type": "command", "command": command, "timeout": 10}]}

    def _edit(self, path: str, directory: str, installing: bool) -> _Edit:
        before = fs.read_text(path)
        text = NEW_JSON if before is None else before
        try:
            root = je.parse(text)
            if not isinstance(root.value, dict):
                raise hook_config.ConfigShapeError("must be a JSON object")
            member = root.member(self.BLOCK)
            block = self._block(directory)
            after: str | None = text
            if installing and member is None:
                after = je.add_member(text, root, self.BLOCK, block)
            elif installing and member is not None and member.node.value != block:
                after = je.replace_value(text, member.node, block)
            elif not installing and member is not None:
                index = root.members.index(member)
                after = je.remove_child(text, root, index)
            assert after is not None
            new = je.parse(after).value
            old = dict(root.value)
            old.pop(self.BLOCK, None)
            rest = dict(new)
            got = rest.pop(self.BLOCK, None)
            if rest != old or got != (block if installing else None):
                raise hook_config.ConfigShapeError("could not be updated safely")
        except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
            raise _parse_error(path, exc) from None
        if not installing and before is not None and after == NEW_JSON != before:
            after = None
        if before is None and not installing:
            after = None
        return _Edit(path, before, after)

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        path = posixpath.join(p.directory, self.settings)
        edit = self._edit(path, p.directory, True)
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset(self.target.name, "herdr-agent-state.sh"), 0o755)
        _apply(edit)
        label = self.target.label
        return [
            f"installed {label} integration hook to {p.status_file}",
            f"ensured {label} hooks at {path}",
        ]

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        path = posixpath.join(p.directory, self.settings)
        edit = self._edit(path, p.directory, False)
        label = self.target.label
        removed = fs.remove(p.status_file)
        _apply(edit)
        return [
            f"removed {label} hook at {p.status_file}"
            if removed
            else f"no {label} hook found at {p.status_file}",
            f"removed herdr {label} hook entries from {path}"
            if edit.changed
            else f"no herdr {label} hook entries found in {path}",
        ]


class GrokIntegration(HookIntegration):
    """Grok merges every ``hooks/*.json``: ``hooks/herdr.json`` is wholly ours."""

    CONFIG = "hooks/herdr.json"

    def _config(self, directory: str) -> dict[str, object]:
        command = hook_command(posixpath.join(directory, self.script), "session", shell="sh")
        entry = {"type": "command", "command": command, "timeout": 10}
        return {"hooks": {"SessionStart": [{"hooks": [entry]}]}}

    def config_ok(self, env: Mapping[str, str]) -> bool:
        directory = self.paths(env).directory
        try:
            text = fs.read_text(posixpath.join(directory, self.CONFIG))
            return text is not None and je.parse(text).value == self._config(directory)
        except (IntegrationError, je.JsonEditError):
            return False

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset("grok", "herdr-agent-state.sh"), 0o755)
        config = posixpath.join(p.directory, self.CONFIG)
        fs.write_owned(config, json.dumps(self._config(p.directory), indent=2) + "\n", 0o644)
        return [
            f"installed grok integration hook to {p.status_file}",
            f"registered grok hook config at {config}",
        ]

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        config = posixpath.join(p.directory, self.CONFIG)
        hook = fs.remove(p.status_file)
        conf = fs.remove(config)
        return [
            f"removed grok hook at {p.status_file}"
            if hook
            else f"no grok hook found at {p.status_file}",
            f"removed grok hook config at {config}"
            if conf
            else f"no grok hook config found at {config}",
        ]


KIMI_MIN = (0, 14, 0)


def parse_kimi_version(output: str) -> tuple[int, int, int] | None:
    """``kimi --version`` → (major, minor, patch): the first token, ``v`` stripped."""
    for word in output.split():
        parts = word.removeprefix("v").split(".")
        if len(parts) < 2 or not parts[0].isdigit() or not parts[1].isdigit():
            continue
        patch = ""
        for ch in parts[2] if len(parts) > 2 else "":
            if not ch.isdigit():
                break
            patch += ch
        return int(parts[0]), int(parts[1]), int(patch or 0)
    return None


class KimiIntegration(HookIntegration):
    """A managed ``[[hooks]]`` block in ``config.toml``; needs Kimi Code 0.14.0 or newer."""

    def _probe(self, env: Mapping[str, str]) -> str | None:
        """A warning, or None; raises when the installed Kimi is too old."""
        import shutil
        import subprocess

        found = shutil.which("kimi", path=env.get("PATH", ""))
        if found is None:
            return "warning: could not run `kimi --version` (kimi is not on PATH)"
        try:
            done = subprocess.run(
                [found, "--version"],
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
                env=dict(env),
                stdin=subprocess.DEVNULL,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"warning: could not run `kimi --version` ({exc})"
        version = parse_kimi_version(done.stdout) if done.returncode == 0 else None
        if version is None:
            return "warning: could not parse the kimi code version from `kimi --version`"
        if version < KIMI_MIN:
            have = ".".join(map(str, version))
            raise IntegrationError(
                f"kimi code {have} is too old: herdr hooks require kimi code 0.14.0 or newer. "
                "upgrade kimi code, then re-run install"
            )
        return None

    def _commands(self, directory: str) -> dict[str, str]:
        script = posixpath.join(directory, self.script)
        return {a: hook_command(script, a) for a in ("session", "working", "blocked", "idle")}

    def install(self, env: Mapping[str, str]) -> list[str]:
        warning = self._probe(env)
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        config = posixpath.join(p.directory, "config.toml")
        before = fs.read_text(config)
        text = before or ""
        nl = "\r\n" if "\r\n" in text else "\n"
        try:
            after = toml_edit.set_kimi_block(
                text, toml_edit.kimi_block(self._commands(p.directory), nl)
            )
        except toml_edit.TomlEditError as exc:
            raise _parse_error(config, exc) from None
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset("kimi", "herdr-agent-state.sh"), 0o755)
        _apply(_Edit(config, before, after))
        messages = [
            f"installed kimi integration hook to {p.status_file}",
            f"ensured kimi config at {config}",
            "requires kimi code 0.14.0 or newer",
        ]
        return [*messages, warning] if warning else messages

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        config = posixpath.join(p.directory, "config.toml")
        before = fs.read_text(config)
        edit: _Edit | None = None
        if before is not None:
            try:
                after: str | None = toml_edit.remove_kimi_block(before)
            except toml_edit.TomlEditError as exc:
                raise _parse_error(config, exc) from None
            edit = _Edit(config, before, None if after == "" and before != "" else after)
        removed = fs.remove(p.status_file)
        messages = [
            f"removed kimi hook at {p.status_file}"
            if removed
            else f"no kimi hook found at {p.status_file}"
        ]
        if edit is not None and edit.changed:
            _apply(edit)
            messages.append(f"removed herdr kimi hook entries from {config}")
        else:
            messages.append(f"no herdr kimi hook entries found in {config}")
        return messages


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
        pi_dir = INTEGRATIONS["pi"].paths(env).directory
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
        _apply(_Edit(config, before, after))
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
            import shutil

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
            edit = _Edit(config, before, after)
            _apply(edit)
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
        "omp": OmpIntegration(by["omp"], "herdr-omp-agent-state.ts"),
        "kilo": KiloIntegration(by["kilo"]),
        "hermes": HermesIntegration(by["hermes"]),
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
        "copilot": HookIntegration(
            by["copilot"],
            script="hooks/herdr-agent-state.sh",
            settings="settings.json",
            events=("SessionStart",),
            plan=_copilot_plan,
        ),
        "devin": HookIntegration(
            by["devin"],
            script="herdr-agent-state.sh",
            settings="config.json",
            events=(
                "SessionStart",
                "UserPromptSubmit",
                "PreToolUse",
                "PostToolUse",
                "PermissionRequest",
                "Stop",
            ),
            settings_word="config",
        ),
        "droid": DroidIntegration(
            by["droid"],
            script="hooks/herdr-agent-state.sh",
            settings="settings.json",
            events=("SessionStart",),
            settings_word="hooks",
        ),
        "qodercli": HookIntegration(
            by["qodercli"],
            script="hooks/herdr-agent-state.sh",
            settings="settings.json",
            events=("SessionStart",),
            matcher="*",
        ),
        "qwen": HookIntegration(
            by["qwen"],
            script="hooks/herdr-agent-session.sh",
            settings="settings.json",
            events=("SessionStart",),
            matcher="*",
            timeout=10000,
        ),
        "cursor": CursorIntegration(
            by["cursor"],
            script="herdr-agent-state.sh",
            settings="hooks.json",
            events=("sessionStart",),
            plan=_cursor_plan,
            new_file='{\n  "version": 1\n}\n',
        ),
        "mastracode": HookIntegration(
            by["mastracode"],
            script="hooks/herdr-agent-state.sh",
            settings="hooks.json",
            events=tuple(MASTRACODE_EVENTS),
            plan=_mastracode_plan,
            settings_word="hooks",
            create_dir=True,
        ),
        "antigravity_cli": AntigravityIntegration(
            by["antigravity_cli"],
            script="hooks/herdr-agent-state.sh",
            settings="hooks.json",
            events=("PreInvocation",),
        ),
        "kimi": KimiIntegration(
            by["kimi"], script="hooks/herdr-agent-state.sh", settings="", events=()
        ),
        "grok": GrokIntegration(
            by["grok"], script="hooks/herdr-agent-state.sh", settings="", events=()
        ),
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
        except (
            je.JsonEditError,
            toml_edit.TomlEditError,
            yaml_edit.YamlEditError,
            hook_config.ConfigShapeError,
        ) as exc:  # a path the target code did not name: still one clear answer
            raise IntegrationError(f"{integration.target.label}: {exc}") from None
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
    """The agent's binary is an executable file on PATH (codex: or its standalone install)."""
    path_var = env.get("PATH", "")
    if any(fs.on_path(command, path_var) for command in target.commands):
        return True
    if target.name == "codex":
        import glob

        try:
            releases = posixpath.join(config_dir(target, env), "packages/standalone/releases")
        except NoHomeError:
            return False
        return any(
            fs.on_path("codex", posixpath.join(release, "bin"))
            for release in glob.glob(posixpath.join(glob.escape(releases), "*"))
        )
    return False


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
