"""Targets whose hook is a shell script registered in the agent's JSON settings
(claude, codex, copilot, devin, droid, qodercli, qwen, cursor, mastracode, antigravity,
grok)."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Mapping

from herdr.integrations import files as fs
from herdr.integrations import hook_config, toml_edit
from herdr.integrations import json_edit as je
from herdr.integrations.base import (
    NEW_JSON,
    Edit,
    Integration,
    Paths,
    apply_edit,
    asset,
    json_install,
    json_uninstall,
    owned_commands,
    parse_error,
)
from herdr.integrations.files import IntegrationError
from herdr.integrations.targets import Target, config_dir, hook_command


def nested_plan(
    script: str, events: tuple[str, ...], matcher: str | None, timeout: int = 10
) -> hook_config.HookPlan:
    entry = {"type": "command", "command": hook_command(script, "session"), "timeout": timeout}
    group: dict[str, object] = {"matcher": matcher} if matcher is not None else {}
    group["hooks"] = [entry]
    return hook_config.HookPlan({e: dict(group) for e in events}, owned_commands(script))


def copilot_plan(script: str) -> hook_config.HookPlan:
    entry = {"type": "command", "bash": hook_command(script, None), "timeoutSec": 10}
    return hook_config.HookPlan(
        {"SessionStart": entry}, owned_commands(script), direct=True, key="bash"
    )


def cursor_plan(script: str) -> hook_config.HookPlan:
    entry = {"command": hook_command(script, "session")}
    return hook_config.HookPlan(
        {"sessionStart": entry}, owned_commands(script), direct=True, typed=False
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


def mastracode_plan(script: str) -> hook_config.HookPlan:
    wanted = {
        event: {
            "type": "command",
            "command": hook_command(script, action),
            "timeout": 10000,
            "description": "Report MastraCode agent state to Herdr",
        }
        for event, action in MASTRACODE_EVENTS.items()
    }
    return hook_config.HookPlan(wanted, owned_commands(script), container=None, direct=True)


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
        return nested_plan(script, self.events, self.matcher, self.timeout)

    def extra_install(self, directory: str) -> list[tuple[Edit, str]]:
        return []

    def extra_uninstall(self, directory: str) -> list[tuple[Edit, str, str]]:
        return []

    def install(self, env: Mapping[str, str]) -> list[str]:
        t = self.target
        p = self.paths(env)
        if self.create_dir:
            fs.make_dir(p.directory)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        settings = posixpath.join(p.directory, self.settings)
        edit = json_install(settings, self.plan(p.directory), self.new_file)
        extra = self.extra_install(p.directory)
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset(t.name, posixpath.basename(self.script)), 0o755)
        apply_edit(edit)
        messages = [
            f"installed {t.label} integration hook to {p.status_file}",
            f"ensured {t.label} {self.settings_word} at {settings}",
        ]
        for extra_edit, message in extra:
            apply_edit(extra_edit)
            messages.append(message)
        return messages

    def uninstall(self, env: Mapping[str, str]) -> list[str]:
        t = self.target
        p = self.paths(env)
        settings = posixpath.join(p.directory, self.settings)
        edit = json_uninstall(settings, self.plan(p.directory), self.new_file)
        extra = self.extra_uninstall(p.directory)
        removed = fs.remove(p.status_file)
        messages = [
            f"removed {t.label} hook at {p.status_file}"
            if removed
            else f"no {t.label} hook found at {p.status_file}"
        ]
        apply_edit(edit)
        messages.append(
            f"removed herdr {t.label} hook entries from {settings}"
            if edit.changed
            else f"no herdr {t.label} hook entries found in {settings}"
        )
        for extra_edit, changed, unchanged in extra:
            apply_edit(extra_edit)
            messages.append(changed if extra_edit.changed else unchanged)
        return messages


class CodexIntegration(HookIntegration):
    """Codex also needs ``[features] hooks = true`` in ``config.toml``."""

    def _config(self, directory: str) -> tuple[str, str | None]:
        path = posixpath.join(directory, "config.toml")
        return path, fs.read_text(path)

    def extra_install(self, directory: str) -> list[tuple[Edit, str]]:
        path, before = self._config(directory)
        try:
            after = toml_edit.enable_hooks(before or "")
        except toml_edit.TomlEditError as exc:
            raise parse_error(path, exc) from None
        return [(Edit(path, before, after), f"ensured codex config at {path}")]

    def extra_uninstall(self, directory: str) -> list[tuple[Edit, str, str]]:
        path, before = self._config(directory)
        if before is None:
            return []
        try:
            after: str | None = toml_edit.disable_hooks(before)
        except toml_edit.TomlEditError as exc:
            raise parse_error(path, exc) from None
        if after == "":
            after = None  # the file held only what we added
        return [
            (
                Edit(path, before, after),
                f"restored codex config at {path}",
                f"left codex config unchanged at {path}",
            )
        ]


class DroidIntegration(HookIntegration):
    """Droid also had herdr entries in a legacy ``hooks.json``: cleaned, never created."""

    def _legacy(self, directory: str) -> list[tuple[Edit, str, str]]:
        path = posixpath.join(directory, "hooks.json")
        before = fs.read_text(path)
        if before is None:
            return []
        plan = self.plan(directory)
        try:
            after = hook_config.uninstall(before, plan)
        except (je.JsonEditError, hook_config.ConfigShapeError) as exc:
            raise parse_error(path, exc) from None
        edit = Edit(path, before, after)
        return [(edit, f"removed legacy herdr droid hook entries from {path}", "")]

    def extra_install(self, directory: str) -> list[tuple[Edit, str]]:
        return [(edit, msg) for edit, msg, _ in self._legacy(directory) if edit.changed]

    def extra_uninstall(self, directory: str) -> list[tuple[Edit, str, str]]:
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
                raise parse_error(settings, exc) from None
        messages = super().install(env)
        messages[1] = f"updated cursor hooks at {settings}"
        return messages


class AntigravityIntegration(HookIntegration):
    """``hooks.json`` is keyed by hook name; the ``herdr`` block is ours, whole."""

    BLOCK = "herdr"

    def _block(self, directory: str) -> dict[str, object]:
        command = hook_command(posixpath.join(directory, self.script), "session")
        return {"PreInvocation": [{"type": "command", "command": command, "timeout": 10}]}

    def _edit(self, path: str, directory: str, installing: bool) -> Edit:
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
            raise parse_error(path, exc) from None
        if not installing and before is not None and after == NEW_JSON != before:
            after = None
        if before is None and not installing:
            after = None
        return Edit(path, before, after)

    def install(self, env: Mapping[str, str]) -> list[str]:
        p = self.paths(env)
        fs.require_own_dir(p.directory, self.missing(p.directory))
        path = posixpath.join(p.directory, self.settings)
        edit = self._edit(path, p.directory, True)
        fs.make_dir(posixpath.dirname(p.status_file))
        fs.write_owned(p.status_file, asset(self.target.name, "herdr-agent-state.sh"), 0o755)
        apply_edit(edit)
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
        apply_edit(edit)
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
